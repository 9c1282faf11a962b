/**
 * A real repository whose commits are made as an agent's bash call makes them, with what `git commit`
 * printed for each (the summary line a backfill reads from OpenCode's history).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Makes a repository in `folder` (resolved), one commit per subject, each changing its own file. With
 * `times` (epoch ms, one per subject), each commit is dated then, as if made by a call of that time.
 */
export function repoWithCommits(folder: string, subjects: string[], times?: number[]): { repo: string; printed: string[] } {
  const repo = fs.realpathSync(folder);
  const git = (env: Record<string, string>, ...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', ...env } });
  git({}, 'init', '-q', '-b', 'main');
  git({}, 'config', 'user.email', 'agent@example.test');
  git({}, 'config', 'user.name', 'Agent');
  const printed = subjects.map((subject, i) => {
    fs.writeFileSync(path.join(repo, `f${i}.txt`), `${subject}\n`);
    git({}, 'add', '-A');
    const at = times?.[i];
    const date: Record<string, string> = at === undefined ? {} : { GIT_AUTHOR_DATE: `@${Math.floor(at / 1000)} +0000`, GIT_COMMITTER_DATE: `@${Math.floor(at / 1000)} +0000` };
    return git(date, 'commit', '-m', subject);
  });
  return { repo, printed };
}

/**
 * Makes a repository in `folder` of many commits at once (`git fast-import`), one per entry, each dated
 * `at` (epoch ms) and changing its own file; returns each commit's full hash, in order.
 */
export function repoOfManyCommits(folder: string, commits: readonly { message: string; at: number }[]): string[] {
  const repo = fs.realpathSync(folder);
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1' };
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo, env });
  const data = (text: string): string => `data ${Buffer.byteLength(text)}\n${text}\n`;
  const stream = commits
    .map(({ message, at }, i) => `commit refs/heads/main\nmark :${i + 1}\ncommitter Agent <agent@example.test> ${Math.floor(at / 1000)} +0000\n${data(message)}M 100644 inline f${i}.txt\n${data(`${i}\n`)}`)
    .join('');
  const marks = path.join(repo, '.git', 'marks');
  execFileSync('git', ['fast-import', '--quiet', `--export-marks=${marks}`], { cwd: repo, env, input: stream, maxBuffer: 64 * 1024 * 1024 });
  const byMark = new Map(fs.readFileSync(marks, 'utf8').trim().split('\n').map((line) => line.split(' ') as [string, string]));
  return commits.map((_c, i) => byMark.get(`:${i + 1}`) ?? '');
}

/**
 * A real repository whose commits are made as an agent's bash call makes them, with what `git commit`
 * printed for each (the summary line a backfill reads from OpenCode's history).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Makes a repository in `folder` (resolved), one commit per subject, each changing its own file. */
export function repoWithCommits(folder: string, subjects: string[]): { repo: string; printed: string[] } {
  const repo = fs.realpathSync(folder);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'agent@example.test');
  git('config', 'user.name', 'Agent');
  const printed = subjects.map((subject, i) => {
    fs.writeFileSync(path.join(repo, `f${i}.txt`), `${subject}\n`);
    git('add', '-A');
    return git('commit', '-m', subject);
  });
  return { repo, printed };
}

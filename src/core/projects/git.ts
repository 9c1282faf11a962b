/**
 * Git access through simple-git, always with argument arrays. The output parsers are small pure
 * functions, tested on fixture strings.
 */
import type { SimpleGitFactory } from 'simple-git';
import type { GitCommit } from '../../contract/host-events.js';
import { readCommitContent } from '../integrity/commit-content.js';

/** At most this many commits are read after one bash call (a huge rebase is not one agent's work). */
export const MAX_COMMITS_PER_CALL = 200;
const GIT_TIMEOUT_MS = 5000;
const RECORD_SEPARATOR = '\u001e';
const FIELD_SEPARATOR = '\u001f';

/** simple-git, loaded on the first git call so plugin start does not pay for it. */
let simpleGitFactory: Promise<SimpleGitFactory> | undefined;

/**
 * Settings every git call runs with, over the repository's own config: an agent can write a project's
 * `.git/config`, and git runs the programs named there (a file-system monitor on `status`, a signature
 * verifier when `log.showSignature` is set). Run from the user's terminal (`agent-tracker report`), such a
 * program would act with the user's terminal and clean provenance, so the tracker's reads run none of them.
 */
const HARDENED_CONFIG = ['core.fsmonitor=false', 'log.showSignature=false'];

/**
 * Runs `git <args>` in `directory` (an argument array, never a shell string) and returns its
 * output. A git that prints nothing for `timeoutMs` is stopped; `signal` can stop it too.
 */
export async function runGit(directory: string, args: string[], timeoutMs = GIT_TIMEOUT_MS, signal?: AbortSignal): Promise<string> {
  const simpleGit = await (simpleGitFactory ??= import('simple-git').then((module) => module.simpleGit));
  // simple-git refuses any core.fsmonitor or filter setting unless told.
  // Set here only to turn programs off: the monitor, and the filters `status` passes through (workingTreeStatusArgs).
  const options = { baseDir: directory, config: HARDENED_CONFIG, unsafe: { allowUnsafeFsMonitor: true, allowUnsafeFilter: true }, timeout: { block: timeoutMs } };
  return simpleGit({ ...options, ...(signal ? { abort: signal } : {}) }).raw(args);
}

/** The commit HEAD points at, or undefined when there is none yet (or this is no repository). */
export async function readHead(directory: string): Promise<string | undefined> {
  try {
    const head = (await runGit(directory, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'])).trim();
    return /^[0-9a-f]{40,64}$/.test(head) ? head : undefined;
  } catch {
    return undefined;
  }
}

/** The `git log` arguments that list the commits after `from` up to `to` with their file stats. */
export function commitLogArgs(from: string | undefined, to: string, max = MAX_COMMITS_PER_CALL): string[] {
  return [
    'log',
    `--max-count=${max}`,
    '--numstat',
    '--no-renames',
    `--format=${RECORD_SEPARATOR}%H %P${FIELD_SEPARATOR}%ct${FIELD_SEPARATOR}%B${FIELD_SEPARATOR}`,
    from ? `${from}..${to}` : to,
    '--',
  ];
}

/** Parses the output of `commitLogArgs`; newest first as git prints it. */
export function parseCommitLog(output: string): (GitCommit & { committedAt: number })[] {
  const commits: (GitCommit & { committedAt: number })[] = [];
  for (const record of output.split(RECORD_SEPARATOR)) {
    if (record.trim() === '') continue;
    const [hashAndParents = '', time = '0', message = '', stats = ''] = record.split(FIELD_SEPARATOR);
    // The first field is "%H %P": the hash, then the parents (none for a root commit, 2+ for a merge).
    const [hash = '', ...parents] = hashAndParents.trim().split(/\s+/);
    const files: string[] = [];
    let insertions = 0;
    let deletions = 0;
    for (const line of stats.split('\n')) {
      const match = /^(\d+|-)\t(\d+|-)\t(.+)$/.exec(line);
      if (!match) continue;
      insertions += match[1] === '-' ? 0 : Number(match[1]);
      deletions += match[2] === '-' ? 0 : Number(match[2]);
      files.push(match[3] as string);
    }
    const committedAt = Number(time);
    commits.push({
      hash: hash.trim(),
      parents,
      message: message.trim(),
      files,
      insertions,
      deletions,
      timestamp: new Date(committedAt * 1000).toISOString(),
      committedAt,
    });
  }
  return commits;
}

/**
 * The commits made between two HEADs, oldest first. Commits whose committer time is before
 * `notBefore` (seconds) were brought in (a pull, a fast-forward), not made, and are left out.
 */
export async function commitsSince(
  directory: string,
  from: string | undefined,
  to: string,
  notBefore: number,
): Promise<GitCommit[]> {
  const output = await runGit(directory, commitLogArgs(from, to));
  const made = parseCommitLog(output).filter((commit) => commit.committedAt >= notBefore);
  // What each commit changes in content (patch id, whitespace only): credit tells new work from the same again.
  const content = made.length === 0 ? new Map() : await readCommitContent(runGit, directory, from, to, MAX_COMMITS_PER_CALL);
  return made.reverse().map(({ committedAt: _committedAt, ...commit }) => ({ ...commit, ...content.get(commit.hash) }));
}

/** Where a shell command starts git: the word `git` at the start, or after a space or a shell operator. */
const GIT_WORD = /(?:^|[\s;&|(`$])git(?=\s|$)/g;

/** git's options before the subcommand that take the next word as their value (`git -C dir status`). */
const OPTIONS_WITH_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--super-prefix']);

/**
 * git's subcommands that make no commit and never move HEAD (git lets no alias take a built-in's
 * name). `fetch` moves remote branches only; `push` is left out: its push is recorded after it.
 */
const READ_ONLY_SUBCOMMANDS = new Set([
  'blame',
  'cat-file',
  'describe',
  'diff',
  'fetch',
  'grep',
  'help',
  'log',
  'ls-files',
  'ls-remote',
  'ls-tree',
  'rev-list',
  'rev-parse',
  'shortlog',
  'show',
  'status',
  'version',
]);

/** A word the shell passes on as it is written: no quoting, expansion or escape can change or split it. */
const PLAIN_WORD = /^[\w./:@,+=-]+$/;

/**
 * How far past a `git` its subcommand is looked for, in characters, and how many gits of one command
 * are looked at: past either, HEAD is read without looking further, so a command of any length (an
 * agent's, in the hook before its call) is judged in bounded time.
 */
export const SUBCOMMAND_WINDOW = 256;
export const MAX_GITS_LOOKED_AT = 32;

/**
 * The subcommand of the git whose arguments start `rest`, up to the next shell operator; undefined
 * when none can be told for sure (no word in the window, or a word before it that is not plain).
 */
function subcommandOf(rest: string): string | undefined {
  const window = rest.slice(0, SUBCOMMAND_WINDOW);
  const segment = window.split(/[\n;&|()`<>]/, 1)[0] ?? '';
  const words = segment.trim().split(/\s+/);
  // The window may have cut the command's last word in it.
  if (segment.length === window.length && rest.length > window.length) words.pop();
  let valueNext = false;
  for (const word of words) {
    if (!PLAIN_WORD.test(word)) return undefined;
    if (valueNext) valueNext = false;
    else if (!word.startsWith('-')) return word;
    else valueNext = OPTIONS_WITH_VALUE.has(word);
  }
  return undefined;
}

/**
 * Whether a shell command may make a commit or move HEAD through git: it runs git with any
 * subcommand but the read-only ones, or one that cannot be told. Only then is HEAD read before and
 * after it; `git status`, `git diff` or `git log` run without a git of the plugin's around them.
 */
export function mayMoveHead(command: string): boolean {
  let looked = 0;
  for (const match of command.matchAll(GIT_WORD)) {
    looked += 1;
    if (looked > MAX_GITS_LOOKED_AT) return true;
    if (!READ_ONLY_SUBCOMMANDS.has(subcommandOf(command.slice(match.index + match[0].length)) ?? '')) return true;
  }
  return false;
}

/** Whether a shell command runs `git push` (possibly with options before the subcommand). */
export function runsGitPush(command: string): boolean {
  return /(^|[\s;&|(`$])git(\s+-[^\s;&|]+(\s+[^-\s;&|][^\s;&|]*)?)*\s+push(\s|$)/.test(command);
}

/** One uncommitted change in a working tree: git's two-letter status code and the path. */
export interface WorkingTreeChange {
  /** `git status --porcelain` code, e.g. ` M`, `A `, `??`. */
  code: string;
  path: string;
}

/** The `git config` arguments that list the content filters the repository's config names (reading config runs nothing). */
export function filterKeysArgs(): string[] {
  return ['config', '--name-only', '--get-regexp', '^filter\\..*\\.(clean|process)$'];
}

/**
 * The `git status` arguments whose output `parsePorcelainStatus` reads. `filterKeys` is the output of
 * `filterKeysArgs`: `status` runs a file's clean filter when its stat changed, a program an agent can
 * name in `.git/config`, so each filter named there passes content through (`cat`) instead.
 * @throws Error for a filter whose name holds "=" (`-c` could not set it): `status` is not run.
 */
export function workingTreeStatusArgs(filterKeys = ''): string[] {
  const filters = new Set<string>();
  for (const line of filterKeys.split('\n')) {
    const name = /^filter\.(.+)\.(?:clean|process)$/.exec(line.trim())?.[1];
    if (name === undefined) continue;
    if (name.includes('=')) throw new Error(`the content filter "${name}" cannot be turned off for git status`);
    filters.add(name);
  }
  const passThrough = [...filters].flatMap((name) => ['-c', `filter.${name}.clean=cat`, '-c', `filter.${name}.process=`]);
  // `status` refreshes the index when it can, holding .git/index.lock meanwhile: an agent's `git add` or
  // `git commit` at that moment (the sheet is read at a session's start, as its first call runs) would fail.
  // A submodule's own config can name programs too: status does not go into submodules.
  return ['--no-optional-locks', ...passThrough, 'status', '--porcelain=v1', '-z', '--untracked-files=normal', '--ignore-submodules=all'];
}

/** Parses NUL-separated `git status --porcelain=v1 -z` output; a rename lists its new path. */
export function parsePorcelainStatus(output: string): WorkingTreeChange[] {
  const changes: WorkingTreeChange[] = [];
  const fields = output.split('\0');
  for (let i = 0; i < fields.length; i += 1) {
    const field = fields[i] as string;
    if (field.length < 4) continue;
    const code = field.slice(0, 2);
    changes.push({ code, path: field.slice(3) });
    // A rename or copy is followed by a field holding its original path.
    if (code.includes('R') || code.includes('C')) i += 1;
  }
  return changes;
}

/** The uncommitted changes of the working tree at `directory`; undefined when it is no repository. */
export async function readWorkingTreeChanges(directory: string): Promise<WorkingTreeChange[] | undefined> {
  try {
    const filterKeys = await runGit(directory, filterKeysArgs());
    return parsePorcelainStatus(await runGit(directory, workingTreeStatusArgs(filterKeys)));
  } catch {
    return undefined;
  }
}

/**
 * What a finished bash call did to git, read from its command, exit code and output alone (the
 * repository may be gone by the time history is replayed). Pure; table-tested.
 */
import { runsGitPush } from '../projects/git.js';

/** `[main 1a2b3c4] message` / `[main (root-commit) 1a2b3c4] message`: the summary line git commit prints. */
const COMMIT_SUMMARY = /^\[[^\]\s]+(?: \([^)]*\))? ([0-9a-f]{7,40})\] (.*)$/gm;
/** `git commit` as a command (options may come between git and the subcommand). */
const GIT_COMMIT = /(^|[\s;&|(`$])git(\s+-[^\s;&|]+(\s+[^-\s;&|][^\s;&|]*)?)*\s+commit(\s|$)/g;
/**
 * The other commands that make a commit and print its summary line: `git revert` and `git cherry-pick`.
 * Their commits are counted by the summaries printed only (`--no-commit` makes none and prints none).
 */
const GIT_REPLAYING = /(^|[\s;&|(`$])git(\s+-[^\s;&|]+(\s+[^-\s;&|][^\s;&|]*)?)*\s+(revert|cherry-pick)(\s|$)/;

/** The words a command that can make a commit holds, one of them at least (`commit`, `revert`, `cherry-pick`). */
export const COMMITTING_WORDS = ['commit', 'revert', 'cherry-pick'] as const;

/**
 * Whether a call's output can tell bashGitFacts anything: only a command that says one of
 * COMMITTING_WORDS can run `git commit`, `git revert` or `git cherry-pick`. Readers of a host's
 * history keep no other output (outputs are most of a store's bytes).
 */
export function outputCanShowCommits(command: string | undefined): boolean {
  return command !== undefined && COMMITTING_WORDS.some((word) => command.includes(word));
}

export interface BashGitFacts {
  /** Commits the call made: the larger of the summaries printed and the `git commit` runs. */
  commits: number;
  /** Hash (as printed, possibly abbreviated) and subject of each commit whose summary was printed. */
  printed: { hash: string; message: string }[];
  pushed: boolean;
}

/** Commits and pushes of a bash call that exited 0; a failed call made none. */
export function bashGitFacts(command: string, exit: number | undefined, output: string): BashGitFacts {
  if (exit !== undefined && exit !== 0) return { commits: 0, printed: [], pushed: false };
  const runs = command.match(GIT_COMMIT)?.length ?? 0;
  const printed = runs === 0 && !GIT_REPLAYING.test(command) ? [] : [...output.matchAll(COMMIT_SUMMARY)].map((m) => ({ hash: m[1] ?? '', message: m[2] ?? '' }));
  return { commits: Math.max(runs, printed.length), printed, pushed: runsGitPush(command) };
}

/**
 * Git after the fact, run off the hot path (session start, `report`): reads the project's branch once
 * per new HEAD (simple-git, argument arrays), decides the fate of each tracked commit with the pure
 * functions of git-signals.ts, and hands the counter changes to the tracking service, which counts
 * them on the usage record of the setup that made each commit. A per-project cache (the HEAD it was
 * computed at and what was counted) makes each commit's signal count once. A folder that is gone or
 * is no repository has no signal: never an error.
 */
import { runGit } from '../projects/git.js';
import { headIfMoved } from '../projects/head-files.js';
import { GIT_ABBREVIATION_LENGTH } from '../tracking/commit-prefix.js';
import type { CommitRecord } from '../types.js';
import { commitFate, FIELD_SEPARATOR, newlyCounted, parseBranchLog, RECORD_SEPARATOR, revertingCommits } from './git-signals.js';
import type { BranchCommit } from './git-signals.js';
import type { CountedFate, GitSignalCache } from '../../contract/git-signal-cache.js';

/** How far back the branch is read: commits older than this are no longer watched. */
export const BRANCH_LOG_LIMIT = 300;
/** Reading a long history may take longer than one quick git call. */
const BRANCH_LOG_TIMEOUT_MS = 20_000;

export type { GitSignalCache };

/**
 * The `git log` arguments: the first-parent branch, newest first, with zero-context diffs. No external
 * diff and no textconv filter: both run programs the repository's config names (an agent can write it);
 * a submodule's change is its commit line (`diff.submodule=diff` would diff inside it, under its own config).
 */
export function branchLogArgs(limit = BRANCH_LOG_LIMIT): string[] {
  return ['log', '--first-parent', '-n', String(limit), `--format=${RECORD_SEPARATOR}%H${FIELD_SEPARATOR}%s${FIELD_SEPARATOR}%b${FIELD_SEPARATOR}`, '-p', '-U0', '--no-color', '--no-ext-diff', '--no-textconv', '--submodule=short', '--no-renames', 'HEAD'];
}

/** The branch of `directory`, oldest first; undefined when it cannot be read (gone, no repository, no commits). */
export async function readBranch(directory: string): Promise<BranchCommit[] | undefined> {
  try {
    return parseBranchLog(await runGit(directory, branchLogArgs(), BRANCH_LOG_TIMEOUT_MS));
  } catch {
    return undefined;
  }
}

/**
 * Where a tracked commit sits on the branch: by its full hash, or by the abbreviation a backfill
 * recorded it under (one branch commit must start with it; two would be ambiguous, and get nothing).
 */
function branchPositions(branch: readonly BranchCommit[]): (hash: string) => number | undefined {
  const byHash = new Map<string, number>();
  const byShortest = new Map<string, number[]>();
  branch.forEach((commit, index) => {
    byHash.set(commit.hash, index);
    const shortest = commit.hash.slice(0, GIT_ABBREVIATION_LENGTH);
    byShortest.set(shortest, [...(byShortest.get(shortest) ?? []), index]);
  });
  return (hash) => {
    const exact = byHash.get(hash);
    if (exact !== undefined || hash.length < GIT_ABBREVIATION_LENGTH) return exact;
    const matches = (byShortest.get(hash.slice(0, GIT_ABBREVIATION_LENGTH)) ?? []).filter((index) => branch[index]?.hash.startsWith(hash));
    return matches.length === 1 ? matches[0] : undefined;
  };
}

/** A counter change for one tracked commit. */
export interface CommitSignal {
  commit: CommitRecord;
  revertedCommits: number;
  followUpFixCommits: number;
}

/**
 * The new signals of the tracked commits on the branch, and the cache after counting them. Pure:
 * commits not on the branch (another branch, rewritten history) get nothing.
 */
export function gitSignals(branch: readonly BranchCommit[], tracked: readonly CommitRecord[], head: string, cache: GitSignalCache | undefined): { signals: CommitSignal[]; cache: GitSignalCache } {
  const position = branchPositions(branch);
  const reverters = revertingCommits(branch);
  const counted: Record<string, CountedFate> = { ...(cache?.counted ?? {}) };
  const signals: CommitSignal[] = [];
  for (const commit of tracked) {
    const index = position(commit.hash);
    if (index === undefined) continue;
    const fate = commitFate(branch, index, reverters);
    const change = newlyCounted(fate, counted[commit.hash]);
    if (change.revertedCommits === 0 && change.followUpFixCommits === 0) continue;
    counted[commit.hash] = { reverted: fate.reverted || (counted[commit.hash]?.reverted ?? false), followUpFix: fate.followUpFix || (counted[commit.hash]?.followUpFix ?? false) };
    signals.push({ commit, ...change });
  }
  return { signals, cache: { head, counted } };
}

/** Where the signals go: the tracking service (buffered counter deltas and the cache, one flush). */
export interface GitSignalSink {
  trackedCommits(project: string): CommitRecord[];
  gitSignalCache(project: string): GitSignalCache | undefined;
  recordGitSignals(project: string, signals: readonly CommitSignal[], cache: GitSignalCache): void;
}

/**
 * Brings a project's git signals up to date. Does nothing when HEAD is where it was last time, when the
 * project has no tracked commits, or when the folder cannot be read as a repository. The HEAD the
 * signals are computed at is the newest commit of the branch as read (first parent from HEAD).
 * @returns how many commits got a new signal.
 */
export async function refreshGitSignals(sink: GitSignalSink, project: string): Promise<number> {
  const cache = sink.gitSignalCache(project);
  if ((await headIfMoved(project, cache?.head)) === undefined) return 0;
  const tracked = sink.trackedCommits(project);
  if (tracked.length === 0) return 0;
  // A HEAD the files name but git cannot read (a damaged repository) has no branch: nothing to count.
  const branch = (await readBranch(project)) ?? [];
  const newest = branch.at(-1);
  if (newest === undefined) return 0;
  const result = gitSignals(branch, tracked, newest.hash, cache);
  sink.recordGitSignals(project, result.signals, result.cache);
  return result.signals.length;
}

/** How many projects' git is read at once: each waits on its own git process, and these overlap. */
const PROJECTS_AT_ONCE = 4;

/** Brings the git signals of each of `projects` up to date, PROJECTS_AT_ONCE at a time. */
export async function refreshGitSignalsOf(sink: GitSignalSink, projects: Iterable<string>): Promise<void> {
  const waiting = [...new Set(projects)];
  const next = async (): Promise<void> => {
    for (let project = waiting.shift(); project !== undefined; project = waiting.shift()) await refreshGitSignals(sink, project);
  };
  await Promise.all(Array.from({ length: PROJECTS_AT_ONCE }, next));
}

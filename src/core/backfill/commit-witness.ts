/**
 * What a project's git holds of the commits a replayed session says it made. OpenCode's history is a
 * file the agents can write as well as the user (DESIGN.md, trust model), so a commit replayed from it
 * is recorded and earns only when the repository holds it, made in the time of the call that says so:
 * a hash `git commit` printed must name one commit of the repository (its branches, tags or reflog),
 * and a commit git printed no hash for (`git commit -q`) is the one git made while the call ran.
 * Live tracking reads git itself after each call; this gives a replay the same ground.
 */
import fs from 'node:fs';
import { runGit } from '../projects/git.js';

/** The most recent commits read from a repository: an older commit is not found, so it earns nothing. */
export const MAX_WITNESSED_COMMITS = 20_000;
/** git keeps a committer time in whole seconds: a call's bounds are widened by this much each way. */
const SECOND_MS = 1000;
/** How long before its end a call the host kept no start of may have started (OpenCode's bash tool stops a command at 10 minutes). */
export const LONGEST_CALL_MS = 10 * 60_000;
const FIELD_SEPARATOR = '\u001f';
const HEX_HASH = /^[0-9a-f]{40,64}$/;

/** A commit the repository holds. */
export interface WitnessedCommit {
  hash: string;
  parents: string[];
  /** Committer time, epoch milliseconds (whole seconds). */
  committedAt: number;
  subject: string;
}

/** The `git log` arguments that list a repository's commits (every ref and the reflog), newest first. */
export function witnessLogArgs(max = MAX_WITNESSED_COMMITS): string[] {
  return ['log', '--all', '--reflog', '--no-show-signature', `--max-count=${max}`, `--format=%H${FIELD_SEPARATOR}%P${FIELD_SEPARATOR}%ct${FIELD_SEPARATOR}%s`];
}

/** Parses the output of `witnessLogArgs`; a line that is not a commit is left out. */
export function parseWitnessLog(output: string): WitnessedCommit[] {
  const commits: WitnessedCommit[] = [];
  for (const line of output.split('\n')) {
    const [hash = '', parents = '', time = '', subject = ''] = line.split(FIELD_SEPARATOR);
    const seconds = Number(time);
    if (!HEX_HASH.test(hash) || time === '' || !Number.isInteger(seconds)) continue;
    commits.push({ hash, parents: parents === '' ? [] : parents.split(' '), committedAt: seconds * SECOND_MS, subject });
  }
  return commits;
}

/** When a call ran (epoch ms); `from` is unknown for a call the host kept only one time of (then LONGEST_CALL_MS before `to`). */
export interface CallTime {
  from?: number;
  to: number;
}

function committedDuring(commit: WitnessedCommit, call: CallTime): boolean {
  const from = call.from ?? call.to - LONGEST_CALL_MS;
  return commit.committedAt <= call.to + SECOND_MS && commit.committedAt >= from - SECOND_MS;
}

/** The commits of one repository, looked up by a printed (possibly abbreviated) hash or by time. */
export class ProjectCommits {
  /** Sorted by hash, for lookups by prefix. */
  private readonly byHash: WitnessedCommit[];

  constructor(commits: readonly WitnessedCommit[]) {
    const unique = new Map(commits.map((commit) => [commit.hash, commit]));
    this.byHash = [...unique.values()].sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
  }

  /** The commit `printed` names when exactly one commit's hash starts with it and it was made during `call`. */
  printed(printed: string, call: CallTime): WitnessedCommit | undefined {
    let low = 0;
    let high = this.byHash.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.byHash[middle]?.hash ?? '') < printed) low = middle + 1;
      else high = middle;
    }
    const found = this.byHash[low];
    if (!found?.hash.startsWith(printed) || this.byHash[low + 1]?.hash.startsWith(printed)) return undefined;
    return committedDuring(found, call) ? found : undefined;
  }

  /** The commits made during `call`, oldest first (those of the same second in hash order: the sort is stable). */
  madeDuring(call: CallTime): WitnessedCommit[] {
    return this.byHash.filter((commit) => committedDuring(commit, call)).sort((a, b) => a.committedAt - b.committedAt);
  }
}

/**
 * The commits of the repository at `directory`, or undefined when there is none to read (the folder is
 * gone, it is no repository, git failed): then no replayed commit of that folder can be told apart from
 * a forged one, and none earns.
 */
export async function readProjectCommits(directory: string): Promise<ProjectCommits | undefined> {
  if (!fs.existsSync(directory)) return undefined;
  try {
    return new ProjectCommits(parseWitnessLog(await runGit(directory, witnessLogArgs())));
  } catch {
    return undefined;
  }
}

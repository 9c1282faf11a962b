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

/**
 * The earliest `since` git reads as a time (epoch ms: 1973-03-03): git takes `@N` for seconds since the
 * epoch only from nine digits on, and a smaller N for a date near now, which would hide every older
 * commit. A bound before it bounds nothing worth reading, and is left out.
 */
const EARLIEST_SINCE_MS = 100_000_000 * SECOND_MS;

/**
 * The `git log` arguments that list a repository's commits (every ref and the reflog), newest first;
 * with `since` (epoch ms), only those committed in that second or after.
 */
export function witnessLogArgs(max = MAX_WITNESSED_COMMITS, since?: number): string[] {
  const bounded = since !== undefined && Number.isFinite(since) && since >= EARLIEST_SINCE_MS;
  return [
    'log',
    '--all',
    '--reflog',
    '--no-show-signature',
    `--max-count=${max}`,
    ...(bounded ? [`--since=@${Math.floor(since / SECOND_MS)}`] : []),
    `--format=%H${FIELD_SEPARATOR}%P${FIELD_SEPARATOR}%ct${FIELD_SEPARATOR}%s`,
  ];
}

/**
 * The oldest commit time a call of sessions created at `earliestSession` or later can hold (epoch ms;
 * undefined for no sessions): a call the host kept no start of may have begun LONGEST_CALL_MS before it
 * ended, and git's whole seconds widen every call by SECOND_MS.
 */
export function oldestWitnessable(earliestSession: number | undefined): number | undefined {
  return earliestSession === undefined ? undefined : earliestSession - LONGEST_CALL_MS - SECOND_MS;
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

function committedDuring(committedAt: number, call: CallTime): boolean {
  const from = call.from ?? call.to - LONGEST_CALL_MS;
  return committedAt <= call.to + SECOND_MS && committedAt >= from - SECOND_MS;
}

const byHash = (a: WitnessedCommit, b: WitnessedCommit): number => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0);

/**
 * The commits of one repository, looked up by a printed (possibly abbreviated) hash or by time. Held
 * as a few flat strings and typed arrays, not an object per commit: a backfill keeps every project's
 * commits (up to MAX_WITNESSED_COMMITS each) until it ends, and a hash or subject cut from git's output
 * would keep all of that output alive.
 */
export class ProjectCommits {
  /** The hashes end to end, in hash order (for lookups by prefix). */
  private readonly hashes: string;
  /** Where each commit's hash starts in `hashes`; one more entry: where the last one ends. */
  private readonly hashStarts: Uint32Array;
  /** Each commit's committer time (epoch ms), in hash order. */
  private readonly times: Float64Array;
  /** Each commit's parents (space-separated), FIELD_SEPARATOR, and subject, end to end in hash order. */
  private readonly details: string;
  private readonly detailStarts: Uint32Array;

  constructor(commits: readonly WitnessedCommit[]) {
    const sorted = [...new Map(commits.map((commit) => [commit.hash, commit])).values()].sort(byHash);
    this.hashStarts = new Uint32Array(sorted.length + 1);
    this.detailStarts = new Uint32Array(sorted.length + 1);
    this.times = new Float64Array(sorted.length);
    const details = sorted.map((commit) => `${commit.parents.join(' ')}${FIELD_SEPARATOR}${commit.subject}`);
    sorted.forEach((commit, i) => {
      this.hashStarts[i + 1] = (this.hashStarts[i] ?? 0) + commit.hash.length;
      this.detailStarts[i + 1] = (this.detailStarts[i] ?? 0) + (details[i]?.length ?? 0);
      this.times[i] = commit.committedAt;
    });
    // join copies the pieces into one new string.
    this.hashes = sorted.map((commit) => commit.hash).join('');
    this.details = details.join('');
  }

  private hashAt(i: number): string {
    return this.hashes.slice(this.hashStarts[i], this.hashStarts[i + 1]);
  }

  private commitAt(i: number): WitnessedCommit {
    const detail = this.details.slice(this.detailStarts[i], this.detailStarts[i + 1]);
    const split = detail.indexOf(FIELD_SEPARATOR);
    const parents = detail.slice(0, split);
    return { hash: this.hashAt(i), parents: parents === '' ? [] : parents.split(' '), committedAt: this.times[i] ?? 0, subject: detail.slice(split + 1) };
  }

  /** The commit `printed` names when exactly one commit's hash starts with it and it was made during `call`. */
  printed(printed: string, call: CallTime): WitnessedCommit | undefined {
    const count = this.times.length;
    let low = 0;
    let high = count;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.hashAt(middle) < printed) low = middle + 1;
      else high = middle;
    }
    if (low >= count || !this.hashAt(low).startsWith(printed) || (low + 1 < count && this.hashAt(low + 1).startsWith(printed))) return undefined;
    return committedDuring(this.times[low] ?? 0, call) ? this.commitAt(low) : undefined;
  }

  /** The commits made during `call`, oldest first (those of the same second in hash order: the sort is stable). */
  madeDuring(call: CallTime): WitnessedCommit[] {
    const during: number[] = [];
    this.times.forEach((committedAt, i) => {
      if (committedDuring(committedAt, call)) during.push(i);
    });
    return during.sort((a, b) => (this.times[a] ?? 0) - (this.times[b] ?? 0)).map((i) => this.commitAt(i));
  }
}

/**
 * The commits of the repository at `directory` (with `since`, epoch ms, those committed then or after:
 * oldestWitnessable of the sessions replayed), or undefined when there is none to read (the folder is
 * gone, it is no repository, git failed): then no replayed commit of that folder can be told apart from
 * a forged one, and none earns.
 */
export async function readProjectCommits(directory: string, since?: number): Promise<ProjectCommits | undefined> {
  if (!fs.existsSync(directory)) return undefined;
  try {
    return new ProjectCommits(parseWitnessLog(await runGit(directory, witnessLogArgs(MAX_WITNESSED_COMMITS, since))));
  } catch {
    return undefined;
  }
}

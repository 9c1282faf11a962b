/**
 * Pure decisions about grades: how an old record's grade reads, which tracked commit a hash names,
 * and which commit a `/grade` without a hash means.
 */
import type { CommitRecord, GradeEvent, GradeProvenance } from '../types.js';
import { InputError } from '../validation.js';

/** How many characters of a hash the messages show. */
export const SHORT_HASH_LENGTH = 12;

/**
 * The provenance of a communication event. Records from before provenance had `source: 'user'` for the
 * "user grade" the agent relayed through its tool: those read as agent-reported, never as the user's.
 */
export function provenanceOf(event: Pick<GradeEvent, 'source' | 'provenance'>): GradeProvenance {
  if (event.provenance) return event.provenance;
  return event.source === 'agent' ? 'self' : 'agent-reported';
}

/**
 * The one tracked commit `hashOrPrefix` names among `matches` (the tracked commits whose hash starts
 * with it).
 * @throws InputError when no tracked session made such a commit, or the prefix names several.
 */
export function pickTrackedCommit(matches: readonly CommitRecord[], hashOrPrefix: string): CommitRecord {
  const distinct = new Map(matches.map((commit) => [commit.hash, commit]));
  const [first, second] = [...distinct.values()];
  if (!first) {
    throw new InputError(`no tracked session made a commit ${hashOrPrefix} in this project; check the hash with: git log`);
  }
  if (second) {
    throw new InputError(`commit ${hashOrPrefix} is ambiguous (${first.hash.slice(0, SHORT_HASH_LENGTH)}, ${second.hash.slice(0, SHORT_HASH_LENGTH)}, ...); give more of the hash`);
  }
  return first;
}

/** A commit `git revert` made: its subject `Revert "…"`, or its body's "This reverts commit HASH". */
const REVERT_MESSAGE = /^\s*Revert\b|\bThis reverts commit [0-9a-f]{7,64}\b/;

/** Whether a commit undoes another (`git revert`): not the work a `/grade` without a hash means. */
export function isRevertCommit(commit: Pick<CommitRecord, 'message'>): boolean {
  return REVERT_MESSAGE.test(commit.message);
}

/**
 * The most recent commit (by commit time, then hash for a stable answer) the user has not graded
 * yet, reverts left out: a `/grade` right after undoing a change grades the work, not the undo.
 */
export function latestUngradedCommit(commits: Iterable<CommitRecord>, isGraded: (commit: CommitRecord) => boolean): CommitRecord | undefined {
  let latest: CommitRecord | undefined;
  for (const commit of commits) {
    if (isRevertCommit(commit) || isGraded(commit)) continue;
    if (!latest || commit.timestamp > latest.timestamp || (commit.timestamp === latest.timestamp && commit.hash > latest.hash)) latest = commit;
  }
  return latest;
}

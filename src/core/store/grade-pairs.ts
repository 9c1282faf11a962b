/**
 * Commits graded by both the agent and the user, counted commit by commit on the usage record of the
 * setup that made the commit (the record both grades are counted on): how many, and the sums of
 * self − user and of its square. How far a setup grades itself above the user (`report`'s overrating,
 * `recommend`'s correction of self-grades) is measured on these pairs, never guessed from the record's
 * two means (a session whose agent graded four commits and the user one would pair the user's grade
 * with the mean of the four).
 *
 * A pair is counted when its second grade is written, inside the store's write transaction
 * (apply-batch.ts), so two processes grading the same commit (the agent in OpenCode, the user from
 * the CLI) count it once. `recountGradePairs` counts every pair again from the stored grades: for a
 * file from before the counters (schema version 7) and after an import.
 *
 * A self-grade pairs only when it was counted as one: the agent's own grade (provenance `self`, from
 * the retrospective keyed by the commit's maker) of a commit that earned credit.
 */
import type { CounterDeltas, UsageRecord, UserGradeRecord } from '../types.js';
import type { Tables, WritableTables } from './tables.js';
import type { SessionKey } from './mutations.js';

/** The usage record a user grade and its pair are counted on: the commit's session, agent and model. */
export function pairKey(grade: Pick<UserGradeRecord, 'sessionId' | 'agent' | 'model'>): SessionKey {
  return [grade.sessionId, grade.agent, grade.model];
}

/** The counted self-grade the user's grade of a commit pairs with, or undefined when there is none. */
export function pairedSelfGrade(tables: Tables, grade: Pick<UserGradeRecord, 'agent' | 'project' | 'commit'>): number | undefined {
  const retrospective = tables.retrospectives.get([grade.agent, grade.commit]);
  if (retrospective?.provenance !== 'self') return undefined;
  if (tables.commits.get([grade.project, grade.commit])?.noCredit !== undefined) return undefined;
  return retrospective.agent_grade;
}

/**
 * The counters one pair adds: a new pair of `self` and `user`, or (with `replaced`, the user's earlier
 * grade of the same commit) the move from the old pair to the new one, which adds no commit.
 */
export function pairDeltas(self: number, user: number, replaced?: number): CounterDeltas {
  const gap = self - user;
  if (replaced === undefined) return { pairedGradedCommits: 1, pairedGradeGapSum: gap, pairedGradeGapSquares: gap * gap };
  const before = self - replaced;
  return { pairedGradedCommits: 0, pairedGradeGapSum: gap - before, pairedGradeGapSquares: gap * gap - before * before };
}

/** A record's pair counters: the pairs found, or undefined (unset: readers estimate them, counters.ts). */
type PairCounters = { commits: number; gapSum: number; gapSquares: number } | undefined;

const NO_PAIRS = { commits: 0, gapSum: 0, gapSquares: 0 } as const;

/**
 * What a usage record's pair counters should hold, from the user grades and pairs found on record for
 * it; `keep` when what it holds reads the same (readers take an unset sum with a count as 0). A record
 * without a user grade has no pair: unset or 0 reads the same, any other count is unset. A record with
 * user grades holds the pairs found, 0 too (unset, readers would estimate some if it has self-grades),
 * unless it counts user grades the file holds no grade record of (written by hand into an import file,
 * say): then no one can know its pairs, and they are unset.
 */
function recounted(record: UsageRecord, found: (NonNullable<PairCounters> & { userGrades: number }) | undefined): PairCounters | 'keep' {
  if ((record.userGradedCommits ?? 0) === 0) return (record.pairedGradedCommits ?? 0) === 0 ? 'keep' : undefined;
  const pairs = (found?.userGrades ?? 0) === record.userGradedCommits ? (found ?? NO_PAIRS) : undefined;
  const same =
    record.pairedGradedCommits === pairs?.commits && (record.pairedGradeGapSum ?? 0) === (pairs?.gapSum ?? 0) && (record.pairedGradeGapSquares ?? 0) === (pairs?.gapSquares ?? 0);
  return same ? 'keep' : pairs;
}

/**
 * Counts every pair again from the stored user grades and retrospectives and sets each usage record's
 * pair counters to what it found (recounted): a set, not an add, so a second run changes nothing. Only
 * records whose counters change are written. Call inside the store's write transaction.
 */
export function recountGradePairs(tables: WritableTables): void {
  const found = new Map<string, { userGrades: number; commits: number; gapSum: number; gapSquares: number }>();
  for (const { value: grade } of tables.userGrades.getRange()) {
    const id = pairKey(grade).join('\u0000');
    const sum = found.get(id) ?? { userGrades: 0, commits: 0, gapSum: 0, gapSquares: 0 };
    sum.userGrades += 1;
    found.set(id, sum);
    const self = pairedSelfGrade(tables, grade);
    if (self === undefined) continue;
    const gap = self - grade.grade;
    sum.commits += 1;
    sum.gapSum += gap;
    sum.gapSquares += gap * gap;
  }
  // Read first, then write: the range is not walked while its records change.
  const changed: { key: SessionKey; record: UsageRecord; pairs: PairCounters }[] = [];
  for (const { key, value: record } of tables.usage.getRange()) {
    const pairs = recounted(record, found.get(key.join('\u0000')));
    if (pairs !== 'keep') changed.push({ key, record, pairs });
  }
  for (const { key, record, pairs } of changed) {
    record.pairedGradedCommits = pairs?.commits;
    record.pairedGradeGapSum = pairs?.gapSum;
    record.pairedGradeGapSquares = pairs?.gapSquares;
    tables.usage.putSync(key, record);
  }
}

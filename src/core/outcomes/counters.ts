/**
 * Reading a usage record's outcome counters: the grades by provenance and the objective signals.
 * Missing counters read as 0 (records from before they existed hold none).
 */
import type { OutcomeCounters, UsageCounters, UsageSource } from '../types.js';

/** A usage record as grades are read from it: the provenance counters, and the counters from before them. */
export type GradedRecord = OutcomeCounters & Partial<Pick<UsageCounters, 'gradedCommits' | 'gradeSum'>> & { source?: UsageSource };

/** Before provenance, `gradeSum` added the agent's grade and the relayed "user grade" of each commit. */
const LEGACY_GRADES_PER_COMMIT = 2;

/** How many commits got a grade of one provenance, and the sum of those grades. */
export interface GradeTally {
  commits: number;
  sum: number;
}

export interface GradeEvidence {
  user: GradeTally;
  self: GradeTally;
  agentReported: GradeTally;
  paired: GradePairs;
}

/** Whether a record holds grades only in the counters from before provenance (not migrated yet). */
function onlyLegacyGrades(record: GradedRecord): boolean {
  return (
    (record.gradedCommits ?? 0) > 0 &&
    record.userGradedCommits === undefined &&
    record.selfGradedCommits === undefined &&
    record.reportedGradedCommits === undefined
  );
}

/** The commits both the agent (a counted self-grade) and the user graded: how many, and the sum of self − user and of its square over them. */
export interface GradePairs {
  commits: number;
  gapSum: number;
  gapSquares: number;
}

/** No commit graded by both (one object, read only: a report reads it for most records). */
const NO_PAIRS: Readonly<GradePairs> = Object.freeze({ commits: 0, gapSum: 0, gapSquares: 0 });

/**
 * The grades of a record, apart by provenance, and the commits graded by both (counted commit by commit
 * when the second grade was written: src/core/store/grade-pairs.ts). A record with grades only from
 * before provenance (its retrospectives not counted yet) reads them as agent-reported: the mean of both
 * grades per commit.
 */
export function gradeEvidence(record: GradedRecord): GradeEvidence {
  if (onlyLegacyGrades(record)) {
    return {
      user: { commits: 0, sum: 0 },
      self: { commits: 0, sum: 0 },
      agentReported: { commits: record.gradedCommits ?? 0, sum: (record.gradeSum ?? 0) / LEGACY_GRADES_PER_COMMIT },
      paired: NO_PAIRS,
    };
  }
  return {
    user: { commits: record.userGradedCommits ?? 0, sum: record.userGradeSum ?? 0 },
    self: { commits: record.selfGradedCommits ?? 0, sum: record.selfGradeSum ?? 0 },
    agentReported: { commits: record.reportedGradedCommits ?? 0, sum: record.reportedGradeSum ?? 0 },
    paired: gradePairs(record),
  };
}

/**
 * A record's commits graded by both, as counted (grade-pairs.ts). A record without the counters (written
 * before them by hand into an import file, with no grade records to count them from) holds sums, not
 * single grades: it is taken to pair the smaller of its two counts, at its mean self-grade minus its mean
 * user grade, the nearest to "on the same commits" its sums allow.
 */
function gradePairs(record: GradedRecord): GradePairs {
  if (record.pairedGradedCommits !== undefined) {
    return { commits: record.pairedGradedCommits, gapSum: record.pairedGradeGapSum ?? 0, gapSquares: record.pairedGradeGapSquares ?? 0 };
  }
  const user = record.userGradedCommits ?? 0;
  const self = record.selfGradedCommits ?? 0;
  const commits = Math.min(user, self);
  if (commits === 0) return NO_PAIRS;
  const gap = (record.selfGradeSum ?? 0) / self - (record.userGradeSum ?? 0) / user;
  return { commits, gapSum: commits * gap, gapSquares: commits * gap * gap };
}

/**
 * Commits with at least one grade: those the user or the agent graded, each once (the commits both
 * graded are counted as pairs). A relayed grade comes with the agent's own on the same retrospective, so
 * agent-reported grades (records from before provenance) add no commits beyond their own count.
 */
export function gradedCommitCount(record: GradedRecord, grades: GradeEvidence = gradeEvidence(record)): number {
  return Math.max(grades.user.commits + grades.self.commits - grades.paired.commits, grades.agentReported.commits);
}

/** Every grade of a record, whatever its provenance: how many and their sum. */
export function allGrades(record: GradedRecord, grades: GradeEvidence = gradeEvidence(record)): GradeTally {
  return {
    commits: grades.user.commits + grades.self.commits + grades.agentReported.commits,
    sum: grades.user.sum + grades.self.sum + grades.agentReported.sum,
  };
}

/**
 * The turns of a record whose undo could be seen: a live session's. A backfill cannot see a turn the user
 * undid (OpenCode removes its messages), so a backfilled session's turns would all read as kept: they
 * count for its kinds of work, not for how often its work was undone.
 */
export function undoTrials(record: { source?: UsageSource; turns?: number }): number {
  return record.source === 'backfill' ? 0 : (record.turns ?? 0);
}

/** `numerator / denominator`, or null when there is no evidence (0 is a real answer, null is none). */
export function rate(numerator: number, denominator: number): number | null {
  return denominator > 0 ? numerator / denominator : null;
}

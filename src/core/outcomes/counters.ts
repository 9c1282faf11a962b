/**
 * Reading a usage record's outcome counters: the grades by provenance and the objective signals.
 * Missing counters read as 0 (records from before they existed hold none).
 */
import type { OutcomeCounters, UsageCounters } from '../types.js';

/** A usage record as grades are read from it: the provenance counters, and the counters from before them. */
export type GradedRecord = OutcomeCounters & Partial<Pick<UsageCounters, 'gradedCommits' | 'gradeSum'>>;

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

/**
 * The grades of a record, apart by provenance. A record with grades only from before provenance (its
 * retrospectives not counted yet) reads them as agent-reported: the mean of both grades per commit.
 */
/**
 * How far a record's self-grades sit above its user grades on the commits both graded: usage records hold
 * sums, not single grades, so a record counts the smaller of its two counts, at its mean self-grade minus its
 * mean user grade (the nearest to "on the same commits"). `report`'s overrating column and `recommend`'s
 * correction of self-grades both read it. No commits when either graded none.
 */
export function selfOverUser(userCommits: number, userSum: number, selfCommits: number, selfSum: number): { commits: number; gap: number } {
  const commits = Math.min(userCommits, selfCommits);
  return commits > 0 ? { commits, gap: selfSum / selfCommits - userSum / userCommits } : { commits: 0, gap: 0 };
}

export function gradeEvidence(record: GradedRecord): GradeEvidence {
  if (onlyLegacyGrades(record)) {
    return {
      user: { commits: 0, sum: 0 },
      self: { commits: 0, sum: 0 },
      agentReported: { commits: record.gradedCommits ?? 0, sum: (record.gradeSum ?? 0) / LEGACY_GRADES_PER_COMMIT },
    };
  }
  return {
    user: { commits: record.userGradedCommits ?? 0, sum: record.userGradeSum ?? 0 },
    self: { commits: record.selfGradedCommits ?? 0, sum: record.selfGradeSum ?? 0 },
    agentReported: { commits: record.reportedGradedCommits ?? 0, sum: record.reportedGradeSum ?? 0 },
  };
}

/**
 * Commits with at least one grade. A commit gets at most one grade of each provenance, so the largest
 * count is the best lower bound without the per-commit join.
 */
export function gradedCommitCount(record: GradedRecord, grades: GradeEvidence = gradeEvidence(record)): number {
  return Math.max(grades.user.commits, grades.self.commits, grades.agentReported.commits);
}

/** Every grade of a record, whatever its provenance: how many and their sum. */
export function allGrades(record: GradedRecord, grades: GradeEvidence = gradeEvidence(record)): GradeTally {
  return {
    commits: grades.user.commits + grades.self.commits + grades.agentReported.commits,
    sum: grades.user.sum + grades.self.sum + grades.agentReported.sum,
  };
}

/** `numerator / denominator`, or null when there is no evidence (0 is a real answer, null is none). */
export function rate(numerator: number, denominator: number): number | null {
  return denominator > 0 ? numerator / denominator : null;
}

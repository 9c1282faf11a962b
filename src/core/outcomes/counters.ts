/**
 * Reading a usage record's outcome counters: the grades by provenance and the objective signals.
 * Missing counters read as 0 (records from before they existed hold none).
 */
import type { OutcomeCounters } from '../types.js';

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

/** The grades of a record, apart by provenance. */
export function gradeEvidence(record: OutcomeCounters): GradeEvidence {
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
export function gradedCommitCount(record: OutcomeCounters): number {
  const grades = gradeEvidence(record);
  return Math.max(grades.user.commits, grades.self.commits, grades.agentReported.commits);
}

/** Every grade of a record, whatever its provenance: how many and their sum. */
export function allGrades(record: OutcomeCounters): GradeTally {
  const grades = gradeEvidence(record);
  return {
    commits: grades.user.commits + grades.self.commits + grades.agentReported.commits,
    sum: grades.user.sum + grades.self.sum + grades.agentReported.sum,
  };
}

/** `numerator / denominator`, or null when there is no evidence (0 is a real answer, null is none). */
export function rate(numerator: number, denominator: number): number | null {
  return denominator > 0 ? numerator / denominator : null;
}

/**
 * The outcome fields of a report row: grades apart by provenance, and the signals no model can
 * inflate (undone turns, test runs, commits later reverted or fixed). Summed per row, then turned into
 * means and rates; a rate without evidence is null, never 0.
 */
import { gradeEvidence, rate, undoTrials } from '../outcomes/counters.js';
import type { GradedRecord, GradeEvidence } from '../outcomes/counters.js';
import type { OutcomeFields } from '../../contract/answers.js';
export type { OutcomeFields } from '../../contract/answers.js';

/** Running sums behind the outcome fields of one row. */
export interface OutcomeSums {
  user: { commits: number; sum: number };
  self: { commits: number; sum: number };
  /** Commits both graded, and the sum of self minus user grade over them (grade-pairs.ts). */
  paired: { commits: number; sum: number };
  reported: { commits: number; sum: number };
  turns: number;
  undoneTurns: number;
  testRuns: number;
  testPasses: number;
  testRecoveries: number;
  revertedCommits: number;
  followUpFixCommits: number;
  /** Some of the row's work is on a project whose git history was read (or that has a revert or fix counted). */
  gitRead: boolean;
}

export function emptyOutcomeSums(): OutcomeSums {
  return {
    user: { commits: 0, sum: 0 },
    self: { commits: 0, sum: 0 },
    paired: { commits: 0, sum: 0 },
    reported: { commits: 0, sum: 0 },
    turns: 0,
    undoneTurns: 0,
    testRuns: 0,
    testPasses: 0,
    testRecoveries: 0,
    revertedCommits: 0,
    followUpFixCommits: 0,
    gitRead: false,
  };
}

/**
 * Adds one usage record's outcome counters to a row's sums (`grades`: the record's, when already read;
 * `gitRead`: its project's git history was read, so no revert counted means none happened).
 */
export function addOutcomes(sums: OutcomeSums, record: GradedRecord, grades: GradeEvidence = gradeEvidence(record), gitRead = false): void {
  sums.user.commits += grades.user.commits;
  sums.user.sum += grades.user.sum;
  sums.self.commits += grades.self.commits;
  sums.self.sum += grades.self.sum;
  sums.paired.commits += grades.paired.commits;
  sums.paired.sum += grades.paired.gapSum;
  sums.reported.commits += grades.agentReported.commits;
  sums.reported.sum += grades.agentReported.sum;
  sums.turns += undoTrials(record);
  sums.undoneTurns += record.undoneTurns ?? 0;
  sums.testRuns += record.testRuns ?? 0;
  sums.testPasses += record.testPasses ?? 0;
  sums.testRecoveries += record.testRecoveries ?? 0;
  sums.revertedCommits += record.revertedCommits ?? 0;
  sums.followUpFixCommits += record.followUpFixCommits ?? 0;
  if (gitRead || (record.revertedCommits ?? 0) > 0 || (record.followUpFixCommits ?? 0) > 0) sums.gitRead = true;
}

/** The outcome fields of a row from its sums and its commit count. */
export function outcomeFields(sums: OutcomeSums, commits: number): OutcomeFields {
  const meanUserGrade = rate(sums.user.sum, sums.user.commits);
  const meanSelfGrade = rate(sums.self.sum, sums.self.commits);
  return {
    userGradedCommits: sums.user.commits,
    meanUserGrade,
    selfGradedCommits: sums.self.commits,
    meanSelfGrade,
    selfUserGap: rate(sums.paired.sum, sums.paired.commits),
    agentReportedGradedCommits: sums.reported.commits,
    meanAgentReportedGrade: rate(sums.reported.sum, sums.reported.commits),
    // Without git evidence a revert rate of 0 would claim what nobody looked at.
    revertRate: sums.gitRead ? rate(sums.revertedCommits, commits) : null,
    followUpFixRate: sums.gitRead ? rate(sums.followUpFixCommits, commits) : null,
    undoRate: rate(sums.undoneTurns, sums.turns),
    testRuns: sums.testRuns,
    testPassRate: rate(sums.testPasses, sums.testRuns),
    testRecoveries: sums.testRecoveries,
  };
}

/** Field names in output order (JSON and CSV). */
export const OUTCOME_FIELDS = [
  'userGradedCommits',
  'meanUserGrade',
  'selfGradedCommits',
  'meanSelfGrade',
  'selfUserGap',
  'agentReportedGradedCommits',
  'meanAgentReportedGrade',
  'revertRate',
  'followUpFixRate',
  'undoRate',
  'testRuns',
  'testPassRate',
  'testRecoveries',
] as const satisfies readonly (keyof OutcomeFields)[];

/** Outcome fields of the report: grades apart by provenance, the self-user gap, signal rates (table-driven). */
import { describe, expect, it } from '@jest/globals';
import { allGrades, gradedCommitCount, gradeEvidence, rate } from '../../src/core/outcomes/counters.js';
import { addOutcomes, emptyOutcomeSums, OUTCOME_FIELDS, outcomeFields } from '../../src/core/report/outcome-columns.js';
import { REPORT_FIELDS } from '../../src/core/report/table.js';

describe('grades of a usage record', () => {
  it.each([
    ['new counters', { userGradedCommits: 2, userGradeSum: 7, selfGradedCommits: 3, selfGradeSum: 15, reportedGradedCommits: 1, reportedGradeSum: -1 },
      { user: { commits: 2, sum: 7 }, self: { commits: 3, sum: 15 }, agentReported: { commits: 1, sum: -1 } }, 3, { commits: 6, sum: 21 }],
    ['nothing', {}, { user: { commits: 0, sum: 0 }, self: { commits: 0, sum: 0 }, agentReported: { commits: 0, sum: 0 } }, 0, { commits: 0, sum: 0 }],
    ['only grades from before provenance', { gradedCommits: 2, gradeSum: 14 },
      { user: { commits: 0, sum: 0 }, self: { commits: 0, sum: 0 }, agentReported: { commits: 2, sum: 7 } }, 2, { commits: 2, sum: 7 }],
    ['old counters beside migrated ones', { gradedCommits: 2, gradeSum: 14, selfGradedCommits: 2, selfGradeSum: 10, reportedGradedCommits: 2, reportedGradeSum: 4 },
      { user: { commits: 0, sum: 0 }, self: { commits: 2, sum: 10 }, agentReported: { commits: 2, sum: 4 } }, 2, { commits: 4, sum: 14 }],
    ['old counters beside a user grade', { gradedCommits: 1, gradeSum: 4, userGradedCommits: 1, userGradeSum: 5 },
      { user: { commits: 1, sum: 5 }, self: { commits: 0, sum: 0 }, agentReported: { commits: 0, sum: 0 } }, 1, { commits: 1, sum: 5 }],
    ['old counters beside a self-grade only', { gradedCommits: 1, gradeSum: 4, selfGradedCommits: 1, selfGradeSum: 3 },
      { user: { commits: 0, sum: 0 }, self: { commits: 1, sum: 3 }, agentReported: { commits: 0, sum: 0 } }, 1, { commits: 1, sum: 3 }],
    ['old counters beside an agent-reported grade only', { gradedCommits: 1, gradeSum: 4, reportedGradedCommits: 1, reportedGradeSum: 2 },
      { user: { commits: 0, sum: 0 }, self: { commits: 0, sum: 0 }, agentReported: { commits: 1, sum: 2 } }, 1, { commits: 1, sum: 2 }],
    ['old counters of two commits beside one agent-reported grade', { gradedCommits: 2, gradeSum: 10, reportedGradedCommits: 1, reportedGradeSum: 3 },
      { user: { commits: 0, sum: 0 }, self: { commits: 0, sum: 0 }, agentReported: { commits: 1, sum: 3 } }, 1, { commits: 1, sum: 3 }],
    ['zero old counters', { gradedCommits: 0, gradeSum: 0 }, { user: { commits: 0, sum: 0 }, self: { commits: 0, sum: 0 }, agentReported: { commits: 0, sum: 0 } }, 0, { commits: 0, sum: 0 }],
  ])('%s', (_name, record, evidence, graded, all) => {
    expect(gradeEvidence(record)).toMatchObject(evidence);
    expect(gradedCommitCount(record)).toBe(graded);
    expect(allGrades(record)).toEqual(all);
  });
  const graded = { userGradedCommits: 2, userGradeSum: 7, selfGradedCommits: 3, selfGradeSum: 15 };
  it.each([
    ['counted: one commit both graded', { ...graded, pairedGradedCommits: 1, pairedGradeGapSum: 2, pairedGradeGapSquares: 4 }, { commits: 1, gapSum: 2, gapSquares: 4 }, 2 + 3 - 1],
    ['counted: none both graded', { ...graded, pairedGradedCommits: 0, pairedGradeGapSum: 0, pairedGradeGapSquares: 0 }, { commits: 0, gapSum: 0, gapSquares: 0 }, 2 + 3],
    // Not counted (written by hand into an import file): the smaller count, at 15/3 - 7/2 = 1.5 each.
    ['not counted: estimated from the two means', graded, { commits: 2, gapSum: 2 * 1.5, gapSquares: 2 * 1.5 * 1.5 }, 3],
    ['not counted, and no self-grade: none', { userGradedCommits: 2, userGradeSum: 7 }, { commits: 0, gapSum: 0, gapSquares: 0 }, 2],
    ['only grades from before provenance: none', { gradedCommits: 2, gradeSum: 14 }, { commits: 0, gapSum: 0, gapSquares: 0 }, 2],
  ])('commits graded by both, %s', (_name, record, paired, gradedCommits) => {
    expect(gradeEvidence(record).paired).toEqual(paired);
    expect(gradedCommitCount(record)).toBe(gradedCommits);
  });
  it.each([
    [1, 4, 0.25],
    [0, 4, 0],
    [3, 0, null],
    [0, 0, null],
    [-2, 4, -0.5],
  ])('rate(%d, %d) is %p', (numerator, denominator, want) => {
    expect(rate(numerator, denominator)).toBe(want);
  });
});

describe('outcome fields of a report row', () => {
  it('sums records and turns them into means, the gap and rates', () => {
    const sums = emptyOutcomeSums();
    addOutcomes(sums, { userGradedCommits: 2, userGradeSum: 3, selfGradedCommits: 2, selfGradeSum: 10, turns: 8, undoneTurns: 1, testRuns: 4, testPasses: 3, testRecoveries: 1, revertedCommits: 1 });
    addOutcomes(sums, { selfGradedCommits: 2, selfGradeSum: 6, reportedGradedCommits: 4, reportedGradeSum: 8, turns: 2, undoneTurns: 1, testRuns: 1, testPasses: 1, followUpFixCommits: 2 });
    expect(outcomeFields(sums, 10)).toEqual({
      userGradedCommits: 2,
      meanUserGrade: 1.5,
      selfGradedCommits: 4,
      meanSelfGrade: 4,
      // On the commits both graded: the first record's 10/2 - 3/2; the second's self-grades have no user grade beside them.
      selfUserGap: 3.5,
      agentReportedGradedCommits: 4,
      meanAgentReportedGrade: 2,
      revertRate: 0.1,
      followUpFixRate: 0.2,
      undoRate: 0.2,
      testRuns: 5,
      testPassRate: 0.8,
      testRecoveries: 1,
    });
  });
  it('says null, not 0, where there is no evidence, and a negative gap when the setup underrates itself', () => {
    const none = outcomeFields(emptyOutcomeSums(), 0);
    expect(none).toMatchObject({ meanUserGrade: null, meanSelfGrade: null, selfUserGap: null, meanAgentReportedGrade: null, revertRate: null, followUpFixRate: null, undoRate: null, testPassRate: null });
    const sums = emptyOutcomeSums();
    addOutcomes(sums, { userGradedCommits: 1, userGradeSum: 5, selfGradedCommits: 1, selfGradeSum: -1 });
    // No git history read for its project: no revert counted says nothing.
    expect(outcomeFields(sums, 1)).toMatchObject({ selfUserGap: -6, revertRate: null, followUpFixRate: null });
    const read = emptyOutcomeSums();
    addOutcomes(read, { userGradedCommits: 1, userGradeSum: 5 }, undefined, true);
    expect(outcomeFields(read, 1)).toMatchObject({ revertRate: 0, followUpFixRate: 0 });
    const selfOnly = emptyOutcomeSums();
    addOutcomes(selfOnly, { selfGradedCommits: 1, selfGradeSum: 5 });
    expect(outcomeFields(selfOnly, 1).selfUserGap).toBeNull();
    const userOnly = emptyOutcomeSums();
    addOutcomes(userOnly, { userGradedCommits: 1, userGradeSum: 5 });
    expect(outcomeFields(userOnly, 1).selfUserGap).toBeNull();
  });
  it('measures overrating only on commits both graded, as recommend does: a self-grade in one session and a user grade in another are no pair', () => {
    // Session one: the agent graded its commit 2, the user did not grade it. Session two: the user graded its commit -1.
    const apart = emptyOutcomeSums();
    addOutcomes(apart, { selfGradedCommits: 1, selfGradeSum: 2 });
    addOutcomes(apart, { userGradedCommits: 1, userGradeSum: -1 });
    expect(outcomeFields(apart, 2)).toMatchObject({ meanSelfGrade: 2, meanUserGrade: -1, selfUserGap: null });
    // Weighted by the commits both graded: 1 commit at 2 - 5, 3 commits at 4 - 1.
    const weighted = emptyOutcomeSums();
    addOutcomes(weighted, { userGradedCommits: 1, userGradeSum: 5, selfGradedCommits: 1, selfGradeSum: 2 });
    addOutcomes(weighted, { userGradedCommits: 3, userGradeSum: 3, selfGradedCommits: 4, selfGradeSum: 16 });
    expect(outcomeFields(weighted, 5).selfUserGap).toBeCloseTo((1 * (2 - 5) + 3 * (4 - 1)) / 4, 10);
  });
  it("reads the undo rate from live sessions' turns only: a backfill cannot see an undone turn", () => {
    const sums = emptyOutcomeSums();
    addOutcomes(sums, { turns: 4, undoneTurns: 1, source: 'live' });
    addOutcomes(sums, { turns: 6, undoneTurns: 0, source: 'backfill' });
    addOutcomes(sums, { turns: 2, undoneTurns: 1 });
    // Live (and records from before sources were told apart): 2 undone of 4 + 2 turns; the backfilled 6 left out.
    expect(outcomeFields(sums, 0).undoRate).toBeCloseTo(2 / 6, 10);
    const backfilledOnly = emptyOutcomeSums();
    addOutcomes(backfilledOnly, { turns: 6, source: 'backfill' });
    expect(outcomeFields(backfilledOnly, 0).undoRate).toBeNull();
  });

  it('carries every outcome field into --json and --csv', () => {
    for (const field of OUTCOME_FIELDS) expect(REPORT_FIELDS).toContain(field);
  });
});

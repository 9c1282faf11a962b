/**
 * Self-grades corrected kind by kind: grades stop at 5, so setups overclaim less on easy work (docs,
 * both grade near the top) than on hard bug fixes. Each kind's correction is the setup's plus how far
 * the role's setups overclaim more or less on that kind. Expected values worked out by hand.
 */
import { describe, expect, it } from '@jest/globals';
import { KIND_OVERCLAIM_CREDIBILITY, kindOverclaimShift, sumSelfGrades } from '../../src/core/report/recommend-overclaim.js';
import { addRecord, emptyTally } from '../../src/core/report/recommend-signals.js';
import type { Tally } from '../../src/core/report/recommend-signals.js';
import { usageRecord } from '../helpers/usage-record.js';

/** `records` records of 2 commits graded by both: the user `user` each, the setup `self` each. */
function paired(records: number, user: number, self: number): Tally {
  const tally = emptyTally();
  for (let i = 0; i < records; i += 1) {
    addRecord(tally, usageRecord({ agent: 'build', model: 'm', commits: 2, userGradedCommits: 2, userGradeSum: 2 * user, selfGradedCommits: 2, selfGradeSum: 2 * self }), 1);
  }
  return tally;
}

describe("a kind's overclaim against the role's", () => {
  it('moves the correction by how much less the setups overclaim on that kind, shrunk by its pairs', () => {
    // Docs: 15 records, self 5 against user 5: 30 pairs, 0 over. The role overclaims by 0.5.
    // Shift: (0 + 30 × 0.5) / (30 + 30) − 0.5 = −0.25 (half of the gap: as many pairs as the prior's).
    const docs = paired(15, 5, 5);
    expect(KIND_OVERCLAIM_CREDIBILITY).toBe(30);
    expect(kindOverclaimShift(docs, 0.5)).toBeCloseTo((0 + 30 * 0.5) / (30 + 30) - 0.5, 12);
    expect(kindOverclaimShift(docs, 0.5)).toBeCloseTo(-0.25, 12);
    // Bug fixes: 5 records, self 4 against user 3: 10 pairs, 1 over each: (10 + 15) / 40 − 0.5 = +0.125.
    expect(kindOverclaimShift(paired(5, 3, 4), 0.5)).toBeCloseTo(0.125, 12);
  });

  it('is nothing for a kind without pairs, or in a role where nobody graded the same commits', () => {
    expect(kindOverclaimShift(emptyTally(), 0.5)).toBe(0);
    expect(kindOverclaimShift(paired(4, 3, 5), null)).toBe(0);
  });

  it("is nothing for a kind that overclaims as the role does", () => {
    expect(kindOverclaimShift(paired(10, 3, 4), 1)).toBeCloseTo(0, 12);
  });
});

describe('self-grades summed over kinds', () => {
  it("replace the tally's self-grades with the kinds' corrected ones, the rest kept", () => {
    const whole = paired(3, 3, 4);
    const kinds = new Map<string, Tally>([
      ['docs', { ...emptyTally(), selfGraded: 2, selfGradeSum: 9 }],
      ['bug fix', { ...emptyTally(), selfGraded: 1.5, selfGradeSum: 4 }],
    ]);
    const summed = sumSelfGrades(whole, kinds);
    expect(summed.selfGraded).toBe(3.5);
    expect(summed.selfGradeSum).toBe(13);
    expect(summed.userGraded).toBe(6);
    expect(summed.userGradeSum).toBe(18);
    expect(summed.pairedGraded).toBe(whole.pairedGraded);
  });

  it('are none without kinds', () => {
    expect(sumSelfGrades(paired(3, 3, 4), new Map())).toMatchObject({ selfGraded: 0, selfGradeSum: 0 });
  });
});

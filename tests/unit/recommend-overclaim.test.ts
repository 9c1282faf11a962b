/** Self-grade calibration: the overclaim figure and the correction, with expected values worked out by hand. */
import { describe, expect, it } from '@jest/globals';
import { correctSelfGrades, MIN_OVERCLAIM_PAIRS, OVERCLAIM_CREDIBILITY, overclaimOf, shrunkOverclaim } from '../../src/core/report/recommend-overclaim.js';
import { addRecord, emptyTally } from '../../src/core/report/recommend-signals.js';
import type { Tally } from '../../src/core/report/recommend-signals.js';
import { usageRecord } from '../helpers/usage-record.js';

/** A tally of `records` identical records with the given grades. */
function tallyOf(records: number, grades: { user: [number, number]; self: [number, number] }): Tally {
  const tally = emptyTally();
  for (let i = 0; i < records; i += 1) {
    addRecord(tally, usageRecord({ agent: 'build', model: 'm', commits: 4, userGradedCommits: grades.user[0], userGradeSum: grades.user[1], selfGradedCommits: grades.self[0], selfGradeSum: grades.self[1] }), 1);
  }
  return tally;
}

describe('overclaim', () => {
  it('is the self-grade minus the user grade on commits both graded, shrunk toward the role', () => {
    // 10 records, each 2 commits graded by both: self 5 + 5, user 3 + 3 -> 2 points over, 20 pairs.
    const inflater = tallyOf(10, { user: [2, 6], self: [2, 10] });
    const honest = tallyOf(10, { user: [2, 6], self: [2, 6] });
    const pool = emptyTally();
    for (const t of [inflater, honest]) for (const key of Object.keys(pool) as (keyof Tally)[]) pool[key] += t[key];
    // The role overclaims by 1 on average (40 pairs); the inflater's own 2 over 20 pairs, shrunk by the prior's pairs.
    const expected = (20 * 2 + OVERCLAIM_CREDIBILITY * 1) / (20 + OVERCLAIM_CREDIBILITY);
    expect(shrunkOverclaim(inflater, pool)).toBeCloseTo(expected, 10);
    const shown = overclaimOf(inflater, pool, 20);
    expect(shown?.mean).toBe(Math.round(expected * 10) / 10);
    expect(shown?.commits).toBe(20);
    expect(shown && shown.interval[0] < shown.mean && shown.mean < shown.interval[1]).toBe(true);
  });

  it('is unknown when nobody in the role has a commit graded by both, and then self-grades are dropped', () => {
    const selfOnly = tallyOf(5, { user: [0, 0], self: [3, 15] });
    expect(overclaimOf(selfOnly, selfOnly, 0)).toBeNull();
    expect(shrunkOverclaim(selfOnly, selfOnly)).toBeNull();
    expect(correctSelfGrades(selfOnly, null)).toMatchObject({ selfGraded: 0, selfGradeSum: 0 });
  });

  it(`is not used below ${MIN_OVERCLAIM_PAIRS} pairs of the setup's own`, () => {
    const few = tallyOf(MIN_OVERCLAIM_PAIRS - 1, { user: [1, 2], self: [1, 5] });
    const pool = tallyOf(20, { user: [1, 2], self: [1, 2] });
    expect(shrunkOverclaim(few, pool)).toBeNull();
    expect(shrunkOverclaim(tallyOf(MIN_OVERCLAIM_PAIRS, { user: [1, 2], self: [1, 5] }), pool)).not.toBeNull();
  });
});

describe('corrected self-grades', () => {
  it('take the overclaim off the mean and count only commits the user did not grade', () => {
    // 10 records: 4 self-graded commits summing 20 (all 5s), 1 of them also user-graded.
    const tally = tallyOf(10, { user: [1, 3], self: [4, 20] });
    const corrected = correctSelfGrades(tally, 2);
    // Mean 5 - 2 = 3, on 40 - 10 = 30 unpaired commits.
    expect(corrected.selfGraded).toBe(30);
    expect(corrected.selfGradeSum).toBeCloseTo(90, 10);
    // Nothing else changes.
    expect({ ...corrected, selfGraded: tally.selfGraded, selfGradeSum: tally.selfGradeSum }).toEqual(tally);
  });

  it('keep the corrected mean on the grade scale', () => {
    expect(correctSelfGrades(tallyOf(2, { user: [0, 0], self: [2, -2] }), 3).selfGradeSum).toBe(-4);
    expect(correctSelfGrades(tallyOf(2, { user: [0, 0], self: [2, 10] }), -3).selfGradeSum).toBe(20);
  });
});

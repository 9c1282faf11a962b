/** Self-grade calibration: the overclaim figure and the correction, with expected values worked out by hand. */
import { describe, expect, it } from '@jest/globals';
import {
  agreedOverclaim,
  agreementCredibility,
  correctSelfGrades,
  MAX_AGREEMENT_CREDIBILITY,
  MIN_OVERCLAIM_PAIRS,
  OVERCLAIM_CREDIBILITY,
  overclaimOf,
  selfGradeInformation,
  selfGradeTrust,
  trustSelfGrades,
} from '../../src/core/report/recommend-overclaim.js';
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
  it('is the self-grade minus the user grade on the setup\'s own commits both graded, not the role\'s', () => {
    // 10 records, each 2 commits graded by both: self 3 + 3, user 3 + 3 -> 0 over, 20 pairs.
    const honest = tallyOf(10, { user: [2, 6], self: [2, 6] });
    // Self 5 + 5, user 3 + 3 -> 2 points over, 20 pairs. The role overclaims by 1; the honest one is shown at its own 0.
    const inflater = tallyOf(10, { user: [2, 6], self: [2, 10] });
    expect(overclaimOf(honest)).toMatchObject({ mean: 0, commits: 20, correction: null });
    expect(overclaimOf(inflater, 1.5)).toMatchObject({ mean: 2, commits: 20, correction: 1.5 });
    const shown = overclaimOf(honest);
    expect(shown && shown.interval[0] < shown.mean && shown.mean < shown.interval[1]).toBe(true);
  });

  it('of a setup whose two commits match the user\'s grades exactly is 0, whatever the role does', () => {
    // One record of 2 commits self-graded 5 + 5 and user-graded 5 + 5: 0 over on both pairs.
    const matched = tallyOf(1, { user: [2, 10], self: [2, 10] });
    const shown = overclaimOf(matched);
    expect(shown?.mean).toBe(0);
    expect(shown && shown.interval[0] <= 0 && shown.interval[1] >= 0).toBe(true);
  });

  it('is the inflater\'s own measured overclaim, and its corrected self-grades read what the user gave it', () => {
    // 10 records of 4 commits all self-graded 5, 2 of them graded 3 by the user: 2 points over, 20 pairs.
    const inflater = tallyOf(10, { user: [2, 6], self: [4, 20] });
    expect(overclaimOf(inflater)?.mean).toBe(2);
    // Corrected by it, its self-grades on the 20 commits the user did not grade read 5 - 2 = 3: what the user gave it, not more.
    const corrected = correctSelfGrades(inflater, 2);
    expect(corrected.selfGraded).toBe(20);
    expect(corrected.selfGradeSum).toBe(60);
  });

  it('is unknown when nobody in the role has a commit graded by both, and then self-grades are dropped', () => {
    const selfOnly = tallyOf(5, { user: [0, 0], self: [3, 15] });
    expect(overclaimOf(selfOnly)).toBeNull();
    expect(agreedOverclaim(selfOnly, selfOnly, OVERCLAIM_CREDIBILITY)).toBeNull();
    expect(correctSelfGrades(selfOnly, null)).toMatchObject({ selfGraded: 0, selfGradeSum: 0 });
  });

  it(`is not used below ${MIN_OVERCLAIM_PAIRS} pairs of the setup's own`, () => {
    const few = tallyOf(MIN_OVERCLAIM_PAIRS - 1, { user: [1, 2], self: [1, 5] });
    const pool = tallyOf(20, { user: [1, 2], self: [1, 2] });
    expect(agreedOverclaim(few, pool, OVERCLAIM_CREDIBILITY)).toBeNull();
    expect(agreedOverclaim(tallyOf(MIN_OVERCLAIM_PAIRS, { user: [1, 2], self: [1, 5] }), pool, OVERCLAIM_CREDIBILITY)).not.toBeNull();
  });
});

describe('what self-grades can say', () => {
  // Per record: 2 commits self-graded; records alternate between the two sums given.
  const alternating = (sums: [number, number]) => {
    const tally = emptyTally();
    for (let i = 0; i < 10; i += 1) {
      addRecord(tally, usageRecord({ agent: 'build', model: 'm', commits: 2, selfGradedCommits: 2, selfGradeSum: sums[i % 2] ?? 0 }), 1);
    }
    return tally;
  };

  it('is nothing from a setup that grades itself the same on every record, all from one that varies as the role', () => {
    const always5 = alternating([10, 10]);
    // Record means 2 and 5: spread (4 + 25) / 2 - 3.5² = 2.25.
    const varies = alternating([4, 10]);
    // Record means 3 and 4: spread (9 + 16) / 2 - 3.5² = 0.25.
    const steadier = alternating([6, 8]);
    const pool = emptyTally();
    for (const t of [always5, varies]) for (const key of Object.keys(pool) as (keyof Tally)[]) pool[key] += t[key];
    // The pool's record means: 5 (×10), 2 (×5), 5 (×5): mean 4.25, squares (25 × 15 + 4 × 5) / 20 = 19.75 → spread 1.6875.
    expect(selfGradeInformation(always5, pool)).toBe(0);
    expect(selfGradeInformation(varies, pool)).toBe(1);
    expect(selfGradeInformation(steadier, pool)).toBeCloseTo(0.25 / 1.6875, 10);
    expect(selfGradeInformation(varies, always5)).toBe(0);
  });

  it('scales the corrected self-grades counted', () => {
    const tally = tallyOf(10, { user: [1, 3], self: [4, 20] });
    // 30 unpaired commits at a corrected 3, counted a quarter.
    expect(correctSelfGrades(tally, 2, 0.25).selfGraded).toBeCloseTo(7.5, 10);
    expect(correctSelfGrades(tally, 2, 0.25).selfGradeSum).toBeCloseTo(22.5, 10);
  });
});

describe('the overclaim shown', () => {
  const Z_80 = 1.2815515655446004;
  const round1 = (value: number) => Math.round(value * 10) / 10;

  it('is absent for a setup with no commit graded by both', () => {
    expect(overclaimOf(emptyTally())).toBeNull();
    expect(overclaimOf(tallyOf(3, { user: [1, 3], self: [0, 0] }), 1)).toBeNull();
  });

  it('has an interval from the spread of its own pairs', () => {
    // 10 records: 5 with self 5 + 5 against user 3 + 3 (2 over), 5 with self 3 + 3 against 3 + 3 (0 over):
    // 20 pairs, mean 1, spread (10 × 4 + 10 × 0) / 20 - 1 = 1, so the half-width is Z_80 × √(1 / 20).
    const setup = emptyTally();
    for (const t of [tallyOf(5, { user: [2, 6], self: [2, 10] }), tallyOf(5, { user: [2, 6], self: [2, 6] })]) for (const key of Object.keys(setup) as (keyof Tally)[]) setup[key] += t[key];
    const half = Z_80 * Math.sqrt(1 / 20);
    expect(overclaimOf(setup)?.interval).toEqual([round1(1 - half), round1(1 + half)]);
  });

  it('keeps the interval at least a half-point spread wide when every pair agrees', () => {
    // 20 pairs all exactly 1 over: no spread of its own, so 0.25 (a half point squared) is used.
    const half = Z_80 * Math.sqrt(0.25 / 20);
    expect(overclaimOf(tallyOf(10, { user: [2, 6], self: [2, 8] }))?.interval).toEqual([round1(1 - half), round1(1 + half)]);
  });

  it('assumes a 1.5-point spread for a single pair', () => {
    // One record, one commit graded by both: self 4, user 3 → 1 over, no spread of its own to measure.
    const half = Z_80 * 1.5;
    expect(overclaimOf(tallyOf(1, { user: [1, 3], self: [1, 4] }))).toEqual({ mean: 1, interval: [round1(1 - half), round1(1 + half)], commits: 1, correction: null });
  });
});

describe('corrected self-grades', () => {
  it('are none, not NaN, for a setup that never graded itself', () => {
    const none = tallyOf(3, { user: [1, 3], self: [0, 0] });
    expect(correctSelfGrades(none, 1)).toMatchObject({ selfGraded: 0, selfGradeSum: 0 });
    expect(selfGradeInformation(none, tallyOf(3, { user: [1, 3], self: [2, 6] }))).toBe(0);
  });

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

/** A tally of records of one commit each, graded by both: [user grade, self-grade] per record. */
function pairedTally(pairs: readonly [number, number][]): Tally {
  const tally = emptyTally();
  for (const [user, self] of pairs) {
    addRecord(tally, usageRecord({ agent: 'build', model: 'm', commits: 1, userGradedCommits: 1, userGradeSum: user, selfGradedCommits: 1, selfGradeSum: self }), 1);
  }
  return tally;
}
const repeat = <T,>(times: number, item: T): T[] => Array.from({ length: times }, () => item);

describe('self-grades trusted as far as the setups agree with the user', () => {
  it('share the role\'s correction outright when every setup overclaims alike', () => {
    // Both over by +1 on half their commits and 0 on the other half: the same overclaim, 0.5.
    const a = pairedTally([...repeat(5, [3, 4] as [number, number]), ...repeat(5, [5, 5] as [number, number])]);
    const b = pairedTally([...repeat(5, [2, 3] as [number, number]), ...repeat(5, [4, 4] as [number, number])]);
    expect(agreementCredibility([a, b])).toBe(MAX_AGREEMENT_CREDIBILITY);
    expect(selfGradeTrust(a, MAX_AGREEMENT_CREDIBILITY)).toBeCloseTo(1000 / 1010, 10);
  });

  it('are each corrected mostly by their own when the setups overclaim unevenly', () => {
    // A: over by +1 and -1 (mean 0); B: over by +3 and +1 (mean 2); 10 pairs each.
    const a = pairedTally([...repeat(5, [3, 4] as [number, number]), ...repeat(5, [3, 2] as [number, number])]);
    const b = pairedTally([...repeat(5, [2, 5] as [number, number]), ...repeat(5, [4, 5] as [number, number])]);
    // Within: 20 squared deviations of 1 over 20 - 2 degrees, 10/9. Between: 10 × 1² + 10 × 1² = 20
    // around the mean 1; τ² = (20 - 10/9) / (20 - 200/20). Credibility σ² / τ² = 100/170 pairs.
    expect(agreementCredibility([a, b])).toBeCloseTo(100 / 170, 10);
    const pool = emptyTally();
    for (const t of [a, b]) for (const key of Object.keys(pool) as (keyof Tally)[]) pool[key] += t[key];
    // B's overclaim: (10 × 2 + 100/170 × 1) / (10 + 100/170), close to its own 2.
    expect(agreedOverclaim(b, pool, 100 / 170)).toBeCloseTo((20 + 100 / 170) / (10 + 100 / 170), 10);
  });

  it(`fall back to ${OVERCLAIM_CREDIBILITY} pairs of the role's when fewer than two setups can be measured`, () => {
    const a = pairedTally(repeat(10, [3, 4] as [number, number]));
    const thin = pairedTally(repeat(MIN_OVERCLAIM_PAIRS - 1, [3, 5] as [number, number]));
    expect(agreementCredibility([a, thin])).toBe(OVERCLAIM_CREDIBILITY);
  });

  it('move the trusted part of the corrected self-grades into the user\'s grades', () => {
    const corrected = { ...emptyTally(), userGraded: 4, userGradeSum: 12, selfGraded: 8, selfGradeSum: 24 };
    const trusted = trustSelfGrades(corrected, 0.25);
    expect([trusted.userGraded, trusted.userGradeSum, trusted.selfGraded, trusted.selfGradeSum]).toEqual([6, 18, 6, 18]);
  });

  it('give nothing to a setup that grades itself 5 on every commit, however much it is trusted', () => {
    // Graded 5 by itself on all 4 commits of each record, 3 by the user on 2 of them.
    const inflater = tallyOf(10, { user: [2, 6], self: [4, 20] });
    const varied = pairedTally([...repeat(5, [2, 2] as [number, number]), ...repeat(5, [5, 5] as [number, number])]);
    const pool = emptyTally();
    for (const t of [inflater, varied]) for (const key of Object.keys(pool) as (keyof Tally)[]) pool[key] += t[key];
    const corrected = correctSelfGrades(inflater, agreedOverclaim(inflater, pool, MAX_AGREEMENT_CREDIBILITY), selfGradeInformation(inflater, pool));
    const trusted = trustSelfGrades(corrected, selfGradeTrust(inflater, MAX_AGREEMENT_CREDIBILITY));
    expect(trusted.userGraded).toBe(20);
    expect(trusted.userGradeSum).toBe(60);
  });
});

/**
 * How hard a kind of task is, read from every grade of it: the user's, and the setups' own once each
 * setup's overclaim is taken off. Self-grades cover most commits and the user's only a few, so the
 * difficulty behind the user-grade signal's like-with-like adjustment is far less left to chance.
 * Expected values are worked out by hand in the comments, never with the code under test.
 */
import { describe, expect, it } from '@jest/globals';
import { fitKindEffects, mixShift } from '../../src/core/report/recommend-kinds.js';
import type { Stratum } from '../../src/core/report/recommend-kinds.js';
import { emptyTally } from '../../src/core/report/recommend-signals.js';
import type { Tally } from '../../src/core/report/recommend-signals.js';

/** A grade g is (g + 1) / 6 of a good outcome (grades run -1..5). */
const share = (grade: number) => (grade + 1) / 6;

/** `user` commits the user graded `grade` each, and `self` more the setup graded (already corrected) at `selfGrade`. */
function grades(user: number, grade: number, self: number, selfGrade: number): Tally {
  return { ...emptyTally(), commits: user + self, userGraded: user, userGradeSum: user * grade, selfGraded: self, selfGradeSum: self * selfGrade };
}

describe('how hard a kind of task is, in the user-grade signal', () => {
  // m/strong did bug fixes and docs; m/docs only docs. The user graded only docs (4 each). The
  // setups' own grades (corrected) put bug fixes a whole grade below docs: 3 against 4.
  const strong = new Map<Stratum, Tally>([['bug fix', grades(0, 0, 40, 3)], ['docs', grades(10, 4, 30, 4)]]);
  const docs = new Map<Stratum, Tally>([['docs', grades(10, 4, 30, 4)]]);
  const mix = new Map<Stratum, number>([['bug fix', 0.5], ['docs', 0.5]]);

  it('reads bug fixes a grade harder than docs from the setups\' own grades when the user graded none', () => {
    const effects = fitKindEffects([strong, docs], mix).userGrade;
    // One grade on the 0..1 share scale: 1/6. Priors of a trial or less against 40 grades: within 0.01.
    const gap = (effects?.byKind.get('bug fix') ?? 0) - (effects?.byKind.get('docs') ?? 0);
    expect(gap).toBeLessThan(-(1 / 6) + 0.01);
    expect(gap).toBeGreaterThan(-(1 / 6) - 0.01);
    // Read from the user's grades alone, bug fixes would have no user grade to say anything: a gap of 0.
  });

  it('reads a setup whose user grades are all on docs half a grade lower on a half-bug-fix mix', () => {
    const difficulty = fitKindEffects([strong, docs], mix);
    // m/strong's user grades are all docs, so read on the half-and-half mix its share falls by half
    // the gap between docs and bug fixes: 0.5 × 1/6 = 1/12; m/docs's likewise.
    const shift = mixShift(strong, difficulty, 0).userGrade?.amount ?? 0;
    expect(shift).toBeLessThan(-(1 / 12) + 0.01);
    expect(shift).toBeGreaterThan(-(1 / 12) - 0.01);
    expect(mixShift(docs, difficulty, 1).userGrade?.amount).toBeCloseTo(shift, 10);
    // So both read share(4) - 1/12 = share(3.5): the mix's grade, half bug fixes at 3, half docs at 4.
    expect(share(4) + shift).toBeCloseTo(share(3.5), 1);
  });
});

/** The pieces of a setup's score: probability helpers, grade provenance, tallies, signals, posteriors, the one-line why. */
import { describe, expect, it } from '@jest/globals';
import { erf, invert, multiply, normalCdf, probabilityLargest, quadraticForm, Z_80 } from '../../src/core/report/recommend-math.js';
import {
  acceptedCommits,
  addRecord,
  addTally,
  emptyTally,
  gradesByProvenance,
  pooledShare,
  posterior,
  SIGNAL_CREDIBILITY,
  SIGNAL_WEIGHTS,
  SIGNALS,
} from '../../src/core/report/recommend-signals.js';
import type { SignalEstimate, SignalName, Tally } from '../../src/core/report/recommend-signals.js';
import { describeSignal, explainScore, WHY_SIGNALS } from '../../src/core/report/recommend-why.js';
import { usageRecord } from '../helpers/usage-record.js';

describe('probability helpers', () => {
  it('inverts a symmetric matrix: 2×2 by the adjugate, and one with a zero off the diagonal (a row left as it is)', () => {
    // [[2, 1], [1, 3]]⁻¹ = [[3, -1], [-1, 2]] / (2·3 − 1·1).
    const two = invert([[2, 1], [1, 3]]);
    [[3 / 5, -1 / 5], [-1 / 5, 2 / 5]].forEach((row, i) => row.forEach((value, j) => expect(two[i]?.[j]).toBeCloseTo(value, 12)));
    // Rows 0 and 2 form [[4, 1], [1, 3]] (inverse [[3, -1], [-1, 4]] / 11); row 1 is 2 alone (inverse 1/2).
    const three = invert([[4, 0, 1], [0, 2, 0], [1, 0, 3]]);
    [[3 / 11, 0, -1 / 11], [0, 1 / 2, 0], [-1 / 11, 0, 4 / 11]].forEach((row, i) => row.forEach((value, j) => expect(three[i]?.[j]).toBeCloseTo(value, 12)));
  });

  it('multiplies a matrix by a vector, and reads a quadratic form', () => {
    // [1 2; 3 4]·[5 6] = [1·5 + 2·6, 3·5 + 4·6].
    expect(multiply([[1, 2], [3, 4]], [5, 6])).toEqual([17, 39]);
    // [1 2]·[1 2; 3 4]·[1 2]ᵀ = 1·1·1 + 1·2·2 + 2·3·1 + 2·4·2.
    expect(quadraticForm([[1, 2], [3, 4]], [1, 2])).toBe(27);
  });

  it.each([
    [0, 0],
    [0.5, 0.5204999],
    [1, 0.8427008],
    [-1, -0.8427008],
    [2, 0.9953223],
    [-3, -0.9999779],
  ])('erf(%p) = %p', (x, expected) => {
    expect(erf(x)).toBeCloseTo(expected, 6);
  });

  it.each([
    [0, 0, 1, 0.5],
    [1, 0, 1, 0.8413447],
    [-1, 0, 1, 0.1586553],
    [12, 10, 2, 0.8413447],
    [Z_80, 0, 1, 0.9],
    [-Z_80, 0, 1, 0.1],
  ])('normalCdf(%p; mean %p, sd %p) = %p', (x, mean, sd, expected) => {
    expect(normalCdf(x, mean, sd)).toBeCloseTo(expected, 6);
  });

  it.each([
    [0.99, 1, 0],
    [1, 1, 1],
    [1.01, 1, 1],
  ])('a zero sd is a step at the mean: normalCdf(%p; mean %p, sd 0) = %p', (x, mean, expected) => {
    expect(normalCdf(x, mean, 0)).toBe(expected);
  });

  it.each([
    ['one candidate', [{ mean: 0.3, sd: 0.1 }], 0, 1],
    ['two equal', [{ mean: 0.5, sd: 0.1 }, { mean: 0.5, sd: 0.1 }], 0, 0.5],
    ['three equal', [{ mean: 0.5, sd: 0.1 }, { mean: 0.5, sd: 0.1 }, { mean: 0.5, sd: 0.1 }], 1, 1 / 3],
    // P(X0 > X1) = Φ(0.1 / (0.1·√2)) = Φ(0.7071)
    ['ahead by one sd of each', [{ mean: 0.6, sd: 0.1 }, { mean: 0.5, sd: 0.1 }], 0, 0.7602499],
    ['behind by one sd of each', [{ mean: 0.6, sd: 0.1 }, { mean: 0.5, sd: 0.1 }], 1, 0.2397501],
    ['far ahead', [{ mean: 0.9, sd: 0.01 }, { mean: 0.1, sd: 0.01 }], 0, 1],
    ['a sure value against a spread one', [{ mean: 0.5, sd: 0 }, { mean: 0.4, sd: 0.1 }], 0, 0.8413447],
    ['a sure value against two', [{ mean: 0.5, sd: 0 }, { mean: 0.4, sd: 0.1 }, { mean: 0.5, sd: 0.2 }], 0, 0.8413447 * 0.5],
    ['no such candidate', [{ mean: 0.5, sd: 0.1 }], 3, 0],
  ])('probabilityLargest: %s', (_name, estimates, index, expected) => {
    expect(probabilityLargest(estimates, index)).toBeCloseTo(expected, 3);
  });

  it('gives probabilities that add up to 1 over all candidates', () => {
    const estimates = [
      { mean: 0.62, sd: 0.04 },
      { mean: 0.58, sd: 0.05 },
      { mean: 0.6, sd: 0.02 },
    ];
    const total = estimates.reduce((sum, _, i) => sum + probabilityLargest(estimates, i), 0);
    expect(total).toBeCloseTo(1, 3);
  });
});

describe('grades by provenance', () => {
  it.each([
    ['user, self and reported counters', { userGradedCommits: 3, userGradeSum: 12, selfGradedCommits: 4, selfGradeSum: 20, reportedGradedCommits: 2, reportedGradeSum: 4 }, [3, 12], [2, 4], [4, 20]],
    ['an old record: gradeSum of both grades per commit, read as agent-reported (their mean)', { gradedCommits: 4, gradeSum: 14 }, [0, 0], [4, 7], [0, 0]],
    ['provenance counters win over the old totals', { gradedCommits: 4, gradeSum: 14, selfGradedCommits: 1, selfGradeSum: 5 }, [0, 0], [0, 0], [1, 5]],
    ['only a user grade', { gradedCommits: 1, gradeSum: 2, userGradedCommits: 1, userGradeSum: 2 }, [1, 2], [0, 0], [0, 0]],
    ['nothing graded', {}, [0, 0], [0, 0], [0, 0]],
  ])('%s', (_name, counters, user, reported, self) => {
    expect(gradesByProvenance(usageRecord({ agent: 'build', model: 'm', ...counters }))).toMatchObject({ user, reported, self });
  });
});

describe('tallies', () => {
  const record = usageRecord({
    agent: 'build',
    model: 'm',
    commits: 10,
    bugs: 2,
    toolCalls: 40,
    toolFailures: 4,
    cost: 3,
    userGradedCommits: 5,
    userGradeSum: 15,
    reportedGradedCommits: 2,
    reportedGradeSum: 3,
    selfGradedCommits: 6,
    selfGradeSum: 24,
    turns: 8,
    undoneTurns: 1,
    testRuns: 6,
    testPasses: 5,
    revertedCommits: 1,
    followUpFixCommits: 2,
  });

  it('adds a record scaled by its weight, every counter', () => {
    const tally = emptyTally();
    addRecord(tally, record, 0.5);
    expect(tally).toEqual({
      sessions: 0.5,
      commits: 5,
      bugs: 1,
      toolCalls: 20,
      toolFailures: 2,
      cost: 1.5,
      userGraded: 2.5,
      userGradeSum: 7.5,
      reportedGraded: 1,
      reportedGradeSum: 1.5,
      selfGraded: 3,
      selfGradeSum: 12,
      turns: 4,
      undoneTurns: 0.5,
      testRuns: 3,
      testPasses: 2.5,
      reverted: 0.5,
      followUpFixes: 1,
      // 5 commits graded by both: self means 24/6 = 4, user 15/5 = 3, so each overclaims by 1.
      pairedGraded: 2.5,
      overclaimSum: 2.5,
      overclaimSquares: 2.5,
      // 6 self-graded commits at a mean of 4: 6 × 4² × 0.5.
      selfMeanSquares: 48,
      // Whether a cost was priced from the catalog is counted where the cost is read (recommend.ts).
      costEstimated: 0,
      costUnknown: 0,
      costKnown: 0,
    });
  });

  it("counts for the undo signal the turns of live sessions only (a backfill cannot see an undo)", () => {
    const tally = emptyTally();
    addRecord(tally, usageRecord({ agent: 'build', model: 'm', turns: 4, undoneTurns: 1 }), 1);
    addRecord(tally, usageRecord({ agent: 'build', model: 'm', turns: 6, source: 'backfill' }), 1);
    expect({ turns: tally.turns, undoneTurns: tally.undoneTurns }).toEqual({ turns: 4, undoneTurns: 1 });
  });

  it('reads missing outcome counters as zero', () => {
    const tally = emptyTally();
    addRecord(tally, usageRecord({ agent: 'build', model: 'm', commits: 3 }), 1);
    expect(tally).toEqual({ ...emptyTally(), sessions: 1, commits: 3 });
  });

  it('adds tallies field by field', () => {
    const a = emptyTally();
    addRecord(a, record, 1);
    const b = emptyTally();
    addRecord(b, record, 2);
    addTally(a, b);
    const three = emptyTally();
    addRecord(three, record, 3);
    expect(a).toEqual(three);
  });

  it.each([
    [10, 1, 2, 7],
    [10, 0, 0, 10],
    [3, 2, 2, 0],
  ])('of %p commits with %p reverted and %p fixed after, %p were accepted', (commits, reverted, followUpFixes, expected) => {
    expect(acceptedCommits({ ...emptyTally(), commits, reverted, followUpFixes })).toBe(expected);
  });
});

describe('signals', () => {
  const tally: Tally = {
    ...emptyTally(),
    commits: 20,
    bugs: 3,
    toolCalls: 100,
    toolFailures: 10,
    userGraded: 6,
    userGradeSum: 12,
    reportedGraded: 3,
    reportedGradeSum: -3,
    selfGraded: 4,
    selfGradeSum: 20,
    turns: 10,
    undoneTurns: 2,
    testRuns: 8,
    testPasses: 6,
    reverted: 1,
    followUpFixes: 3,
  };

  it.each<[SignalName, number, number]>([
    // A grade g counts as (g + 1) / 6 of a good outcome: 6 commits summing 12 → (12 + 6) / 6 = 3.
    ['userGrade', 3, 6],
    ['reportedGrade', 0, 3],
    ['selfGrade', 4, 4],
    ['acceptedCommits', 16, 20],
    ['undo', 8, 10],
    ['tests', 6, 8],
    ['bugs', 17, 20],
    ['toolFailures', 90, 100],
  ])('%s reads %p good out of %p', (name, good, trials) => {
    const signal = SIGNALS.find((s) => s.name === name);
    expect(signal?.good(tally)).toBeCloseTo(good, 12);
    expect(signal?.trials(tally)).toBe(trials);
  });

  it.each<[SignalName, Partial<Tally>, number]>([
    ['undo', { turns: 2, undoneTurns: 5 }, 0],
    ['tests', { testRuns: 2, testPasses: 5 }, 2],
    ['bugs', { commits: 2, bugs: 5 }, 0],
    ['toolFailures', { toolCalls: 2, toolFailures: 5 }, 0],
  ])('%s never counts fewer than no good outcomes nor more than its trials', (name, fields, expected) => {
    expect(SIGNALS.find((s) => s.name === name)?.good({ ...emptyTally(), ...fields })).toBe(expected);
  });

  it('weighs the user first, objective signals next, self-grades least', () => {
    const objective: SignalName[] = ['acceptedCommits', 'undo', 'tests', 'bugs', 'toolFailures'];
    for (const name of objective) {
      expect(SIGNAL_WEIGHTS.userGrade).toBeGreaterThan(SIGNAL_WEIGHTS[name]);
      expect(SIGNAL_WEIGHTS[name]).toBeGreaterThan(SIGNAL_WEIGHTS.selfGrade);
    }
    expect(SIGNAL_WEIGHTS.userGrade).toBeGreaterThan(SIGNAL_WEIGHTS.reportedGrade);
    expect(SIGNAL_WEIGHTS.reportedGrade).toBeGreaterThan(SIGNAL_WEIGHTS.selfGrade);
    expect(SIGNALS.map((s) => [s.name, s.weight, s.credibility])).toEqual(SIGNALS.map((s) => [s.name, SIGNAL_WEIGHTS[s.name], SIGNAL_CREDIBILITY[s.name]]));
  });

  it.each([
    // No evidence: the prior, with the prior's own spread.
    [0, 0, 0.3, 20, 0.3, (0.3 * 0.7) / 21],
    // As much evidence as the prior: halfway between 1.0 and 0.2.
    [20, 20, 0.2, 20, 0.6, (0.6 * 0.4) / 41],
    // Much evidence: nearly the setup's own share.
    [900, 1000, 0.5, 20, (900 + 10) / 1020, ((910 / 1020) * (110 / 1020)) / 1021],
    [0, 10, 0.5, 10, 0.25, (0.25 * 0.75) / 21],
  ])('posterior(good %p, trials %p, prior %p, k %p) has mean %p', (good, trials, prior, k, mean, variance) => {
    const result = posterior(good, trials, prior, k);
    expect(result.mean).toBeCloseTo(mean, 12);
    expect(result.variance).toBeCloseTo(variance, 12);
  });

  it('has no pooled share for a signal nobody has evidence for', () => {
    const tests = SIGNALS.find((s) => s.name === 'tests');
    if (!tests) throw new Error('no tests signal');
    expect(pooledShare(tests, emptyTally())).toBeNull();
    expect(pooledShare(tests, { ...emptyTally(), testRuns: 4, testPasses: 3 })).toBe(0.75);
  });
});

describe('the one-line why', () => {
  const tally: Tally = {
    ...emptyTally(),
    commits: 40,
    bugs: 1,
    toolCalls: 200,
    toolFailures: 7,
    userGraded: 23,
    userGradeSum: 96.6,
    reportedGraded: 2,
    reportedGradeSum: 4,
    selfGraded: 1,
    selfGradeSum: 5,
    turns: 30,
    undoneTurns: 3,
    testRuns: 25,
    testPasses: 23,
    reverted: 1,
    followUpFixes: 0,
  };

  it.each<[SignalName, Partial<Tally>, string]>([
    ['userGrade', {}, 'user 4.2/5 over 23 commits'],
    ['userGrade', { userGraded: 1, userGradeSum: 5 }, 'user 5.0/5 over 1 commit'],
    ['reportedGrade', {}, 'agent-relayed user grade 2.0/5 over 2 commits'],
    ['selfGrade', {}, 'self-grade 5.0/5 over 1 commit'],
    ['acceptedCommits', {}, '1 of 40 commits reverted'],
    ['acceptedCommits', { followUpFixes: 1 }, '1 of 40 commits reverted, 1 follow-up fix'],
    ['acceptedCommits', { followUpFixes: 3 }, '1 of 40 commits reverted, 3 follow-up fixes'],
    ['undo', {}, '3 of 30 turns undone'],
    ['undo', { turns: 1, undoneTurns: 0 }, '0 of 1 turn undone'],
    ['tests', {}, 'tests green 92% of 25 runs'],
    ['bugs', {}, '1 bug in 40 commits'],
    ['toolFailures', {}, '3.5% tool failures'],
  ])('%s reads "%s"', (name, fields, text) => {
    expect(describeSignal(name, { ...tally, ...fields })).toBe(text);
  });

  const estimate = (name: SignalName, weight: number, prior: number, mean: number): SignalEstimate => ({ name, weight, prior, mean, variance: 0 });
  const trialsOf = (name: SignalName, t: Tally) => SIGNALS.find((s) => s.name === name)?.trials(t) ?? 0;

  it('names the signals that moved the score most, by weight times distance from the role average', () => {
    const estimates = [
      estimate('userGrade', 4, 0.5, 0.52), // 0.08
      estimate('acceptedCommits', 2, 0.8, 0.95), // 0.30
      estimate('tests', 1, 0.5, 0.3), // 0.20 (below average counts too)
      estimate('selfGrade', 0.25, 0.5, 1), // 0.125
    ];
    expect(explainScore(estimates, tally, trialsOf, '')).toBe('1 of 40 commits reverted; tests green 92% of 25 runs; self-grade 5.0/5 over 1 commit');
    expect(WHY_SIGNALS).toBe(3);
  });

  it('keeps the signal order on equal influence, skips signals the setup has no evidence of, and adds the prefix', () => {
    const estimates = [estimate('userGrade', 1, 0.5, 0.6), estimate('undo', 1, 0.5, 0.6), estimate('tests', 1, 0.5, 0.9)];
    expect(explainScore(estimates, { ...tally, testRuns: 0, testPasses: 0 }, trialsOf, 'only 2 commits; ')).toBe('only 2 commits; user 4.2/5 over 23 commits; 3 of 30 turns undone');
  });

  it('says so when the setup has nothing of its own', () => {
    expect(explainScore([estimate('userGrade', 4, 0.5, 0.5)], emptyTally(), trialsOf, '')).toBe("no graded or measured work of its own yet, so scored at its role's average");
  });
});

/**
 * The overclaim the user sees against the correction the score uses. The figure shown (report, HTML,
 * the why, `overclaim.mean` in --json) is the setup's own, shrunk toward the role's; the score takes
 * off its overclaim pooled with the role's setups as far as they overclaim alike (`overclaim.correction`).
 * The why says both, so a user who reads "grades itself 0.8 above" is not misled about what was taken off.
 * Expected figures are worked out by hand in the comments.
 */
import { describe, expect, it } from '@jest/globals';
import { recommendSetups } from '../../src/core/report/recommend.js';
import { agreementCredibility, MAX_AGREEMENT_CREDIBILITY, OVERCLAIM_CREDIBILITY } from '../../src/core/report/recommend-overclaim.js';
import { addRecord, emptyTally } from '../../src/core/report/recommend-signals.js';
import type { Tally } from '../../src/core/report/recommend-signals.js';
import type { Recommendation, ScoredSetup } from '../../src/core/report/recommend.js';
import type { ProjectProfile, UsageRecord } from '../../src/core/types.js';
import { profile } from '../helpers/synthetic-history.js';
import { usageRecord } from '../helpers/usage-record.js';

const TARGET = profile('/p/target', 'rust', 'axum', 'api', ['tokio']);

function recommend(usage: UsageRecord[]): Recommendation {
  return recommendSetups({ target: TARGET, history: { usage }, profiles: new Map<string, ProjectProfile>(), similarity: () => 1, prefer: 'quality' });
}

function setupOf(result: Recommendation, model: string): ScoredSetup {
  const found = result.recommendations.find((r) => r.model === model);
  if (!found) throw new Error(`no ${model}`);
  return found;
}

/** `sessions` sessions of 3 commits, 2 of them graded by both: the user `user` each, the setup `self` each. */
function work(model: string, sessions: number, user: number, self: number): UsageRecord[] {
  return Array.from({ length: sessions }, () =>
    usageRecord({ agent: 'build', model, commits: 3, userGradedCommits: 2, userGradeSum: 2 * user, selfGradedCommits: 2, selfGradeSum: 2 * self }),
  );
}

const round1 = (value: number) => Math.round(value * 10) / 10;

describe('the overclaim in the why', () => {
  it("says the setup's own overclaim and the pooled correction its score uses, when the setups overclaim alike", () => {
    // m/a: 4 sessions 2 over (self 5, user 3), 4 sessions 0 over: 16 pairs, 16 over, squares 32.
    // m/b: 3 sessions 2 over, 5 sessions 0 over: 16 pairs, 12 over, squares 24.
    // Within a setup the spread is (32 − 16²/16 + 24 − 12²/16) / (32 − 2) = 31/30; between the two
    // setups 16 × (1 − 0.875)² + 16 × (0.75 − 0.875)² = 0.5, less than 31/30: they overclaim alike,
    // so each is corrected by the role's 28/32 = 0.875 with 1000 pairs of weight.
    // m/b's shown figure is its own, 12 over 16 pairs = 0.75 → 0.8;
    // its correction (12 + 1000 × 0.875) / 1016 = 0.873 → 0.9, pooled (1000 of 1016 pairs from the role).
    const result = recommend([...work('m/a', 4, 3, 5), ...work('m/a', 4, 3, 3), ...work('m/b', 3, 3, 5), ...work('m/b', 5, 3, 3)]);
    const b = setupOf(result, 'm/b');
    const shown = round1(12 / 16);
    const correction = round1((12 + 1000 * 0.875) / 1016);
    expect([shown, correction]).toEqual([0.8, 0.9]);
    expect(b.overclaim?.mean).toBe(shown);
    expect(b.overclaim?.correction).toBe(correction);
    expect(b.why).toContain(`grades itself ${shown.toFixed(1)} above the user`);
    expect(b.why).toContain(`its self-grades count after taking ${correction.toFixed(1)} off each, pooled with the role's setups`);
    // m/a: shown its own 16 / 16 = 1.0; correction (16 + 875) / 1016 = 0.877 → 0.9.
    const a = setupOf(result, 'm/a');
    expect(a.overclaim).toMatchObject({ mean: 1, correction: round1(891 / 1016) });
    expect(a.why).toContain("grades itself 1.0 above the user (80%:");
    expect(a.why).toContain("after taking 0.9 off each, pooled with the role's setups");
  });

  it('says a setup whose self-grades matched the user\'s grades the same as the user, beside one that overclaims', () => {
    // m/match: 2 commits graded 5 by both (0 over); m/over: 2 commits self 5 against the user's 0 (5 over).
    // The role overclaims by 2.5 on average, but m/match never graded itself above the user: it must not
    // read "above". With 2 pairs and no spread, the half-width is Z_80 × √(0.25 / 2) = 0.45.
    const result = recommend([...work('m/match', 1, 5, 5), ...work('m/over', 1, 0, 5)]);
    const half = 1.2815515655446004 * Math.sqrt(0.25 / 2);
    expect(setupOf(result, 'm/match').why).toContain(`grades itself the same as the user (80%: ${round1(-half).toFixed(1)} to ${round1(half).toFixed(1)}, 2 commits both graded); its self-grades do not count`);
    expect(setupOf(result, 'm/over').why).toContain('grades itself 5.0 above the user');
  });

  it('says the correction is mostly its own when the setups overclaim unevenly', () => {
    // m/over: self 5 against 3 and self 4 against 2, always 2 over (16 pairs); m/honest: self as the
    // user, 0 over (16 pairs). No spread within a setup, all of it between: each is corrected by its
    // own alone (0 pairs of the role's), m/over by 2.0, which is also the figure shown (its own).
    const result = recommend([...work('m/over', 4, 3, 5), ...work('m/over', 4, 2, 4), ...work('m/honest', 4, 3, 3), ...work('m/honest', 4, 2, 2)]);
    const over = setupOf(result, 'm/over');
    expect(over.overclaim).toMatchObject({ mean: 2, correction: 2 });
    expect(over.why).toContain('grades itself 2.0 above the user');
    expect(over.why).toContain('its self-grades count after taking 2.0 off each, mostly from its own commits');
    expect(over.why).not.toContain('pooled');
  });

  it('says the score adds back what a setup that grades itself too low left out', () => {
    // m/under: self 1 against 3 and self 0 against 2, always 2 under; m/honest as the user. As above,
    // each is corrected by its own alone: m/under's self-grades count with 2.0 added to each. The figure
    // shown is its own: -32 over 16 pairs = -2.0.
    const result = recommend([...work('m/under', 4, 3, 1), ...work('m/under', 4, 2, 0), ...work('m/honest', 4, 3, 3), ...work('m/honest', 4, 2, 2)]);
    const under = setupOf(result, 'm/under');
    const shown = round1(-32 / 16);
    expect(under.overclaim).toMatchObject({ mean: shown, correction: -2 });
    expect(under.why).toContain(`grades itself ${Math.abs(shown).toFixed(1)} below the user`);
    expect(under.why).toContain('its self-grades count after adding 2.0 to each, mostly from its own commits');
  });

  it('says the self-grades do not count for a setup that grades itself 5 on every commit', () => {
    // m/five: self 5 on every commit, user 3 (2 over); m/honest's self-grades vary with the user's.
    // m/five's self-grades never vary, so they say nothing and count nothing: no correction.
    const result = recommend([...work('m/five', 8, 3, 5), ...work('m/honest', 4, 3, 3), ...work('m/honest', 4, 2, 2)]);
    const five = setupOf(result, 'm/five');
    expect(five.overclaim?.correction).toBeNull();
    expect(five.why).toContain('grades itself 2.0 above the user');
    expect(five.why).toContain('its self-grades do not count');
    expect(five.why).not.toContain(' off each');
  });

  it('says the self-grades do not count below 3 commits graded by both', () => {
    // m/once: one session, 2 commits graded by both (too few); m/honest: 16 pairs.
    const result = recommend([...work('m/once', 1, 3, 5), ...work('m/honest', 4, 3, 3), ...work('m/honest', 4, 2, 2)]);
    const once = setupOf(result, 'm/once');
    expect(once.overclaim?.correction).toBeNull();
    expect(once.why).toContain('2 commits both graded); its self-grades do not count');
  });

  it('counts the self-grades of a setup with exactly 3 commits graded by both, and not of one with 2 whose self-grades vary', () => {
    // One commit per session, graded by both; m/three: self 5, 4, 5 against user 3 (2, 1, 2 over: they vary);
    // m/two: self 5, 4 against 3; m/honest as before. 3 pairs count, 2 do not, however the grades vary.
    const single = (model: string, user: number, self: number) =>
      usageRecord({ agent: 'build', model, commits: 1, userGradedCommits: 1, userGradeSum: user, selfGradedCommits: 1, selfGradeSum: self });
    const honest = [...work('m/honest', 4, 3, 3), ...work('m/honest', 4, 2, 2)];
    const result = recommend([single('m/three', 3, 5), single('m/three', 3, 4), single('m/three', 3, 5), single('m/two', 3, 5), single('m/two', 3, 4), ...honest]);
    expect(setupOf(result, 'm/three').overclaim?.correction).not.toBeNull();
    expect(setupOf(result, 'm/three').why).toContain('after taking ');
    expect(setupOf(result, 'm/two').overclaim?.correction).toBeNull();
    expect(setupOf(result, 'm/two').why).toContain('2 commits both graded); its self-grades do not count');
  });

  it('gives self-grades no weight when nobody in the role graded the same commits as the setups', () => {
    // The same work, self-graded 5 and 4 by m/proud, 2 and 3 by m/modest; the user graded none of it.
    // With no overclaim to take off, no self-grade counts: the two score the same.
    const selfOnly = (model: string, self: number) => usageRecord({ agent: 'build', model, commits: 2, selfGradedCommits: 2, selfGradeSum: 2 * self });
    const result = recommend([...[5, 4, 5, 4, 5, 4].map((g) => selfOnly('m/proud', g)), ...[2, 3, 2, 3, 2, 3].map((g) => selfOnly('m/modest', g))]);
    expect(setupOf(result, 'm/proud').score).toBe(setupOf(result, 'm/modest').score);
    expect(setupOf(result, 'm/proud').overclaim).toBeNull();
  });
});

describe('how alike the setups overclaim', () => {
  /** One record per difference, one commit graded by both: user 2, self 2 + difference. */
  function setup(differences: number[]): Tally {
    const tally = emptyTally();
    for (const d of differences) addRecord(tally, usageRecord({ agent: 'build', model: 'm', commits: 1, userGradedCommits: 1, userGradeSum: 2, selfGradedCommits: 1, selfGradeSum: 2 + d }), 1);
    return tally;
  }

  it('is measured from setups with exactly 3 commits graded by both', () => {
    // Over by 2, 0, 1 (mean 1) and by 1, 1, 1 (mean 1): no spread between the setups, so they share the
    // role's correction outright. Were 3 pairs too few, neither would be measured: the fallback of 2 pairs.
    expect(agreementCredibility([setup([2, 0, 1]), setup([1, 1, 1])])).toBe(MAX_AGREEMENT_CREDIBILITY);
    expect(agreementCredibility([setup([2, 0]), setup([1, 1])])).toBe(OVERCLAIM_CREDIBILITY);
  });
});

/**
 * The recommendation's arithmetic on small histories, each figure worked out by hand from the
 * documented rules: the weighted mean of the signals, shrinkage toward the role's average, the
 * interval, similarity weights, rounding, and the words of a thin setup.
 */
import { describe, expect, it } from '@jest/globals';
import { probabilityLargest, Z_80 } from '../../src/core/report/recommend-math.js';
import { recommendSetups } from '../../src/core/report/recommend.js';
import type { Preference, Recommendation, ScoredSetup } from '../../src/core/report/recommend.js';
import { formatRecommendation } from '../../src/core/report/recommend-text.js';
import type { ProjectProfile, UsageRecord } from '../../src/core/types.js';
import { profile } from '../helpers/synthetic-history.js';
import { usageRecord } from '../helpers/usage-record.js';

const TARGET = profile('/p/target', 'rust', 'axum', 'api');

function work(model: string, sessions: number, counters: Partial<UsageRecord>, project = TARGET.path, agent = 'build'): UsageRecord[] {
  return Array.from({ length: sessions }, () => usageRecord({ agent, model, project, ...counters }));
}

function recommend(usage: UsageRecord[], similarity: (other: ProjectProfile) => number = () => 0, prefer: Preference = 'quality'): Recommendation {
  const paths = [...new Set(usage.map((record) => record.project))].filter((path) => path !== TARGET.path);
  const profiles = new Map(paths.map((path) => [path, profile(path, 'x', 'x', 'x')]));
  return recommendSetups({ target: TARGET, history: { usage }, profiles, similarity: (_target, other) => similarity(other), prefer });
}

function setupOf(result: Recommendation, model: string): ScoredSetup {
  const found = result.recommendations.find((r) => r.model === model);
  if (!found) throw new Error(`no ${model}`);
  return found;
}

const round1 = (value: number) => Math.round(value * 10) / 10;

describe('the score of a setup', () => {
  it('is the weighted mean of its signals, with an interval from their variances', () => {
    // Per session: one commit, graded 2 by the user, 10 tool calls with 1 failure. A setup alone in its
    // role is shrunk toward knowing nothing (0.5 as 2 trials): user grade (10 × (2 + 1) / 6 + 1) / (10 + 2)
    // = 0.5 (weight 4), tool calls without failure (90 + 1) / (100 + 2) (weight 0.5). Accepted commits and
    // commits without bugs are all 1 (no revert, no bug on record): an outcome never seen says nothing, and
    // they are left out.
    const result = recommend(work('m/a', 10, { commits: 1, userGradedCommits: 1, userGradeSum: 2, toolCalls: 10, toolFailures: 1 }));
    const pick = setupOf(result, 'm/a');
    const grade = (5 + 1) / 12;
    const tools = (90 + 1) / 102;
    const quality = (4 * grade + 0.5 * tools) / 4.5;
    // Beta variances: mean·(1 − mean) / (trials + prior trials + 1).
    const variance = (4 / 4.5) ** 2 * ((grade * (1 - grade)) / (10 + 2 + 1)) + (0.5 / 4.5) ** 2 * ((tools * (1 - tools)) / (100 + 2 + 1));
    const sd = Math.sqrt(variance);
    expect(pick.score).toBe(round1(100 * quality));
    expect(pick.score).toBe(54.4);
    expect(pick.interval).toEqual([round1(100 * (quality - Z_80 * sd)), round1(100 * (quality + Z_80 * sd))]);
    // A well-evidenced setup on the target project: the why is its evidence, no caveat before it, the
    // signal that moved its score most first (its user grade sits at the middle, its tool calls do not).
    expect(pick.why.startsWith('10.0% tool failures; user 2.0/5 over 10 commits')).toBe(true);
    expect(pick.signals).toEqual([
      { name: 'userGrade', estimate: 0.5, roleAverage: 0.5 },
      { name: 'toolFailures', estimate: Math.round(1000 * tools) / 1000, roleAverage: 0.5 },
    ]);
  });

  it("pulls each setup's own share toward the role's average by the signal's credibility", () => {
    // Tool calls only (credibility 200 calls). A: 100 calls, all fine. B: 300 calls, 210 fine.
    // Role average 310 / 400 = 0.775; A = (100 + 200·0.775) / 300 = 0.85, B = (210 + 155) / 500 = 0.73.
    const result = recommend([...work('m/a', 10, { toolCalls: 10 }), ...work('m/b', 30, { toolCalls: 10, toolFailures: 3 })]);
    expect(setupOf(result, 'm/a')).toMatchObject({ score: 85, signals: [{ name: 'toolFailures', estimate: 0.85, roleAverage: 0.775 }] });
    expect(setupOf(result, 'm/b')).toMatchObject({ score: 73, signals: [{ name: 'toolFailures', estimate: 0.73, roleAverage: 0.775 }] });
  });

  it('rounds signal estimates to three decimals and cost per accepted commit to four', () => {
    // Alone in its role: 14 of 21 calls fine, (14 + 1) / (21 + 2) = 0.65217… read as 0.652.
    const result = recommend(work('m/a', 7, { commits: 3, toolCalls: 3, toolFailures: 1, cost: 1 }));
    const pick = setupOf(result, 'm/a');
    expect(pick.signals.find((signal) => signal.name === 'toolFailures')).toEqual({ name: 'toolFailures', estimate: 0.652, roleAverage: 0.5 });
    expect(pick.costPerAcceptedCommit).toBe(0.3333);
  });
});

describe('cost', () => {
  it('leaves cost out when no commit held: the score is the outcome alone, whatever the preference', () => {
    const usage = work('m/a', 10, { commits: 2, revertedCommits: 2, toolCalls: 10, toolFailures: 1, cost: 1 });
    const quality = setupOf(recommend(usage), 'm/a').score;
    expect(Number.isFinite(quality)).toBe(true);
    for (const prefer of ['balanced', 'cheap'] as const) expect(setupOf(recommend(usage, () => 0, prefer), 'm/a').score).toBe(quality);
  });
});

describe('similarity weights', () => {
  it('reads a similarity above 1 as 1 and below 0 as 0', () => {
    const above = recommend([...work('m/a', 1, { commits: 10 }, '/p/odd')], () => 1.5);
    expect(setupOf(above, 'm/a')).toMatchObject({ similarity: 1, evidence: 10 });
    // 10 commits here, 10 on a project read as similarity 0: 10 + 10 × 0.05, mean similarity 1/2.
    const below = recommend([...work('m/a', 1, { commits: 10 }), ...work('m/a', 1, { commits: 10 }, '/p/odd')], () => -0.5);
    expect(setupOf(below, 'm/a')).toMatchObject({ similarity: 0.5, evidence: 10.5 });
  });
});

describe('a thin setup', () => {
  it.each([
    [{ commits: 1, toolCalls: 5 }, 'only 1 commit, too little to pick; '],
    [{ toolCalls: 5 }, 'only 1 session, too little to pick; '],
  ])('says so in the singular: %j', (counters, prefix) => {
    // Beside a setup with 20 such sessions, which is picked.
    const thin = setupOf(recommend([...work('m/solid', 20, counters), ...work('m/a', 1, counters)]), 'm/a');
    expect(thin.thin).toBe(true);
    expect(thin.why.startsWith(prefix)).toBe(true);
  });

  it('where every setup is thin, says so once on the pick\'s line, not "too little to pick" in a why', () => {
    const counters = { commits: 2, userGradedCommits: 2, toolCalls: 5 };
    const result = recommend([...work('m/a', 1, { ...counters, userGradeSum: 10 }), ...work('m/b', 1, { ...counters, userGradeSum: 2 })]);
    const role = result.roles[0];
    expect(role).toMatchObject({ thinEvidence: true });
    expect(role?.pick.model).toBe('m/a');
    for (const setup of [role?.pick, role?.runnerUp, ...result.recommendations]) expect(setup?.why).not.toContain('too little to pick');
    expect(formatRecommendation(result)).toContain('thin evidence: only 2 commits');
  });

  it('with no commit in a role where others commit, says "no commits", not "only 0"', () => {
    const result = recommend([...work('m/a', 20, { commits: 2, toolCalls: 10 }), ...work('m/b', 20, { toolCalls: 10 })]);
    const silent = setupOf(result, 'm/b');
    expect(silent.thin).toBe(true);
    expect(silent.why.startsWith('no commits, too little to pick; ')).toBe(true);
  });

  it('does not make the pick of a well-evidenced setup less certain', () => {
    const solid = { commits: 2, userGradedCommits: 2, userGradeSum: 8, toolCalls: 10 };
    const result = recommend([...work('m/solid', 20, solid), ...work('m/new', 1, { ...solid, userGradeSum: 2 })]);
    const role = result.roles[0];
    expect(role).toMatchObject({ agent: 'build', confidence: 'clear', probabilityBest: 1, thinEvidence: false, certain: true });
    expect(role?.pick.model).toBe('m/solid');
    expect(role?.runnerUp?.model).toBe('m/new');
  });
});

describe('the chance of being the best', () => {
  it('is 0 for a position that is not in the list', () => {
    expect(probabilityLargest([{ mean: 0.5, sd: 0.1 }, { mean: 0.4, sd: 0.1 }], 2)).toBe(0);
  });
});

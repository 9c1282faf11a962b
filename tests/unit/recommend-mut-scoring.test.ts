/**
 * What the mutation run of the scoring modules found untested in the answer itself: how many more
 * sessions would settle a trial (worked out by hand on histories where one signal tells the setups
 * apart), ties, the evidence behind a role that never commits, and the caveats' words and bounds.
 */
import { describe, expect, it } from '@jest/globals';
import { MAX_THIN_PROBABILITY, recommendSetups, SETTLE_PRIOR, SURE_EVIDENCE } from '../../src/core/report/recommend.js';
import type { Preference, Recommendation, RoleRecommendation } from '../../src/core/report/recommend.js';
import { SIMILARITY_THRESHOLD } from '../../src/core/projects/similarity.js';
import { UNKNOWN } from '../../src/contract/records.js';
import type { ProjectProfile } from '../../src/core/types.js';
import type { UsageRecord } from '../../src/core/types.js';
import { profile } from '../helpers/synthetic-history.js';
import { usageRecord } from '../helpers/usage-record.js';

const TARGET = profile('/p/target', 'rust', 'axum', 'api', ['tokio']);
const Z_80 = 1.2815515655446004;
/** The user-grade signal's prior, in graded commits. */
const USER_GRADE_CREDIBILITY = 20;

const ELSEWHERE = '/p/elsewhere';

/** Records on ELSEWHERE are `similarity` alike the target. */
function recommend(usage: UsageRecord[], options: { prefer?: Preference; similarity?: number; target?: ProjectProfile } = {}): Recommendation {
  const profiles = new Map([[ELSEWHERE, profile(ELSEWHERE, 'go', 'gin', 'cli')]]);
  const similarity = options.similarity ?? 1;
  return recommendSetups({ target: options.target ?? TARGET, history: { usage }, profiles, similarity: () => similarity, prefer: options.prefer ?? 'quality' });
}

function build(result: Recommendation, agent = 'build'): RoleRecommendation {
  const role = result.roles.find((r) => r.agent === agent);
  if (!role) throw new Error(`no role ${agent}`);
  return role;
}

/** `sessions` sessions of `commits` commits, each graded `grade` by the user. */
function graded(model: string, sessions: number, commits: number, grade: number, extra: Partial<UsageRecord> = {}): UsageRecord[] {
  return Array.from({ length: sessions }, () => usageRecord({ agent: 'build', model, commits, userGradedCommits: commits, userGradeSum: commits * grade, ...extra }));
}

/** `sessions` planning sessions (no commits) of 20 tool calls, `failures` of them failed. */
function planning(model: string, sessions: number, failures: number, extra: Partial<UsageRecord> = {}): UsageRecord[] {
  return Array.from({ length: sessions }, () => usageRecord({ agent: 'plan', model, toolCalls: 20, toolFailures: failures, ...extra }));
}

/** A grade g is (g + 1) / 6 of a good outcome. */
const good = (grade: number, commits: number) => ((grade + 1) / 6) * commits;

describe('sessions to settle a trial', () => {
  it.each([
    // [trial sessions, commits per trial session, their grade]
    [1, 2, 5],
    [2, 2, 4],
    [3, 2, 4],
  ])('is worked out from the trial spread, its gap to the pick and its commits per session (%p sessions of %p commits graded %p)', (trialSessions, perSession, grade) => {
    // m/solid: 20 sessions of 2 commits graded 2. m/new: a few sessions of commits graded better.
    const solid = { commits: 40, good: good(2, 40) };
    const trial = { commits: trialSessions * perSession, good: good(grade, trialSessions * perSession) };
    const prior = (solid.good + trial.good) / (solid.commits + trial.commits);
    const mean = (setup: { commits: number; good: number }) => (setup.good + USER_GRADE_CREDIBILITY * prior) / (setup.commits + USER_GRADE_CREDIBILITY);
    const trialMean = mean(trial);
    const trialSd = Math.sqrt((trialMean * (1 - trialMean)) / (trial.commits + USER_GRADE_CREDIBILITY + 1));
    const gap = Math.abs(mean(solid) - trialMean);
    // Its 80% half-width Z_80·sd shrinks as 1/√(commits + SETTLE_PRIOR); it settles when that is the gap.
    const now = trial.commits + SETTLE_PRIOR;
    const moreCommits = now * ((Z_80 * trialSd) / gap) ** 2 - now;
    const expected = Math.max(1, Math.ceil(moreCommits / perSession));

    const result = recommend([...graded('m/solid', 20, 2, 2), ...graded('m/new', trialSessions, perSession, grade)]);
    expect(result.roles[0]?.pick.model).toBe('m/solid');
    expect(gap).toBeGreaterThan(0.02);
    expect(expected).toBeGreaterThan(1);
    expect(result.worthTrying).toEqual([expect.objectContaining({ model: 'm/new', insteadOf: 'm/solid', sessionsToSettle: expected })]);
  });
});

describe('sessions to settle a trial in a role that never commits', () => {
  it('counts its sessions, one at a time', () => {
    // Tool calls are the only signal (prior 200 calls). m/solid: 20 sessions of 20 calls, 4 failed;
    // m/new: 1 session of 20 calls, none failed (thin: under 5 sessions).
    const prior = (16 * 20 + 20) / (20 * 20 + 20);
    const mean = (fine: number, calls: number) => (fine + 200 * prior) / (calls + 200);
    const trialMean = mean(20, 20);
    const trialSd = Math.sqrt((trialMean * (1 - trialMean)) / (20 + 200 + 1));
    const gap = trialMean - mean(320, 400);
    const now = 1 + SETTLE_PRIOR;
    const expected = Math.max(1, Math.ceil(now * ((Z_80 * trialSd) / gap) ** 2 - now));
    const result = recommend([...planning('m/solid', 20, 4), ...planning('m/new', 1, 0)]);
    expect(build(result, 'plan').pick.model).toBe('m/solid');
    expect(gap).toBeGreaterThan(0.02);
    expect(result.worthTrying).toEqual([expect.objectContaining({ model: 'm/new', sessionsToSettle: expected })]);
  });
});

describe('ties', () => {
  it('a lone setup is no tie', () => {
    const role = build(recommend(graded('m/only', 20, 2, 3)));
    expect(role.runnerUp).toBeNull();
    expect(role.tie).toBe(false);
  });

  it('two setups that never did the same kind of task are no tie, however close their scores', () => {
    // The same grades, one on bug fixes only, the other on docs only.
    const result = recommend([...graded('m/fixer', 20, 2, 3, { turns: 2, turnsBugFix: 2 }), ...graded('m/writer', 20, 2, 3, { turns: 2, turnsDocs: 2 })]);
    const role = build(result);
    expect(role.comparable).toBe(false);
    expect(Math.abs(role.pick.score - (role.runnerUp?.score ?? Infinity))).toBeLessThan(2);
    expect(role.tie).toBe(false);
  });
});

describe('the evidence behind the pick of a role that never commits', () => {
  it("is the pick's own sessions, said in sessions, and caps how sure it is", () => {
    // m/many (recorded first): 40 sessions, half the calls failed; m/pick: 12 sessions, none failed.
    const role = build(recommend([...planning('m/many', 40, 10), ...planning('m/pick', 12, 0)]), 'plan');
    expect(role.pick.model).toBe('m/pick');
    expect(role.caveat).toBe('the pick rests on 12 sessions on projects like this one, too few to be sure');
    expect(role.probabilityBest).toBe(MAX_THIN_PROBABILITY);
  });

  it('says one session in the singular', () => {
    const role = build(recommend(planning('m/once', 1, 0)), 'plan');
    expect(role.caveat).toBe('the pick rests on 1 session on projects like this one, too few to be sure');
  });
});

describe('how sure it is at the evidence bound', () => {
  it(`is not held back with exactly ${SURE_EVIDENCE} commits behind the pick`, () => {
    const role = build(recommend([...graded('m/good', SURE_EVIDENCE / 2, 2, 5), ...graded('m/bad', SURE_EVIDENCE / 2, 2, -1)]));
    expect(role.pick.model).toBe('m/good');
    expect(role.pick.n).toBe(SURE_EVIDENCE);
    expect(role.probabilityBest).toBeGreaterThan(MAX_THIN_PROBABILITY);
    expect(role.caveat).toBeUndefined();
  });
});

describe('the caveats', () => {
  it('name the kind of an unlike target by its known facts, and join several with "; "', () => {
    const target = profile('/p/target', 'rust', UNKNOWN, 'api');
    const role = build(recommend([...graded('m/a', 10, 2, 4, { project: ELSEWHERE }), ...graded('m/b', 10, 2, 1, { project: ELSEWHERE })], { similarity: 0, target }));
    expect(role.caveat).toBe(
      'no project like this one (rust/api) in the history: the answer comes from unlike projects and may not carry over; ' +
        'the pick rests on 20 commits, too few to be sure',
    );
  });

  it('call a target with no known fact unclassified', () => {
    const target = profile('/p/target', UNKNOWN, UNKNOWN, UNKNOWN);
    const role = build(recommend(graded('m/a', 20, 2, 4, { project: ELSEWHERE }), { similarity: 0, target }));
    expect(role.caveat).toBe('no project like this one (unclassified) in the history: the answer comes from unlike projects and may not carry over');
  });

  it('count a project exactly at the similarity threshold as alike', () => {
    const role = build(recommend(graded('m/a', 20, 2, 4, { project: ELSEWHERE }), { similarity: SIMILARITY_THRESHOLD }));
    expect(role.caveat).toBeUndefined();
  });

  it.each<[string, Preference, Partial<UsageRecord>, Partial<UsageRecord>]>([
    ['every model priced, balanced', 'balanced', { cost: 0.5 }, { cost: 0.5 }],
    ['no model priced, but quality preferred', 'quality', { tokensInput: 1000 }, { tokensInput: 1000 }],
    ['one model priced, balanced', 'balanced', { cost: 0.5 }, { tokensInput: 1000 }],
  ])('say nothing of unknown prices with %s', (_name, prefer, first, second) => {
    const role = build(recommend([...graded('m/a', 20, 2, 4, first), ...graded('m/b', 20, 2, 1, second)], { prefer }));
    expect(role.caveat).toBeUndefined();
  });

  it('say so when no model in the role has a known price and cost counts', () => {
    const role = build(recommend([...graded('m/a', 20, 2, 4, { tokensInput: 1000 }), ...graded('m/b', 20, 2, 1, { tokensInput: 1000 })], { prefer: 'balanced' }));
    expect(role.caveat).toMatch(/^no model in this role has a known price/);
  });
});

describe('the old flat list', () => {
  it('puts equal scores with more commits first, then more sessions, whatever the roles are called', () => {
    // Commits, no grade, no failure: no signal tells anyone apart, so every score is 50.
    const commitsOnly = (agent: string, model: string, sessions: number, commits: number) =>
      Array.from({ length: sessions }, () => usageRecord({ agent, model, commits }));
    const byCommits = recommend([...commitsOnly('alpha', 'm/few', 10, 1), ...commitsOnly('build', 'm/more', 10, 2)]);
    expect(byCommits.recommendations.map((r) => [r.agent, r.model, r.score])).toEqual([['build', 'm/more', 50], ['alpha', 'm/few', 50]]);
    const bySessions = recommend([...commitsOnly('alpha', 'm/long', 5, 4), ...commitsOnly('build', 'm/short', 10, 2)]);
    expect(bySessions.recommendations.map((r) => [r.agent, r.model, r.score])).toEqual([['build', 'm/short', 50], ['alpha', 'm/long', 50]]);
  });
});

describe('the order of the history', () => {
  it('does not change the answer when setups doing different kinds of task are recorded in another order', () => {
    // m/strong mostly bug fixes, m/docs mostly docs, m/mixed half and half: the role's pool per kind
    // sums all three, whichever comes first.
    const kind = (model: string, sessions: number, turns: 'turnsBugFix' | 'turnsDocs', grade: number) =>
      Array.from({ length: sessions }, () => usageRecord({ agent: 'build', model, commits: 2, turns: 2, [turns]: 2, userGradedCommits: 2, userGradeSum: 2 * grade }));
    const strong = [...kind('m/strong', 16, 'turnsBugFix', 3), ...kind('m/strong', 4, 'turnsDocs', 5)];
    const docs = [...kind('m/docs', 4, 'turnsBugFix', 2), ...kind('m/docs', 16, 'turnsDocs', 4)];
    const mixed = [...kind('m/mixed', 10, 'turnsBugFix', 2.5), ...kind('m/mixed', 10, 'turnsDocs', 4.5)];
    const one = recommend([...strong, ...docs, ...mixed]);
    const other = recommend([...mixed, ...docs, ...strong]);
    expect(other.recommendations).toEqual(one.recommendations);
    expect(build(other)).toEqual(build(one));
  });
});

describe('signals nobody in the role varies on', () => {
  it('leaves out a signal every setup failed on alike, as it leaves out one every setup passed', () => {
    // Every commit of both setups was reverted: accepted commits are 0 for everyone and tell nobody apart.
    const result = recommend([...graded('m/a', 20, 2, 4, { revertedCommits: 2 }), ...graded('m/b', 20, 2, 1, { revertedCommits: 2 })]);
    expect(build(result).pick.model).toBe('m/a');
    for (const setup of result.recommendations) expect(setup.signals.map((signal) => signal.name)).toEqual(['userGrade']);
  });
});

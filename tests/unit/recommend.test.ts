/**
 * The recommendation's decisions, table by table: each signal's direction and weight, evidence
 * thresholds, confidence, cost preference, intervals and similarity weighting (the records of the
 * real TrackingService: recommend-tracked.test.ts).
 */
import { describe, expect, it } from '@jest/globals';
import {
  COST_SHARE,
  confidenceOf,
  MIN_PICK_COMMITS,
  MAX_THIN_PROBABILITY,
  MIN_PICK_SESSIONS,
  NO_HISTORY_MESSAGE,
  PRACTICAL_LEAD,
  PREFERENCES,
  recommendSetups,
  SURE_EVIDENCE,
} from '../../src/core/report/recommend.js';
import type { Preference, Recommendation, RoleRecommendation, ScoredSetup } from '../../src/core/report/recommend.js';
import { describeConfidence, describeCost, describeScore, formatRecommendation } from '../../src/core/report/recommend-text.js';
import type { ProjectProfile, UsageRecord } from '../../src/core/types.js';
import { profile } from '../helpers/synthetic-history.js';
import { usageRecord } from '../helpers/usage-record.js';

const TARGET = profile('/p/target', 'rust', 'axum', 'api', ['tokio']);

/** `sessions` records of one setup, each with the same counters. */
function work(agent: string, model: string, sessions: number, counters: Partial<UsageRecord>, project = TARGET.path): UsageRecord[] {
  return Array.from({ length: sessions }, () => usageRecord({ agent, model, project, ...counters }));
}

/** Similarity from a table keyed by project path; the target itself is 1. */
function similarityTable(table: Record<string, number>) {
  return (_target: ProjectProfile, other: ProjectProfile) => table[other.path] ?? 0;
}

function recommend(usage: UsageRecord[], options: { prefer?: Preference; similarity?: Record<string, number> } = {}): Recommendation {
  const table = options.similarity ?? {};
  const profiles = new Map(Object.keys(table).map((path) => [path, profile(path, 'x', 'x', 'x')]));
  return recommendSetups({ target: TARGET, history: { usage }, profiles, similarity: similarityTable(table), ...(options.prefer ? { prefer: options.prefer } : {}) });
}

function setupOf(result: Recommendation, agent: string, model: string): ScoredSetup {
  const found = result.recommendations.find((r) => r.agent === agent && r.model === model);
  if (!found) throw new Error(`no ${agent} ${model}`);
  return found;
}

function roleOf(result: Recommendation, agent: string) {
  const found = result.roles.find((r) => r.agent === agent);
  if (!found) throw new Error(`no role ${agent}`);
  return found;
}

/** Per session: middling on every signal, so each can be made better or worse. */
const BASE: Partial<UsageRecord> = {
  commits: 2,
  toolCalls: 20,
  toolFailures: 4,
  turns: 4,
  undoneTurns: 1,
  testRuns: 2,
  testPasses: 1,
  userGradedCommits: 1,
  userGradeSum: 2,
  reportedGradedCommits: 1,
  reportedGradeSum: 2,
  selfGradedCommits: 1,
  selfGradeSum: 2,
  revertedCommits: 0,
  followUpFixCommits: 0,
  bugs: 0,
  cost: 0.5,
};

describe('each signal counts in the right direction', () => {
  // Paired records (the user and the setup grade the same commit, alike) measure each setup's
  // overclaim as 0; its self-grades of commits the user did not grade then count as they are.
  const paired: Partial<UsageRecord> = { ...BASE, userGradedCommits: 1, userGradeSum: 2, selfGradedCommits: 1, selfGradeSum: 2 };
  const unpaired = (selfGradeSum: number): Partial<UsageRecord> => ({ ...BASE, userGradedCommits: 0, userGradeSum: 0, selfGradedCommits: 2, selfGradeSum });

  it('better self-grades of commits the user did not grade rank higher, once corrected', () => {
    const result = recommend(
      [...work('build', 'm/better', 10, paired), ...work('build', 'm/better', 10, unpaired(10)), ...work('build', 'm/worse', 10, paired), ...work('build', 'm/worse', 10, unpaired(-2))],
      { prefer: 'quality' },
    );
    expect(roleOf(result, 'build').pick.model).toBe('m/better');
    expect(setupOf(result, 'build', 'm/better').score).toBeGreaterThan(setupOf(result, 'build', 'm/worse').score);
  });

  it('gives nothing for grading itself up: same user grades, self 5 against self -1, same score', () => {
    const result = recommend([...work('build', 'm/proud', 20, { ...BASE, selfGradeSum: 5 }), ...work('build', 'm/modest', 20, { ...BASE, selfGradeSum: -1 })], { prefer: 'quality' });
    expect(setupOf(result, 'build', 'm/proud').score).toBe(setupOf(result, 'build', 'm/modest').score);
    // Self 5 against the user's 2 on each of 20 paired commits: 3 over; self -1 against 2: 3 under.
    // Each is shown as measured on its own commits, not pulled toward the role's 0.
    expect(setupOf(result, 'build', 'm/proud').overclaim?.mean).toBe(3);
    expect(setupOf(result, 'build', 'm/modest').overclaim?.mean).toBe(-3);
    expect(setupOf(result, 'build', 'm/proud').why).toContain('grades itself 3.0 above the user');
  });

  it.each<[string, Partial<UsageRecord>, Partial<UsageRecord>]>([
    ['user grades', { userGradeSum: 5 }, { userGradeSum: 1 }],
    ['agent-reported user grades', { reportedGradeSum: 5 }, { reportedGradeSum: 1 }],
    ['reverted commits', { revertedCommits: 0 }, { revertedCommits: 1 }],
    ['follow-up fixes', { followUpFixCommits: 0 }, { followUpFixCommits: 1 }],
    ['undone turns', { undoneTurns: 0 }, { undoneTurns: 3 }],
    ['test passes', { testPasses: 2 }, { testPasses: 0 }],
    ['bugs', { bugs: 0 }, { bugs: 1 }],
    ['tool failures', { toolFailures: 0 }, { toolFailures: 10 }],
  ])('better %s rank higher', (_name, better, worse) => {
    const result = recommend([...work('build', 'm/better', 20, { ...BASE, ...better }), ...work('build', 'm/worse', 20, { ...BASE, ...worse })], { prefer: 'quality' });
    const role = roleOf(result, 'build');
    expect(role.pick.model).toBe('m/better');
    expect(role.runnerUp?.model).toBe('m/worse');
    expect(setupOf(result, 'build', 'm/better').score).toBeGreaterThan(setupOf(result, 'build', 'm/worse').score);
  });

  it.each<[string, Partial<UsageRecord>, Partial<UsageRecord>]>([
    // Same distance on each: the user's grade outweighs the objective signal, which outweighs the self-grade.
    ['user grades over reverts', { userGradeSum: 5, revertedCommits: 1 }, { userGradeSum: 2, revertedCommits: 0 }],
    ['user grades over self-grades', { userGradeSum: 5, selfGradeSum: -1 }, { userGradeSum: 2, selfGradeSum: 5 }],
    ['user grades over agent-reported ones', { userGradeSum: 5, reportedGradeSum: -1 }, { userGradeSum: 2, reportedGradeSum: 5 }],
    ['reverts over self-grades', { revertedCommits: 0, selfGradeSum: -1 }, { revertedCommits: 1, selfGradeSum: 5 }],
    ['undo over self-grades', { undoneTurns: 0, selfGradeSum: -1 }, { undoneTurns: 2, selfGradeSum: 5 }],
    ['agent-reported grades over self-grades', { reportedGradeSum: 5, selfGradeSum: -1 }, { reportedGradeSum: -1, selfGradeSum: 5 }],
  ])('%s', (_name, winner, loser) => {
    const result = recommend([...work('build', 'm/winner', 20, { ...BASE, ...winner }), ...work('build', 'm/loser', 20, { ...BASE, ...loser })], { prefer: 'quality' });
    expect(roleOf(result, 'build').pick.model).toBe('m/winner');
  });

  it('ranks a setup no user ever graded on the objective signals', () => {
    const ungraded = { ...BASE, userGradedCommits: 0, userGradeSum: 0, reportedGradedCommits: 0, reportedGradeSum: 0, selfGradedCommits: 0, selfGradeSum: 0 };
    const result = recommend([...work('build', 'm/steady', 20, ungraded), ...work('build', 'm/shaky', 20, { ...ungraded, revertedCommits: 1 })], { prefer: 'quality' });
    const role = roleOf(result, 'build');
    expect(role.pick.model).toBe('m/steady');
    expect(role.runnerUp?.why).toContain('20 of 40 commits reverted');
    expect(role.pick.signals.map((s) => s.name)).not.toContain('userGrade');
  });

  it('reads an old record (grades before provenance) as agent-reported grades, their mean per commit, as report does', () => {
    const old = work('build', 'm/a', 10, { commits: 2, toolCalls: 10, gradedCommits: 2, gradeSum: 14 });
    const same = work('build', 'm/a', 10, { commits: 2, toolCalls: 10, reportedGradedCommits: 2, reportedGradeSum: 7 });
    const other = work('build', 'm/b', 10, { commits: 2, toolCalls: 10, selfGradedCommits: 2, selfGradeSum: 2, reportedGradedCommits: 2, reportedGradeSum: 2 });
    const fromOld = setupOf(recommend([...old, ...other]), 'build', 'm/a');
    const fromNew = setupOf(recommend([...same, ...other]), 'build', 'm/a');
    expect(fromOld.score).toBe(fromNew.score);
    expect(fromOld.interval).toEqual(fromNew.interval);
    expect(fromOld.why).toBe(fromNew.why);
  });
});

describe('evidence thresholds', () => {
  const mediocre = { ...BASE, userGradeSum: 1 };
  const excellent = { ...BASE, userGradeSum: 5, revertedCommits: 0, undoneTurns: 0, testPasses: 2, toolFailures: 0 };

  it.each([
    [MIN_PICK_COMMITS - 1, false],
    [MIN_PICK_COMMITS, true],
  ])('an excellent setup with %p commits may be the pick: %p', (commits, picked) => {
    const result = recommend([...work('build', 'm/solid', 20, mediocre), ...work('build', 'm/new', 1, { ...excellent, commits, userGradedCommits: commits, userGradeSum: 5 * commits })], {
      prefer: 'quality',
    });
    const role = roleOf(result, 'build');
    expect(role.pick.model).toBe(picked ? 'm/new' : 'm/solid');
    expect(setupOf(result, 'build', 'm/new').thin).toBe(!picked);
    expect(result.worthTrying.some((trial) => trial.model === 'm/new')).toBe(!picked);
  });

  it('needs fewer sessions to settle a trial that already has more of its own', () => {
    const trial = (sessions: number) =>
      recommend([...work('build', 'm/solid', 20, mediocre), ...work('build', 'm/new', sessions, { ...excellent, commits: 1, userGradedCommits: 1, userGradeSum: 5 })]).worthTrying.find((t) => t.model === 'm/new');
    const one = trial(1);
    const four = trial(4);
    expect(one && four && one.sessionsToSettle > four.sessionsToSettle).toBe(true);
  });

  it('offers two lucky commits as worth trying, labelled an experiment, never as the pick', () => {
    const result = recommend([...work('build', 'm/solid', 20, mediocre), ...work('build', 'm/lucky', 1, { ...excellent, commits: 2, userGradedCommits: 2, userGradeSum: 10 })]);
    const role = roleOf(result, 'build');
    expect(role.pick.model).toBe('m/solid');
    expect(role.runnerUp?.model).toBe('m/lucky');
    expect(result.worthTrying).toEqual([
      expect.objectContaining({ agent: 'build', model: 'm/lucky', n: 2, experiment: true, insteadOf: 'm/solid' }),
    ]);
    expect(result.worthTrying[0]?.why).toMatch(/^only 2 commits, too little to pick; user 5\.0\/5 over 2 commits/);
    expect(setupOf(result, 'build', 'm/lucky').interval[1]).toBeGreaterThan(role.pick.score);
    expect(result.worthTrying[0]?.sessionsToSettle).toBeGreaterThanOrEqual(1);
    expect(formatRecommendation(result)).toMatch(/about \d+ more sessions? would settle it/);
  });

  it('does not offer a thin setup whose upper bound stays below the pick', () => {
    const awful = { ...BASE, userGradeSum: -1, revertedCommits: 2, undoneTurns: 4, testPasses: 0, toolFailures: 20, bugs: 2 };
    const result = recommend([...work('build', 'm/solid', 40, excellent), ...work('build', 'm/bad', 1, { ...awful, commits: 2, userGradedCommits: 2, userGradeSum: -2 })]);
    expect(result.worthTrying).toEqual([]);
    expect(roleOf(result, 'build').alternatives).toEqual([]);
  });

  it('picks among thin setups when nothing has more evidence, and says the pick is uncertain', () => {
    const result = recommend([...work('build', 'm/a', 1, { ...excellent, commits: 3 }), ...work('build', 'm/b', 1, { ...mediocre, commits: 3 })]);
    const role = roleOf(result, 'build');
    expect(role.pick.model).toBe('m/a');
    expect(role.thinEvidence).toBe(true);
    expect(role.certain).toBe(false);
    expect(result.worthTrying).toEqual([]);
  });

  it.each([
    [MIN_PICK_SESSIONS - 1, true],
    [MIN_PICK_SESSIONS, false],
  ])('a role that never commits counts sessions: %p sessions are thin: %p', (sessions, thin) => {
    const planning = { toolCalls: 20, toolFailures: 1, turns: 4, undoneTurns: 0 };
    const result = recommend(work('plan', 'm/p', sessions, planning));
    const role = roleOf(result, 'plan');
    expect(role.pick.thin).toBe(thin);
    // Thin evidence is said once, on the pick's line, and not again (or contradicted) in its why.
    expect(role.pick.why).not.toMatch(/too little to pick/);
    expect(describeConfidence(role).includes(`thin evidence: only ${sessions} sessions`)).toBe(thin);
  });

  it('commits to a clear pick on solid evidence when applying', () => {
    const result = recommend([...work('build', 'm/a', 20, excellent), ...work('build', 'm/b', 20, { ...excellent, userGradeSum: -2 })]);
    expect(roleOf(result, 'build')).toMatchObject({ pick: { model: 'm/a' }, confidence: 'clear', thinEvidence: false, certain: true });
  });

  it('applies a likely pick on solid evidence, as a clear one', () => {
    // 20 sessions each of 2 commits, one graded: m/a 3.8 a grade against m/b's 3.0 on the same work.
    const plain = { commits: 2, userGradedCommits: 1, userGradeSum: 3, toolCalls: 10, turns: 2 };
    const result = recommend([...work('build', 'm/a', 20, { ...plain, userGradeSum: 3.8 }), ...work('build', 'm/b', 20, plain)]);
    expect(roleOf(result, 'build')).toMatchObject({ pick: { model: 'm/a' }, confidence: 'likely', thinEvidence: false, certain: true });
  });

  it('says the only setup of a role was compared with nothing, and does not apply it', () => {
    // One model in the role, however well evidenced: nothing was compared (the text says "nothing to compare it with").
    const result = recommend([...work('build', 'm/a', 20, excellent)]);
    expect(roleOf(result, 'build')).toMatchObject({ confidence: 'no alternative', probabilityBest: 1, thinEvidence: false, certain: false, runnerUp: null });
    expect(describeConfidence(roleOf(result, 'build'))).toBe('only model used in this role, so nothing to compare it with');
    expect(result.setup).toEqual([{ agent: 'build', model: 'm/a', confidence: 'no alternative' }]);
  });
});

describe('a setup alone in its role', () => {
  const graded = (commits: number, grade: number): Partial<UsageRecord> => ({ commits, userGradedCommits: commits, userGradeSum: grade * commits, toolCalls: 0 });

  it('is scored on its own work against knowing nothing: one commit you graded 5 lifts it above the middle, with a wide interval', () => {
    const one = setupOf(recommend(work('general', 'm/g', 1, graded(1, 5))), 'general', 'm/g');
    expect(one.score).toBeGreaterThan(50);
    expect(one.interval[1] - one.interval[0]).toBeGreaterThan(30);
    expect(one.why).toContain('user 5.0/5 over 1 commit');
    // One commit graded -1: below the middle, as wide.
    const bad = setupOf(recommend(work('general', 'm/g', 1, graded(1, -1))), 'general', 'm/g');
    expect(bad.score).toBeLessThan(50);
    expect(bad.interval[1] - bad.interval[0]).toBeGreaterThan(30);
  });

  it('counts what was seen of its work, and takes a revert, bug or undo never recorded for nothing', () => {
    const score = (counters: Partial<UsageRecord>) => setupOf(recommend(work('general', 'm/g', 5, counters)), 'general', 'm/g').score;
    // Every tool call fine, every test run passed: seen, and good.
    expect(score({ toolCalls: 10 })).toBeGreaterThan(50);
    expect(score({ testRuns: 2, testPasses: 2 })).toBeGreaterThan(50);
    // Every commit reverted: seen, and bad. Commits with no revert on record: nothing either way.
    expect(score({ commits: 2, revertedCommits: 2 })).toBeLessThan(50);
    expect(score({ commits: 2 })).toBe(50);
  });

  it('moves further and narrows with more of the same work', () => {
    const one = setupOf(recommend(work('general', 'm/g', 1, graded(1, 5))), 'general', 'm/g');
    const ten = setupOf(recommend(work('general', 'm/g', 10, graded(1, 5))), 'general', 'm/g');
    expect(ten.score).toBeGreaterThan(one.score);
    expect(ten.interval[1] - ten.interval[0]).toBeLessThan(one.interval[1] - one.interval[0]);
  });

  it('is judged on the same work whether it was done on this project or an unlike one', () => {
    const here = setupOf(recommend(work('general', 'm/g', 3, graded(1, 5))), 'general', 'm/g');
    const elsewhere = setupOf(recommend(work('general', 'm/g', 3, graded(1, 5), '/elsewhere'), { similarity: { '/elsewhere': 0.2 } }), 'general', 'm/g');
    expect(elsewhere.why).toContain('user 5.0/5');
    expect(here.why).toContain('user 5.0/5');
    expect(Math.abs(elsewhere.score - here.score)).toBeLessThan(here.interval[1] - here.interval[0]);
  });
});

describe('confidence', () => {
  it.each([
    [1, null, 'clear'],
    [0.95, 10, 'clear'],
    [0.9499, 10, 'likely'],
    [0.8, 10, 'likely'],
    [0.7999, 10, 'close call'],
    [0.99, PRACTICAL_LEAD, 'clear'],
    [0.99, PRACTICAL_LEAD - 0.01, 'close call'],
    [0.5, null, 'close call'],
  ] as const)('P(best) %p with a lead of %p points is %p', (probability, lead, expected) => {
    expect(confidenceOf(probability, lead)).toBe(expected);
  });

  it('calls two equal setups a close call and leaves them out of --apply', () => {
    const result = recommend([...work('build', 'm/a', 30, BASE), ...work('build', 'm/b', 30, BASE)]);
    const role = roleOf(result, 'build');
    expect(role.confidence).toBe('close call');
    expect(role.probabilityBest).toBeCloseTo(0.5, 2);
    expect(role.certain).toBe(false);
  });

  it('calls a lead under two points a close call however sure it is', () => {
    // Tool failures only, on plenty of calls: 10% against 11%, a sure but practically nil difference.
    const usage = [...work('plan', 'm/a', 2000, { toolCalls: 10, toolFailures: 1 }), ...work('plan', 'm/b', 1800, { toolCalls: 10, toolFailures: 1 }), ...work('plan', 'm/b', 200, { toolCalls: 10, toolFailures: 2 })];
    const role = roleOf(recommend(usage), 'plan');
    expect(role.pick.model).toBe('m/a');
    expect(role.probabilityBest).toBeGreaterThan(0.95);
    expect(role.pick.score - (role.runnerUp?.score ?? 0)).toBeLessThan(PRACTICAL_LEAD);
    expect(role.confidence).toBe('close call');
  });

  it('calls a large lead on plenty of evidence clear', () => {
    const result = recommend([...work('build', 'm/a', 60, { ...BASE, userGradeSum: 5 }), ...work('build', 'm/b', 60, { ...BASE, userGradeSum: -1, revertedCommits: 1 })]);
    expect(roleOf(result, 'build')).toMatchObject({ confidence: 'clear', certain: true });
    expect(roleOf(result, 'build').probabilityBest).toBeGreaterThan(0.99);
  });
});

describe('cost', () => {
  const pricey = { ...BASE, cost: 2 };
  const cheap = { ...BASE, cost: 0.5 };

  it.each<[Preference, string]>([
    ['balanced', 'm/cheap'],
    ['cheap', 'm/cheap'],
  ])('with equal outcomes, prefer %s picks %s', (prefer, model) => {
    const result = recommend([...work('build', 'm/pricey', 20, pricey), ...work('build', 'm/cheap', 20, cheap)], { prefer });
    expect(roleOf(result, 'build').pick.model).toBe(model);
  });

  it('ignores cost when quality is preferred: equal outcomes score the same', () => {
    const result = recommend([...work('build', 'm/pricey', 20, pricey), ...work('build', 'm/cheap', 20, cheap)], { prefer: 'quality' });
    expect(setupOf(result, 'build', 'm/pricey').score).toBe(setupOf(result, 'build', 'm/cheap').score);
  });

  it('lets a clearly better setup win at a higher price unless cheap is preferred', () => {
    const usage = [...work('build', 'm/better', 30, { ...BASE, userGradeSum: 5, cost: 2 }), ...work('build', 'm/cheap', 30, { ...BASE, userGradeSum: 2, cost: 0.25 })];
    expect(roleOf(recommend(usage, { prefer: 'quality' }), 'build').pick.model).toBe('m/better');
    expect(roleOf(recommend(usage, { prefer: 'balanced' }), 'build').pick.model).toBe('m/better');
    expect(roleOf(recommend(usage, { prefer: 'cheap' }), 'build').pick.model).toBe('m/cheap');
  });

  it('moves the score by the cost share: as costly as the role is 1/2, cheaper more', () => {
    const usage = [...work('build', 'm/pricey', 20, pricey), ...work('build', 'm/cheap', 20, cheap)];
    const quality = recommend(usage, { prefer: 'quality' });
    const base = setupOf(quality, 'build', 'm/cheap').score;
    for (const prefer of ['balanced', 'cheap'] as const) {
      const result = recommend(usage, { prefer });
      const share = COST_SHARE[prefer];
      // Role cost 1.25/accepted commit; the cheap one's shrunk cost is (10 + 20·0.625) / 60 = 0.375.
      const costValue = 0.625 / (0.625 + 0.375);
      expect(setupOf(result, 'build', 'm/cheap').score).toBeCloseTo((1 - share) * base + share * 100 * costValue, 0);
    }
    expect(PREFERENCES).toEqual(['quality', 'balanced', 'cheap']);
    expect(COST_SHARE.quality).toBe(0);
    expect(COST_SHARE.balanced).toBeLessThan(COST_SHARE.cheap);
  });

  it.each([
    ['cost over accepted commits', { commits: 12, revertedCommits: 1, followUpFixCommits: 1, cost: 10 }, 1],
    ['no cost recorded', { commits: 12, cost: 0 }, null],
    ['no commit held', { commits: 2, revertedCommits: 2, cost: 1 }, null],
  ])('cost per accepted commit: %s', (_name, counters, expected) => {
    const result = recommend(work('build', 'm/a', 1, { toolCalls: 5, ...counters }));
    expect(roleOf(result, 'build').pick.costPerAcceptedCommit).toBe(expected);
  });
});

describe('scores and intervals', () => {
  it('gives a setup alone in its role its own share against a uniform prior, with the 80% interval of that Beta posterior', () => {
    // Only tool failures are known: 90 of 100 calls fine; the prior knows nothing (Beta(1, 1): 0.5 as 2 trials).
    const result = recommend(work('plan', 'm/p', 10, { toolCalls: 10, toolFailures: 1 }));
    const pick = roleOf(result, 'plan').pick;
    const mean = (90 + 1) / (100 + 2);
    const sd = Math.sqrt((mean * (1 - mean)) / (100 + 2 + 1));
    expect(pick.score).toBe(Math.round(1000 * mean) / 10);
    expect(pick.interval).toEqual([Math.round(1000 * (mean - 1.2815515655446004 * sd)) / 10, Math.round(1000 * (mean + 1.2815515655446004 * sd)) / 10]);
  });

  it('narrows the interval with more evidence, always around the score', () => {
    const widths = [5, 50, 500].map((sessions) => {
      const pick = roleOf(recommend([...work('build', 'm/a', sessions, BASE), ...work('build', 'm/b', sessions, { ...BASE, userGradeSum: 5 })]), 'build').pick;
      expect(pick.interval[0]).toBeLessThanOrEqual(pick.score);
      expect(pick.interval[1]).toBeGreaterThanOrEqual(pick.score);
      return pick.interval[1] - pick.interval[0];
    });
    expect(widths[0]).toBeGreaterThan(widths[1] ?? 0);
    expect(widths[1]).toBeGreaterThan(widths[2] ?? 0);
  });

  it('scores a setup with no measurable signal at the middle', () => {
    const result = recommend(work('general', 'm/g', 3, { messages: 2 }));
    // Nothing known: the middle, with the interval of a uniform share (variance 1/12), not a certain 50.
    const half = 100 * 1.2815515655446004 * Math.sqrt(1 / 12);
    expect(roleOf(result, 'general').pick).toMatchObject({ score: 50, interval: [Math.round((50 - half) * 10) / 10, Math.round((50 + half) * 10) / 10], n: 0, sessions: 3 });
  });

  it('breaks score ties by commits, then sessions, then model name', () => {
    const tied = recommend([...work('build', 'm/b', 10, BASE), ...work('build', 'm/a', 10, BASE)], { prefer: 'quality' });
    expect(roleOf(tied, 'build').pick.model).toBe('m/a');
    // Every commit held and nothing else is known: no signal tells them apart, so all sit at the
    // middle (not at a confident-looking 100), whatever their evidence.
    const clean = { commits: 2 };
    const byCommits = recommend([...work('build', 'm/a', 10, clean), ...work('build', 'm/b', 12, clean), ...work('build', 'm/c', 11, clean)]);
    expect(byCommits.recommendations.map((r) => [r.model, r.score])).toEqual([['m/b', 50], ['m/c', 50], ['m/a', 50]]);
    expect(roleOf(byCommits, 'build').tie).toBe(true);
    expect(roleOf(byCommits, 'build').pick.model).toBe('m/b');
    const bySessions = recommend([...work('general', 'm/a', 6, { messages: 1 }), ...work('general', 'm/b', 8, { messages: 1 })]);
    expect(bySessions.recommendations.map((r) => r.model)).toEqual(['m/b', 'm/a']);
    expect(roleOf(bySessions, 'general').pick.model).toBe('m/b');
  });

  it('breaks ties in the old flat list across roles by commits, then by agent and model', () => {
    const result = recommend([...work('review', 'm/a', 10, { commits: 2 }), ...work('build', 'm/z', 10, { commits: 2 }), ...work('build', 'm/y', 10, { commits: 3 })]);
    expect(result.recommendations.map((r) => `${r.agent} ${r.model}`)).toEqual(['build m/y', 'build m/z', 'review m/a']);
  });

  it('narrows the interval by the share cost takes, since cost is measured, not sampled', () => {
    const usage = [...work('build', 'm/a', 20, BASE), ...work('build', 'm/b', 20, { ...BASE, cost: 1 })];
    const width = (prefer: Preference) => {
      const pick = setupOf(recommend(usage, { prefer }), 'build', 'm/a');
      return pick.interval[1] - pick.interval[0];
    };
    expect(width('cheap')).toBeCloseTo((1 - COST_SHARE.cheap) * width('quality'), 0);
    expect(width('cheap')).toBeLessThan(width('balanced'));
    expect(width('balanced')).toBeLessThan(width('quality'));
  });

  it('reports each signal\'s estimate and the role average it was shrunk toward, and the user-graded commits', () => {
    const pick = roleOf(recommend(work('plan', 'm/p', 10, { toolCalls: 10, toolFailures: 1 })), 'plan').pick;
    // Alone in its role: shrunk toward knowing nothing (0.5), not toward its own share.
    expect(pick.signals).toEqual([{ name: 'toolFailures', estimate: Math.round((1000 * 91) / 102) / 1000, roleAverage: 0.5 }]);
    const graded = roleOf(recommend(work('build', 'm/b', 10, BASE)), 'build').pick;
    expect(graded.userGradedCommits).toBe(10);
    // Every self-graded commit here is also user-graded: the self-grades add nothing and are left out;
    // so are signals nobody in the role varies on (no commit reverted, no bug).
    expect(graded.signals.map((signal) => signal.name)).toEqual(['userGrade', 'undo', 'reportedGrade', 'tests', 'toolFailures']);
  });
});

describe('roles, the whole setup and the old list', () => {
  it('answers per role, in name order, with the resulting setup and every setup in the old list', () => {
    const usage = [
      ...work('review', 'm/r1', 20, BASE),
      ...work('build', 'm/b1', 20, { ...BASE, userGradeSum: 5 }),
      ...work('build', 'm/b2', 20, BASE),
      ...work('build', 'm/b3', 20, { ...BASE, userGradeSum: -1 }),
      ...work('unknown', 'm/b1', 20, BASE),
      ...work('build', 'unknown', 20, BASE),
    ];
    const result = recommend(usage);
    expect(result.prefer).toBe('balanced');
    expect(result.roles.map((role) => role.agent)).toEqual(['build', 'review']);
    expect(result.setup).toEqual([
      { agent: 'build', model: 'm/b1', confidence: roleOf(result, 'build').confidence },
      { agent: 'review', model: 'm/r1', confidence: 'no alternative' },
    ]);
    const build = roleOf(result, 'build');
    expect([build.pick.model, build.runnerUp?.model, ...build.alternatives.map((a) => a.model)]).toEqual(['m/b1', 'm/b2', 'm/b3']);
    expect(result.recommendations.map((r) => `${r.agent} ${r.model}`).sort()).toEqual(['build m/b1', 'build m/b2', 'build m/b3', 'review m/r1']);
    const scores = result.recommendations.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(result.message).toBeUndefined();
  });

  it.each([
    ['no records', []],
    ['only unknown agents and models', [...work('unknown', 'm/a', 3, BASE), ...work('build', 'unknown', 3, BASE)]],
  ])('says plainly when there is nothing to rank (%s), and points at backfill', (_name, usage) => {
    const result = recommend(usage);
    expect(result).toMatchObject({ roles: [], setup: [], worthTrying: [], recommendations: [], message: NO_HISTORY_MESSAGE });
    expect(NO_HISTORY_MESSAGE).toMatch(/^No history yet: nothing has been recorded for any agent setup\. Import your past OpenCode sessions with "agent-tracker backfill", or work in OpenCode .*\(\/grade\); then run recommend again\.$/);
    expect(formatRecommendation(result)).toContain(NO_HISTORY_MESSAGE);
  });
});

describe('similarity', () => {
  const LIKE = '/p/alike';
  const HALF = '/p/half';

  it('weighs records by the square of similarity, relative to the most alike project', () => {
    const result = recommend([...work('build', 'm/a', 1, { commits: 10 }), ...work('build', 'm/a', 1, { commits: 10 }, HALF)], { similarity: { [HALF]: 0.5 } });
    // 10 × 1 + 10 × (0.05 + 0.95 × 0.25)
    expect(setupOf(result, 'build', 'm/a')).toMatchObject({ evidence: 12.9, similarity: 0.75 });
  });

  it('counts all history alike when nothing alike exists', () => {
    const result = recommend(work('build', 'm/a', 1, { commits: 10 }, HALF), { similarity: { [HALF]: 0.5 } });
    expect(setupOf(result, 'build', 'm/a').evidence).toBe(10);
  });

  it('counts a project without a profile as unlike', () => {
    const result = recommend([...work('build', 'm/a', 1, { commits: 10 }), ...work('build', 'm/a', 1, { commits: 20 }, '/p/unprofiled')]);
    expect(setupOf(result, 'build', 'm/a')).toMatchObject({ evidence: 11, similarity: 0.33 });
  });

  it('picks what did best on alike projects over what did best elsewhere', () => {
    const good = { ...BASE, userGradeSum: 5 };
    const bad = { ...BASE, userGradeSum: -1, revertedCommits: 1 };
    const usage = [...work('build', 'm/a', 30, good, LIKE), ...work('build', 'm/a', 30, bad, '/p/other'), ...work('build', 'm/b', 30, bad, LIKE), ...work('build', 'm/b', 30, good, '/p/other')];
    expect(roleOf(recommend(usage, { similarity: { [LIKE]: 0.9, '/p/other': 0.1 } }), 'build').pick.model).toBe('m/a');
    expect(roleOf(recommend(usage, { similarity: { [LIKE]: 0.1, '/p/other': 0.9 } }), 'build').pick.model).toBe('m/b');
  });

  it.each([
    [0.1, true],
    [0.29, true],
    [0.3, false],
  ])('says when a setup worked only on unlike projects (similarity %p: %p)', (similarity, unlike) => {
    const result = recommend([...work('build', 'm/a', 20, BASE, '/p/far'), ...work('build', 'm/b', 20, BASE)], { similarity: { '/p/far': similarity } });
    expect(setupOf(result, 'build', 'm/a').why.startsWith('only on unlike projects; ')).toBe(unlike);
    expect(setupOf(result, 'build', 'm/b').why.startsWith('mostly')).toBe(false);
  });

  it("quotes in the why the counts on projects like this one, where the setup's other work counts less", () => {
    // Per session 2 commits, one graded by the user. On the alike project m/a got 5 and m/b -1 (2 bugs
    // each for m/b); on the far one the reverse, with twice the sessions, so over all projects m/b
    // has the better user mean ((20 × 5 + 10 × -1) / 30 = 3.0 against m/a's 1.0). The pick is m/a,
    // and its why must not quote the all-project figures, which would say the runner-up did better.
    const good = { ...BASE, userGradeSum: 5 };
    const bad = { ...BASE, userGradeSum: -1, bugs: 2 };
    const usage = [...work('build', 'm/a', 10, good, LIKE), ...work('build', 'm/a', 20, bad, '/p/far'), ...work('build', 'm/b', 10, bad, LIKE), ...work('build', 'm/b', 20, good, '/p/far')];
    const role = roleOf(recommend(usage, { similarity: { [LIKE]: 0.9, '/p/far': 0.1 } }), 'build');
    expect(role.pick.model).toBe('m/a');
    // Two thirds of its work was on the far project: said first.
    expect(role.pick.why).toMatch(/^mostly on unlike projects; on projects like this one: /);
    expect(role.pick.why).toContain('user 5.0/5 over 10 commits');
    expect(role.pick.why).not.toContain('over 30 commits');
    expect(role.runnerUp?.why).toContain('user -1.0/5 over 10 commits');
    expect(role.runnerUp?.why).toContain('20 bugs in 20 commits');
  });

  it('quotes every project when all of its work counts alike, or none of it is like this one', () => {
    const usage = [...work('build', 'm/a', 10, BASE, LIKE), ...work('build', 'm/a', 10, BASE, '/p/also'), ...work('build', 'm/b', 10, BASE, '/p/far')];
    const result = recommend(usage, { similarity: { [LIKE]: 0.9, '/p/also': 0.9, '/p/far': 0.1 } });
    // m/a: two projects, both alike (the same weight): its 20 sessions, 20 graded commits.
    expect(setupOf(result, 'build', 'm/a').why).toContain('user 2.0/5 over 20 commits');
    expect(setupOf(result, 'build', 'm/a').why).not.toContain('like this one');
    // m/b: only unlike work: said once, before its counts.
    expect(setupOf(result, 'build', 'm/b').why).toMatch(/^only on unlike projects; (?!on projects like)/);
    expect(setupOf(result, 'build', 'm/b').why).toContain('over 10 commits');
  });

  it('counts a project exactly at the similarity threshold as like this one', () => {
    const usage = [...work('build', 'm/a', 10, BASE), ...work('build', 'm/a', 10, BASE, '/p/edge'), ...work('build', 'm/b', 20, BASE)];
    const why = setupOf(recommend(usage, { similarity: { '/p/edge': 0.3 } }), 'build', 'm/a').why;
    expect(why).toContain('user 2.0/5 over 20 commits');
    expect(why).not.toContain('like this one');
  });

  it('calls work mostly unlike only when most of it was on projects unlike this one', () => {
    // m/a: 6 sessions × 2 commits on a project alike at 0.4 and 4 × 2 on one at 0.1. Its mean
    // similarity is (12 × 0.4 + 8 × 0.1) / 20 = 0.28, under the 0.3 that makes a project alike,
    // yet 12 of its 20 commits are on the alike one. m/b: the reverse, 8 of 20 alike.
    // m/c: exactly half of each: not mostly unlike.
    const usage = [
      ...work('build', 'm/a', 6, BASE, '/p/near'),
      ...work('build', 'm/a', 4, BASE, '/p/far'),
      ...work('build', 'm/b', 4, BASE, '/p/near'),
      ...work('build', 'm/b', 6, BASE, '/p/far'),
      ...work('build', 'm/c', 5, BASE, '/p/near'),
      ...work('build', 'm/c', 5, BASE, '/p/far'),
    ];
    const result = recommend(usage, { similarity: { '/p/near': 0.4, '/p/far': 0.1 } });
    expect(setupOf(result, 'build', 'm/c').why).toMatch(/^on projects like this one: /);
    expect((12 * 0.4 + 8 * 0.1) / 20).toBeLessThan(0.3);
    expect(setupOf(result, 'build', 'm/a').why).toMatch(/^on projects like this one: /);
    expect(setupOf(result, 'build', 'm/b').why).toMatch(/^mostly on unlike projects; on projects like this one: /);
  });

  it("keeps 'only on unlike projects' in the pick's own why, where the history holds a like project", () => {
    // m/a did well, all of it on a far project; m/b middling on the target itself.
    const usage = [...work('build', 'm/a', 20, { ...BASE, userGradeSum: 5 }, '/p/far'), ...work('build', 'm/b', 20, BASE)];
    const role = roleOf(recommend(usage, { similarity: { '/p/far': 0.1 } }), 'build');
    expect(role.pick.model).toBe('m/a');
    expect(role.pick.why.startsWith('only on unlike projects; ')).toBe(true);
    expect(role.runnerUp?.why.startsWith('only')).toBe(false);
  });

  it('says once, in the caveat, that nothing in the history is like the target, and never that the pick rests on like projects', () => {
    const usage = [...work('build', 'm/a', 5, { ...BASE, userGradeSum: 5 }, '/p/far'), ...work('build', 'm/b', 5, BASE, '/p/far')];
    const role = roleOf(recommend(usage, { similarity: { '/p/far': 0.1 } }), 'build');
    expect(role.caveat).toMatch(/^no project like this one \(rust\/axum\/api\) in the history/);
    // 5 sessions × 2 commits: under SURE_EVIDENCE.
    expect(role.caveat).toContain(`the pick rests on ${5 * 2} commits, too few to be sure`);
    expect(role.caveat).not.toContain('rests on 10 commits on projects like this one');
    for (const setup of [role.pick, role.runnerUp]) expect(setup?.why).not.toContain('unlike');
  });

  it('measures the similarity of tool-only work by its tool calls', () => {
    const result = recommend([...work('plan', 'm/a', 1, { toolCalls: 30 }), ...work('plan', 'm/a', 1, { toolCalls: 10 }, HALF), ...work('plan', 'm/a', 1, { toolCalls: 0 }, '/p/none')], { similarity: { [HALF]: 0.5 } });
    // (30 × 1 + 10 × 0.5 + 1 × 0) / 41: a record without calls still counts as one unit of work.
    expect(setupOf(result, 'plan', 'm/a').similarity).toBe(0.85);
  });
});

describe('the answer in words', () => {
  // Computed inside each test, not at load: mutation testing maps each test to the code it runs.
  const clearRole = () => roleOf(recommend([...work('build', 'm/a', 30, { ...BASE, userGradeSum: 5 }), ...work('build', 'm/b', 30, BASE)]), 'build');

  it.each<[string, Partial<RoleRecommendation>, RegExp]>([
    ['a clear pick', {}, /^clear \(\d+% likely the best\)$/],
    ['a close call on thin evidence', { confidence: 'close call' as const, probabilityBest: 0.554, thinEvidence: true }, /^close call \(55% likely the best, thin evidence: only 60 commits\)$/],
    ['a tie', { tie: true, confidence: 'close call' as const, probabilityBest: 0.5 }, /^a tie with m\/b: either would do \(50% likely the best\)$/],
    // Just under the 80% line "likely" starts at: the figure beside "close call" must not read 80%.
    ['a close call just under the likely line', { confidence: 'close call' as const, probabilityBest: 0.797 }, /^close call \(79% likely the best\)$/],
    ['a likely pick just under the clear line', { confidence: 'likely' as const, probabilityBest: 0.9496 }, /^likely \(94% likely the best\)$/],
    // Equal scores where one side has no work on projects like this one: not "either would do".
    ['a tie with a setup unseen on projects like this one', { tie: true, confidence: 'close call' as const, probabilityBest: 0.5, runnerUp: { ...clearRole().runnerUp!, similarity: 0 } }, /^no clear difference from m\/b yet, but m\/b has no work on projects like this one to show \(50% likely the best\)$/],
    ['a tie picked from a setup unseen on projects like this one', { tie: true, confidence: 'close call' as const, probabilityBest: 0.5, pick: { ...clearRole().pick, similarity: 0 } }, /^no clear difference from m\/b yet, but m\/a has no work on projects like this one to show \(50% likely the best\)$/],
    ['a tie of two setups unseen here while a third has work here', { tie: true, confidence: 'close call' as const, probabilityBest: 0.5, pick: { ...clearRole().pick, similarity: 0 }, runnerUp: { ...clearRole().runnerUp!, similarity: 0 }, alternatives: [{ ...clearRole().pick, model: 'm/c' }] }, /^no clear difference from m\/b yet, but m\/a has no work on projects like this one to show \(50% likely the best\)$/],
    ['a clear pick near certainty', { confidence: 'clear' as const, probabilityBest: 0.996 }, /^clear \(99% likely the best\)$/],
    ['the only model', { runnerUp: null }, /^only model used in this role, so nothing to compare it with$/],
    ['the only model, thin', { runnerUp: null, thinEvidence: true }, /^only model used in this role, so nothing to compare it with, thin evidence: only 60 commits$/],
  ])('confidence of %s', (_name, overrides, expected) => {
    expect(describeConfidence({ ...clearRole(), ...overrides })).toMatch(expected);
  });

  it.each([
    [{ costPerAcceptedCommit: 0.1234 }, '$0.123 per accepted commit'],
    [{ costPerAcceptedCommit: 0.1234, costEstimated: true }, '$0.123 per accepted commit (estimated)'],
    [{ costPerAcceptedCommit: null, unpricedSessions: 60, pricedSessions: 0 }, 'cost unknown'],
    [{ costPerAcceptedCommit: null, unpricedSessions: 3, pricedSessions: 57 }, 'cost unknown for 3 of its 60 sessions'],
    [{ costPerAcceptedCommit: null, unpricedSessions: 0, pricedSessions: 0 }, 'no cost recorded'],
    [{ costPerAcceptedCommit: null, unpricedSessions: 3, pricedSessions: 57, acceptedCommits: 0 }, 'no accepted commit to price'],
    // A role that never commits and never spent anything (README: "no cost recorded"), not "no accepted commit".
    [{ costPerAcceptedCommit: null, unpricedSessions: 0, pricedSessions: 0, acceptedCommits: 0 }, 'no cost recorded'],
  ])('cost %p', (fields, text) => {
    expect(describeCost({ ...clearRole().pick, ...fields })).toBe(text);
  });

  it.each([
    [{ score: 71.25, interval: [65, 78.04] as [number, number], n: 1 }, 'score 71.3 (80%: 65.0-78.0), 1 commit'],
    [{ score: 50, interval: [40, 60] as [number, number], n: 12 }, 'score 50.0 (80%: 40.0-60.0), 12 commits'],
  ])('score %p', (fields, text) => {
    expect(describeScore({ ...clearRole().pick, ...fields })).toBe(text);
  });

  it('lists each role with pick, why, runner-up and alternatives, then the experiments', () => {
    const result = recommend([...work('build', 'm/a', 30, { ...BASE, userGradeSum: 1 }), ...work('build', 'm/b', 30, { ...BASE, userGradeSum: -1 }), ...work('build', 'm/c', 30, { ...BASE, userGradeSum: -1, revertedCommits: 2 }), ...work('build', 'm/new', 1, { ...BASE, commits: 5, userGradedCommits: 5, userGradeSum: 25 })]);
    const lines = formatRecommendation(result).split('\n');
    expect(lines[2]).toBe('Recommended setup (prefer balanced), per role:');
    expect(lines[3]).toMatch(/^- build: m\/a — (clear|likely|close call) \(\d+% likely the best\)$/);
    expect(lines[4]).toMatch(/^ {4}score [\d.]+ \(80%: [\d.]+-[\d.]+\), 60 commits, \$0\.250 per accepted commit$/);
    expect(lines[5]).toMatch(/^ {4}why: /);
    expect(lines[6]).toMatch(/^ {4}runner-up: m\/b — score /);
    expect(lines[7]).toMatch(/^ {6}why: .*user -1\.0\/5 over 30 commits/);
    expect(lines[8]).toMatch(/^ {4}also: m\/c \([\d.]+\), m\/new \([\d.]+\)$/);
    expect(lines).toContain('Worth trying next (experiments: little evidence, but they might beat the pick):');
    expect(lines.find((line) => line.startsWith('- build: m/new instead of m/a'))).toMatch(/score [\d.]+ \(80%: [\d.]+-[\d.]+\), 5 commits: only 5 commits, too little to pick; /);
  });
});

describe('a role that does not commit', () => {
  it('is measured in sessions on the score line and for an experiment, not in 0 commits', () => {
    const talk = { toolCalls: 10, toolFailures: 1, turns: 3 };
    const result = recommend([...work('plan', 'm/a', 12, talk), ...work('plan', 'm/b', 8, { ...talk, toolFailures: 5 }), ...work('plan', 'm/new', 2, { ...talk, toolFailures: 0 })]);
    const lines = formatRecommendation(result).split('\n');
    expect(lines.find((line) => line.startsWith('    score '))).toMatch(/^ {4}score [\d.]+ \(80%: [\d.]+-[\d.]+\), 12 sessions, /);
    expect(lines.find((line) => line.startsWith('    runner-up: m/b'))).toMatch(/, 8 sessions, /);
    expect(result.worthTrying).toEqual([expect.objectContaining({ model: 'm/new', n: 0, sessions: 2 })]);
    expect(lines.find((line) => line.startsWith('- plan: m/new instead of m/a'))).toMatch(/\), 2 sessions: only 2 sessions, too little to pick; /);
    expect(lines.join('\n')).not.toContain('0 commits');
  });
});

describe('saying how sure it is', () => {
  const strong = { ...BASE, userGradeSum: 5 };
  const weak = { ...BASE, userGradeSum: -1, revertedCommits: 1 };

  it('never says more than MAX_THIN_PROBABILITY with fewer than SURE_EVIDENCE commits behind the pick', () => {
    // 14 sessions of 2 commits = 28 commits: below 30 however lopsided the grades.
    const sessions = Math.floor((SURE_EVIDENCE - 1) / 2);
    const role = roleOf(recommend([...work('build', 'm/a', sessions, strong), ...work('build', 'm/b', sessions, weak)]), 'build');
    expect(role.pick.model).toBe('m/a');
    expect(role.probabilityBest).toBeLessThanOrEqual(MAX_THIN_PROBABILITY);
    expect(describeConfidence(role)).not.toMatch(/100%/);
    expect(role.caveat).toMatch(/rests on 28 commits on projects like this one, too few to be sure/);
  });

  it('may be sure with plenty of evidence', () => {
    const role = roleOf(recommend([...work('build', 'm/a', 40, strong), ...work('build', 'm/b', 40, weak)]), 'build');
    expect(role.probabilityBest).toBeGreaterThan(MAX_THIN_PROBABILITY);
    expect(role.caveat).toBeUndefined();
  });

  it('calls equal scores a tie, in words, and never 100%', () => {
    const role = roleOf(recommend([...work('build', 'm/a', 40, BASE), ...work('build', 'm/b', 40, BASE)]), 'build');
    expect(role.tie).toBe(true);
    expect(role.certain).toBe(false);
    expect(describeConfidence(role)).toMatch(/^a tie with m\/[ab]: either would do \(50% likely the best\)$/);
  });

  it('gives a caveat when no project in the history is like the target', () => {
    const elsewhere = '/p/go-tool';
    const result = recommend([...work('build', 'm/a', 40, strong, elsewhere), ...work('build', 'm/b', 40, weak, elsewhere)], { similarity: { [elsewhere]: 0.1 } });
    const role = roleOf(result, 'build');
    expect(role.caveat).toMatch(/^no project like this one \(rust\/axum\/api\) in the history/);
    expect(role.certain).toBe(false);
    // However lopsided the work elsewhere, it is never a confident pick here.
    expect(role.probabilityBest).toBeLessThanOrEqual(MAX_THIN_PROBABILITY);
    expect(role.confidence).not.toBe('clear');
    expect(formatRecommendation(result)).toContain('    caveat: no project like this one (rust/axum/api)');
  });

  it('has no such caveat when a like project is in the history', () => {
    const near = '/p/rust-sibling';
    const result = recommend([...work('build', 'm/a', 40, strong, near), ...work('build', 'm/b', 40, weak, near)], { similarity: { [near]: 0.9 } });
    expect(roleOf(result, 'build').caveat).toBeUndefined();
  });
});

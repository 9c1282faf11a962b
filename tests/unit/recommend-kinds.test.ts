/**
 * Like with like: setups compared within the kinds of task they were handed, weighted by the user's
 * mix (or the target project's), and "not comparable yet" when two never did the same kind of task.
 * Expected values are worked out by hand in the comments, never with the code under test.
 */
import { describe, expect, it } from '@jest/globals';
import { NOT_COMPARABLE_PROBABILITY, recommendSetups } from '../../src/core/report/recommend.js';
import type { Recommendation } from '../../src/core/report/recommend.js';
import { MIX_PRIOR_TURNS } from '../../src/core/report/recommend-evidence.js';
import { comparable, describeKinds, fitKindEffects, KIND_EFFECT_CREDIBILITY, kindMass, kindShares, MIN_KIND_SESSIONS, mixShift, mixWeights } from '../../src/core/report/recommend-kinds.js';
import type { Stratum } from '../../src/core/report/recommend-kinds.js';
import { emptyTally, SIGNAL_CREDIBILITY } from '../../src/core/report/recommend-signals.js';
import type { Tally } from '../../src/core/report/recommend-signals.js';
import { formatRecommendation } from '../../src/core/report/recommend-text.js';
import type { ProjectProfile, UsageRecord } from '../../src/core/types.js';
import { profile } from '../helpers/synthetic-history.js';
import { usageRecord } from '../helpers/usage-record.js';

const TARGET = profile('/p/target', 'rust', 'axum', 'api', ['tokio']);
const OTHER = '/p/other';

/**
 * `sessions` sessions of one setup, each two turns of one kind (or of no recorded kind) and two
 * commits the user graded `grade` each. Nothing else varies, so the user's grade is the only signal.
 */
function graded(model: string, sessions: number, kind: 'turnsBugFix' | 'turnsDocs' | null, grade: number, project = TARGET.path): UsageRecord[] {
  return Array.from({ length: sessions }, () =>
    usageRecord({ agent: 'build', model, project, commits: 2, turns: 2, userGradedCommits: 2, userGradeSum: 2 * grade, ...(kind ? { [kind]: 2 } : {}) }),
  );
}

function recommend(usage: UsageRecord[]): Recommendation {
  const profiles = new Map<string, ProjectProfile>([[OTHER, profile(OTHER, 'rust', 'axum', 'api', ['tokio'])]]);
  return recommendSetups({ target: TARGET, history: { usage }, profiles, similarity: () => 1, prefer: 'quality' });
}

const build = (result: Recommendation) => {
  const role = result.roles.find((r) => r.agent === 'build');
  if (!role) throw new Error('no build role');
  return role;
};

describe('a record split by kind of task', () => {
  it.each<[string, Partial<UsageRecord>, [string, number][]]>([
    ['three bug-fix turns and one of docs', { turns: 4, turnsBugFix: 3, turnsDocs: 1 }, [['bug fix', 0.75], ['docs', 0.25]]],
    ['one kind', { turns: 2, turnsTests: 2 }, [['tests', 1]]],
    ['no kind recorded (a record from before task kinds)', { turns: 5 }, [['unknown', 1]]],
  ])('%s', (_name, counters, shares) => {
    expect(kindShares(usageRecord({ agent: 'build', model: 'm/a', ...counters }))).toEqual(shares);
  });

  it('gives a session with no work yet (its first turn not ended) no kind; one with work but no kind is of an unknown kind', () => {
    expect(kindShares(usageRecord({ agent: 'build', model: 'm/a', messages: 1 }))).toEqual([]);
    expect(kindShares(usageRecord({ agent: 'build', model: 'm/a', messages: 1, toolCalls: 1 }))).toEqual([['unknown', 1]]);
    expect(kindShares(usageRecord({ agent: 'build', model: 'm/a', commits: 1 }))).toEqual([['unknown', 1]]);
  });

  it('answers the same with and without a session still in its first turn (the question asked inside it)', () => {
    const before = [...graded('m/strong', 6, 'turnsBugFix', 4, OTHER), ...graded('m/rival', 6, 'turnsDocs', 4.5, OTHER)];
    const asking = usageRecord({ agent: 'build', model: 'm/rival', project: TARGET.path, messages: 1 });
    const [without, within] = [recommend(before), recommend([...before, asking])];
    expect(build(within).comparable).toBe(false);
    expect([build(within).pick.model, build(within).probabilityBest, build(within).pick.score]).toEqual([build(without).pick.model, build(without).probabilityBest, build(without).pick.score]);
  });

  it('weighs the mix by turns, and a record of work without turns as one', () => {
    expect(kindMass(usageRecord({ agent: 'build', model: 'm/a', turns: 4, turnsBugFix: 3, turnsDocs: 1 }))).toEqual([['bug fix', 3], ['docs', 1]]);
    expect(kindMass(usageRecord({ agent: 'build', model: 'm/a', turns: 0, commits: 1 }))).toEqual([['unknown', 1]]);
  });

  it.each<[string, [string, number][], [string, number][], boolean]>([
    ['a shared kind', [['bug fix', 5], ['docs', 1]], [['docs', 3]], true],
    ['no shared kind', [['bug fix', 5]], [['docs', 3]], false],
    ['a shared kind below a session', [['bug fix', 5], ['docs', MIN_KIND_SESSIONS / 2]], [['docs', 3]], false],
    ['work of an unknown kind (might be anything)', [['bug fix', 5], ['unknown', 1]], [['docs', 3]], true],
    ['nothing classified', [], [['docs', 3]], true],
  ])('comparable with %s', (_name, a, b, expected) => {
    expect(comparable(new Map(a as never), new Map(b as never))).toBe(expected);
    expect(comparable(new Map(b as never), new Map(a as never))).toBe(expected);
  });
});

describe('like with like', () => {
  // m/strong: 16 sessions of bug fixes graded 3, 4 of docs graded 5 → 3.4 over all its work.
  // m/docs: 4 sessions of bug fixes graded 2, 16 of docs graded 4 → 3.6 over all its work.
  // Within each kind m/strong is a whole grade better; pooled, m/docs looks better.
  const strong = () => [...graded('m/strong', 16, 'turnsBugFix', 3), ...graded('m/strong', 4, 'turnsDocs', 5)];
  const docs = () => [...graded('m/docs', 4, 'turnsBugFix', 2), ...graded('m/docs', 16, 'turnsDocs', 4)];

  it('the setup handed the hard bug fixes wins when it is better within every kind', () => {
    const role = build(recommend([...strong(), ...docs()]));
    expect(role.pick.model).toBe('m/strong');
    expect(role.comparable).toBe(true);
    expect(role.notComparableWith).toEqual([]);
  });

  it('without task kinds recorded the same grades favour the one that did the docs (the confounding it corrects)', () => {
    const strip = (records: UsageRecord[]) => records.map(({ turnsBugFix: _b, turnsDocs: _d, ...rest }) => rest as UsageRecord);
    expect(build(recommend(strip([...strong(), ...docs()]))).pick.model).toBe('m/docs');
  });

  it('two setups that never did the same kind of task are "not comparable yet", never ranked', () => {
    const result = recommend([...graded('m/fixer', 20, 'turnsBugFix', 3), ...graded('m/writer', 20, 'turnsDocs', 5)]);
    const role = build(result);
    expect(role.comparable).toBe(false);
    expect(role.notComparableWith).toEqual([role.runnerUp?.model]);
    expect(role.confidence).toBe('close call');
    expect(role.certain).toBe(false);
    expect(role.tie).toBe(false);
    expect(role.probabilityBest).toBeLessThanOrEqual(NOT_COMPARABLE_PROBABILITY);
    expect(NOT_COMPARABLE_PROBABILITY).toBeLessThanOrEqual(0.5);
    expect(role.caveat).toMatch(/not comparable yet: m\/(fixer|writer) did (bug fix|docs) and m\/(fixer|writer) did (bug fix|docs); they never did the same kind of task/);
    expect(formatRecommendation(result)).toMatch(/build: m\/\w+ — not comparable yet with m\/\w+: they never did the same kind of task \(\d+% likely the best\)/);
  });

  it('weights by the target project\'s own mix, shrunk toward the user\'s', () => {
    // All work: 10 sessions × 2 turns of docs on another project, 5 × 2 of bug fixes on the target:
    // docs 20, bug fix 10 turns. The prior is MIX_PRIOR_TURNS of that mix (docs 2/3, bug fix 1/3),
    // and the target adds its own 10 bug-fix turns.
    const usage = [...graded('m/a', 10, 'turnsDocs', 4, OTHER), ...graded('m/b', 5, 'turnsBugFix', 3)];
    const docsMass = MIX_PRIOR_TURNS * (20 / 30);
    const bugMass = MIX_PRIOR_TURNS * (10 / 30) + 10;
    const mix = build(recommend(usage)).taskMix;
    expect(mix.docs).toBeCloseTo(docsMass / (docsMass + bugMass), 3);
    expect(mix['bug fix']).toBeCloseTo(bugMass / (docsMass + bugMass), 3);
  });

  it('records without a kind are one unknown kind, comparable with anything', () => {
    const role = build(recommend([...graded('m/old', 20, null, 4), ...graded('m/new', 20, 'turnsDocs', 3)]));
    expect(role.comparable).toBe(true);
    expect(role.pick.model).toBe('m/old');
  });
});

/** A tally of `commits` commits of which `bugs` drew a bug: the bugs signal's share is 1 - bugs/commits. */
function bugTally(commits: number, bugs: number): Tally {
  return { ...emptyTally(), commits, bugs };
}

describe('how hard each kind of task is', () => {
  // Within each kind m/x's share of commits without a bug is 0.1 above m/y's; docs are 0.4 easier than
  // bug fixes for both. m/x did mostly bug fixes, m/y mostly docs. Trials are large, so the priors barely count.
  const big = 1_000_000;
  const x = new Map<Stratum, Tally>([['bug fix', bugTally(big, 0.5 * big)], ['docs', bugTally(big / 10, 0.1 * (big / 10))]]);
  const y = new Map<Stratum, Tally>([['bug fix', bugTally(big / 10, 0.6 * (big / 10))], ['docs', bugTally(big, 0.2 * big)]]);
  const mix = new Map<Stratum, number>([['bug fix', 0.5], ['docs', 0.5]]);

  it('is fitted together with each setup\'s own effect: docs come out 0.4 easier than bug fixes', () => {
    const difficulty = fitKindEffects([x, y], mix);
    // Only the signals with trials in these tallies: commits (accepted commits and bugs).
    expect(Object.keys(difficulty).sort()).toEqual(['acceptedCommits', 'bugs']);
    const bugs = difficulty.bugs;
    expect((bugs?.byKind.get('docs') ?? 0) - (bugs?.byKind.get('bug fix') ?? 0)).toBeCloseTo(0.4, 3);
    // Nobody's commits were reverted: no kind moves accepted commits.
    expect(difficulty.acceptedCommits?.byKind.get('docs')).toBeCloseTo(0, 6);
    // The mix's own effect is its weighted mean.
    expect(bugs?.reference).toBeCloseTo(0.5 * (bugs?.byKind.get('docs') ?? 0) + 0.5 * (bugs?.byKind.get('bug fix') ?? 0), 10);
  });

  it('reads each setup\'s share as if done on the mix', () => {
    const difficulty = fitKindEffects([x, y], mix);
    // m/x did 10/11 bug fixes and 1/11 docs: read on half and half, its share rises by
    // (0.5 - 1/11) × 0.4 (the docs it did not do) ; m/y's falls by as much.
    expect(mixShift(x, difficulty, 0).bugs?.amount).toBeCloseTo((0.5 - 1 / 11) * 0.4, 3);
    expect(mixShift(y, difficulty, 1).bugs?.amount).toBeCloseTo(-(0.5 - 1 / 11) * 0.4, 3);
    // With the shift, m/x (0.5 on bug fixes, 0.9 on docs) reads 0.7 on the mix and m/y 0.6: 0.1 apart, as within each kind.
    const read = (tallies: Map<Stratum, Tally>, index: number) => {
      const commits = [...tallies.values()].reduce((sum, t) => sum + t.commits, 0);
      const clean = [...tallies.values()].reduce((sum, t) => sum + t.commits - t.bugs, 0);
      return clean / commits + (mixShift(tallies, difficulty, index).bugs?.amount ?? 0);
    };
    expect(read(x, 0) - read(y, 1)).toBeCloseTo(0.1, 3);
  });

  it('gives a setup\'s variance only with its index in the fit, never the pool\'s', () => {
    const difficulty = fitKindEffects([x, y], mix);
    // Strictly: no variance key at all, not one left undefined.
    expect(mixShift(x, difficulty).bugs).toStrictEqual({ amount: expect.any(Number) });
    expect(mixShift(x, difficulty, 0).bugs?.variance).toBe(difficulty.bugs?.setupVariance[0]);
    expect(mixShift(new Map(), difficulty, 0)).toEqual({});
  });

  it('credits the setup handed the hard kind with its lead on moderate evidence, not the kind it was handed', () => {
    // The same shape on a human scale: 20 commits of each setup's main kind, 2 of the other. Within
    // each kind m/x is 0.1 ahead. Its own lead and the kinds' difficulty explain the same pooled gap;
    // a kind effect held back harder than the setup's own (a prior of 5 trials against 1) read m/x
    // 0.03 BEHIND m/y. Both priors only ever shrink, so the lead read is at most the true 0.1.
    const n = 20;
    const hard = new Map<Stratum, Tally>([['bug fix', bugTally(n, 0.5 * n)], ['docs', bugTally(n / 10, 0.1 * (n / 10))]]);
    const easy = new Map<Stratum, Tally>([['bug fix', bugTally(n / 10, 0.6 * (n / 10))], ['docs', bugTally(n, 0.2 * n)]]);
    const difficulty = fitKindEffects([hard, easy], mix);
    const read = (tallies: Map<Stratum, Tally>, index: number) => {
      const commits = [...tallies.values()].reduce((sum, t) => sum + t.commits, 0);
      const clean = [...tallies.values()].reduce((sum, t) => sum + t.commits - t.bugs, 0);
      return clean / commits + (mixShift(tallies, difficulty, index).bugs?.amount ?? 0);
    };
    const lead = read(hard, 0) - read(easy, 1);
    expect(lead).toBeGreaterThan(0.075);
    expect(lead).toBeLessThanOrEqual(0.1);
    // (Pooled, m/x looks far worse: (20 × 0.5 + 2 × 0.9) / 22 = 0.54 against (2 × 0.4 + 20 × 0.8) / 22 = 0.76.)
  });

  it('reads work on a lopsided mix: the mix\'s effect is its weighted mean, whatever the kinds\' level', () => {
    // Docs are 0.4 easier than bug fixes (above); on a mix of 1/4 bug fixes and 3/4 docs, work that was
    // all bug fixes reads 3/4 × 0.4 = 0.3 higher, and work that was all docs 1/4 × 0.4 = 0.1 lower.
    const lopsided = new Map<Stratum, number>([['bug fix', 0.25], ['docs', 0.75]]);
    const difficulty = fitKindEffects([x, y], lopsided);
    expect(mixShift(new Map([['bug fix', bugTally(10, 5)]]), difficulty).bugs?.amount).toBeCloseTo(0.3, 3);
    expect(mixShift(new Map([['docs', bugTally(10, 1)]]), difficulty).bugs?.amount).toBeCloseTo(-0.1, 3);
  });

  it('gives each setup the variance of its own effect and the mix, not another setup\'s', () => {
    // m/a did only bug fixes (10 commits, 2 bugs), m/b only docs (30 commits, 3 bugs): the fit falls
    // apart into two blocks, {m/a, bug fix} and {m/b, docs}. On a half-and-half mix, m/a's share reads
    // with c = (1 on its own effect, 1/2 on bug fix) in its block and 1/2 on docs in the other.
    const a = new Map<Stratum, Tally>([['bug fix', bugTally(10, 2)]]);
    const b = new Map<Stratum, Tally>([['docs', bugTally(30, 3)]]);
    const difficulty = fitKindEffects([a, b], mix);
    const own = SIGNAL_CREDIBILITY.bugs;
    const kind = KIND_EFFECT_CREDIBILITY;
    // cᵀ·[[p, q], [q, r]]⁻¹·c for c = (c1, c2): (c1²·r − 2·c1·c2·q + c2²·p) / (p·r − q²).
    const form = (p: number, q: number, r: number, c1: number, c2: number) => (c1 * c1 * r - 2 * c1 * c2 * q + c2 * c2 * p) / (p * r - q * q);
    const average = 35 / 40;
    const spread = average * (1 - average);
    const expectedA = spread * (form(10 + own, 10, 10 + kind, 1, 0.5) + form(30 + own, 30, 30 + kind, 0, 0.5));
    const expectedB = spread * (form(10 + own, 10, 10 + kind, 0, 0.5) + form(30 + own, 30, 30 + kind, 1, 0.5));
    expect(difficulty.bugs?.setupVariance[0]).toBeCloseTo(expectedA, 12);
    expect(difficulty.bugs?.setupVariance[1]).toBeCloseTo(expectedB, 12);
  });

  it('nothing to fit with one kind of task', () => {
    expect(fitKindEffects([new Map([['docs', bugTally(10, 1)]])], new Map([['docs', 1]]))).toEqual({});
  });

  it('the variance of one setup\'s share from the fit\'s information matrix, worked out by Cramer\'s rule', () => {
    // One setup: 10 commits of bug fixes (2 bugs), 30 of docs (3 bugs); mix 1/4 bug fix, 3/4 docs.
    const setup = new Map<Stratum, Tally>([['bug fix', bugTally(10, 2)], ['docs', bugTally(30, 3)]]);
    const difficulty = fitKindEffects([setup], new Map([['bug fix', 0.25], ['docs', 0.75]]));
    const own = SIGNAL_CREDIBILITY.bugs;
    const kind = KIND_EFFECT_CREDIBILITY;
    // Rows: the setup's own effect, bug fix, docs.
    const m = [
      [10 + 30 + own, 10, 30],
      [10, 10 + kind, 0],
      [30, 0, 30 + kind],
    ];
    const c = [1, 0.25, 0.75];
    const det3 = (a: number[][]) =>
      a[0]![0]! * (a[1]![1]! * a[2]![2]! - a[1]![2]! * a[2]![1]!) - a[0]![1]! * (a[1]![0]! * a[2]![2]! - a[1]![2]! * a[2]![0]!) + a[0]![2]! * (a[1]![0]! * a[2]![1]! - a[1]![1]! * a[2]![0]!);
    // M·v = c by Cramer's rule, then cᵀ·v.
    const v = [0, 1, 2].map((col) => det3(m.map((row, r) => row.map((value, j) => (j === col ? c[r]! : value)))) / det3(m));
    const average = 35 / 40;
    const expected = average * (1 - average) * c.reduce((sum, ci, i) => sum + ci * v[i]!, 0);
    expect(difficulty.bugs?.setupVariance[0]).toBeCloseTo(expected, 12);
  });
});

describe('the mix as weights', () => {
  it('leaves out kinds without work and is empty without any', () => {
    expect([...mixWeights(new Map<Stratum, number>([['docs', 0], ['bug fix', 3], ['tests', 1]]))]).toEqual([['bug fix', 0.75], ['tests', 0.25]]);
    expect(mixWeights(new Map<Stratum, number>([['docs', 0]])).size).toBe(0);
  });

  it('counts classified turns, not all turns, and a record of no kind by its turns', () => {
    expect(kindMass(usageRecord({ agent: 'build', model: 'm/a', turns: 5, turnsBugFix: 2, turnsDocs: 1 }))).toEqual([['bug fix', 2], ['docs', 1]]);
    expect(kindMass(usageRecord({ agent: 'build', model: 'm/a', turns: 3 }))).toEqual([['unknown', 3]]);
  });

  it('names the kinds a setup did, unknown left out', () => {
    expect(describeKinds(new Map<Stratum, number>([['bug fix', 3], ['unknown', 4], ['docs', MIN_KIND_SESSIONS / 2], ['tests', MIN_KIND_SESSIONS]]))).toBe('bug fix, tests');
  });
});

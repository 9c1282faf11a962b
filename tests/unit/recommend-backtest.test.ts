/** The backtest: the user's history replayed in time order, following recommend or not. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { BACKTEST_MIN_SESSIONS, BACKTEST_WARMUP, backtestRecommendations, sessionOutcome } from '../../src/core/report/recommend-backtest.js';
import { formatBacktest, run } from '../../src/cli/commands/recommend.js';
import type { UsageRecord } from '../../src/core/types.js';
import { Store } from '../../src/core/store/store.js';
import { profile } from '../helpers/synthetic-history.js';
import { usageRecord } from '../helpers/usage-record.js';

const PROJECT = '/p/app';
const profiles = new Map([[PROJECT, profile(PROJECT, 'rust', 'axum', 'api')]]);

/** Sessions alternating between a model the user grades 5 and one graded -1, one a day. */
function alternating(sessions: number): UsageRecord[] {
  return Array.from({ length: sessions }, (_, i) => {
    const good = i % 2 === 0;
    const day = new Date(Date.UTC(2025, 0, 1 + i)).toISOString();
    return usageRecord({ agent: 'build', model: good ? 'm/good' : 'm/bad', project: PROJECT, firstAt: day, lastAt: day, commits: 2, userGradedCommits: 2, userGradeSum: good ? 10 : -2, turns: 2 });
  });
}

describe('sessionOutcome', () => {
  it.each<[string, Partial<UsageRecord>, { kind: string; value: number } | null]>([
    ['the user grade when graded', { commits: 2, userGradedCommits: 2, userGradeSum: 7 }, { kind: 'grade', value: (7 + 2) / 12 }],
    ['the share of commits that held', { commits: 4, revertedCommits: 1 }, { kind: 'commits', value: 3 / 4 }],
    ['the share of turns not undone', { turns: 4, undoneTurns: 1 }, { kind: 'turns', value: 3 / 4 }],
    ['nothing to go on', {}, null],
  ])('%s', (_name, counters, expected) => {
    const outcome = sessionOutcome(usageRecord({ agent: 'build', model: 'm', ...counters }));
    if (expected === null) return expect(outcome).toBeNull();
    expect(outcome?.kind).toBe(expected.kind);
    expect(outcome?.value).toBeCloseTo(expected.value, 10);
  });
});

describe('backtestRecommendations', () => {
  it('shows that following recommend went better when it picked the model the user grades higher', () => {
    const sessions = 120;
    const result = backtestRecommendations({ history: { usage: alternating(sessions) }, profiles, similarity: () => 0, prefer: 'quality' });
    // Every session after the warm-up is judged: half used m/good (outcome 1), half m/bad (outcome 0).
    const judged = sessions - Math.floor(sessions * BACKTEST_WARMUP);
    expect(result.judged).toBe(judged);
    expect(result.followed).toEqual({ sessions: judged / 2, outcome: 1 });
    expect(result.other).toEqual({ sessions: judged / 2, outcome: 0 });
    expect(result.difference).toEqual({ mean: 100, interval: [100, 100] });
    expect(result.verdict).toMatch(/^Following recommend went better on your own history: 100 outcome points ahead/);
    expect(formatBacktest(result)).toContain(`used what recommend would have said: ${judged / 2} sessions, outcome 100%`);
  });

  it('says it cannot tell yet with too little history', () => {
    const result = backtestRecommendations({ history: { usage: alternating(8) }, profiles, similarity: () => 0 });
    expect(result.difference).toBeNull();
    expect(result.verdict).toMatch(new RegExp(`^Too little history to judge yet: .* at least ${BACKTEST_MIN_SESSIONS} of each\\.$`));
  });

  it('says so on an empty history', () => {
    const result = backtestRecommendations({ history: { usage: [] }, profiles, similarity: () => 0 });
    expect(result).toMatchObject({ judged: 0, points: 0, difference: null });
  });
});

/**
 * Histories where the right answer is known from how they are built. The model recommend picks
 * (m/picked: every test passes, no tool call fails, no bug) and the other (m/other: the opposite)
 * each work through the same cycle of eight sessions, one a day, alternating. A session's outcome
 * is of one kind: the user's grade (a session graded by the user), else the share of its commits
 * that held, else the share of its turns not undone. Within each kind the cycles say which model
 * did better; across kinds the scales differ (a "good" grade is 0.5, a commit that held is 1), so
 * a group graded more often looks worse than it is when the kinds are pooled.
 */
type Outcome = { grade: number } | { commits: number; held: number } | { turns: number; kept: number };
type Kind = 'grade' | 'commits' | 'turns';
const kindOf = (outcome: Outcome): Kind => ('grade' in outcome ? 'grade' : 'commits' in outcome ? 'commits' : 'turns');
/** The outcome 0..1 as the README defines it: a grade g of -1..5 is (g + 1) / 6. */
const valueOf = (outcome: Outcome): number =>
  'grade' in outcome ? (outcome.grade + 1) / 6 : 'commits' in outcome ? outcome.held / outcome.commits : outcome.kept / outcome.turns;

interface Built {
  usage: UsageRecord[];
  /** The sessions the backtest judges (after the warm-up), each with its model and outcome. */
  judged: { picked: boolean; outcome: Outcome }[];
}

function cycleHistory(picked: readonly Outcome[], other: readonly Outcome[], cycles: number): Built {
  const usage: UsageRecord[] = [];
  const all: { picked: boolean; outcome: Outcome }[] = [];
  const perModel = picked.length * cycles;
  for (let i = 0; i < 2 * perModel; i += 1) {
    const isPicked = i % 2 === 0;
    const cycle = isPicked ? picked : other;
    const outcome = cycle[Math.floor(i / 2) % cycle.length] as Outcome;
    const day = new Date(Date.UTC(2025, 0, 1) + i * 86_400_000).toISOString();
    const counters: Partial<UsageRecord> =
      'grade' in outcome
        ? { commits: 1, userGradedCommits: 1, userGradeSum: outcome.grade }
        : 'commits' in outcome
          ? { commits: outcome.commits, revertedCommits: outcome.commits - outcome.held }
          : { turns: outcome.turns, undoneTurns: outcome.turns - outcome.kept };
    // What recommend reads besides the outcome: the picked model's tests pass and its tools work.
    const signals: Partial<UsageRecord> = isPicked
      ? { testRuns: 4, testPasses: 4, toolCalls: 40, toolFailures: 0, bugs: 0 }
      : { testRuns: 4, testPasses: 0, toolCalls: 40, toolFailures: 20, bugs: counters.commits ?? 0 };
    usage.push(usageRecord({ agent: 'build', model: isPicked ? 'm/picked' : 'm/other', project: PROJECT, firstAt: day, lastAt: day, ...signals, ...counters }));
    all.push({ picked: isPicked, outcome });
  }
  return { usage, judged: all.slice(Math.floor(all.length * BACKTEST_WARMUP)) };
}

const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

/** Each kind's mean outcome per group, and the pooled means of the old, mixed comparison. */
function truth(built: Built) {
  const of = (picked: boolean, kind?: Kind) => built.judged.filter((s) => s.picked === picked && (kind === undefined || kindOf(s.outcome) === kind)).map((s) => valueOf(s.outcome));
  const kinds = (['grade', 'commits', 'turns'] as const).map((kind) => ({ kind, followed: of(true, kind), other: of(false, kind) }));
  return { pooled: { followed: mean(of(true)), other: mean(of(false)) }, kinds };
}

// The picked model is better within every kind, but was graded "good" more often (0.5 each),
// while the other mostly has commits that held, or nearly so (0.5 to 1 each).
const PICKED_BETTER = {
  picked: [{ grade: 2 }, { grade: 2 }, { grade: 5 }, { grade: 2 }, { grade: 2 }, { grade: 2 }, { commits: 4, held: 4 }, { commits: 4, held: 3 }],
  other: [{ grade: 1 }, { grade: 2 }, { commits: 4, held: 4 }, { commits: 4, held: 3 }, { commits: 4, held: 4 }, { commits: 4, held: 3 }, { commits: 4, held: 4 }, { commits: 4, held: 2 }],
} as const;
// The mirror: the picked model is worse within every kind, and mostly has commits that held
// (nearly all), while the other was graded "good" more often and its commits all held.
const PICKED_WORSE = {
  picked: [{ grade: 1 }, { grade: 2 }, { commits: 4, held: 4 }, { commits: 4, held: 4 }, { commits: 4, held: 4 }, { commits: 4, held: 3 }, { commits: 4, held: 4 }, { commits: 4, held: 4 }],
  other: [{ grade: 2 }, { grade: 2 }, { grade: 5 }, { grade: 2 }, { grade: 2 }, { grade: 2 }, { commits: 4, held: 4 }, { commits: 4, held: 4 }],
} as const;

describe('backtestRecommendations compares like with like', () => {
  const CYCLES = 10;

  it.each([
    ['better', PICKED_BETTER, 1],
    ['worse', PICKED_WORSE, -1],
  ] as const)('says following recommend went %s when it did within every kind of outcome, whichever group was graded more', (word, cycle, sign) => {
    const built = cycleHistory(cycle.picked, cycle.other, CYCLES);
    const known = truth(built);
    // The construction: every kind both groups have points the same way, and pooling the kinds points the other way.
    const shared = known.kinds.filter((k) => k.followed.length > 0 && k.other.length > 0);
    expect(shared.map((k) => k.kind)).toEqual(['grade', 'commits']);
    for (const k of shared) expect(Math.sign(mean(k.followed) - mean(k.other))).toBe(sign);
    expect(Math.sign(known.pooled.followed - known.pooled.other)).toBe(-sign);

    const result = backtestRecommendations({ history: { usage: built.usage }, profiles, similarity: () => 0, prefer: 'quality' });
    // Recommend picked m/picked at every point, so the groups are the two models' judged sessions.
    expect(result.judged).toBe(built.judged.length);
    expect(result.followed.sessions).toBe(built.judged.filter((s) => s.picked).length);
    expect(result.other.sessions).toBe(built.judged.filter((s) => !s.picked).length);
    expect(result.difference).not.toBeNull();
    const [low, high] = result.difference?.interval ?? [0, 0];
    expect(Math.sign(low)).toBe(sign);
    expect(Math.sign(high)).toBe(sign);
    // A weighted mean of the per-kind differences lies between the smallest and the largest.
    const perKind = shared.map((k) => 100 * (mean(k.followed) - mean(k.other)));
    expect(result.difference?.mean).toBeGreaterThanOrEqual(Math.min(...perKind) - 0.05);
    expect(result.difference?.mean).toBeLessThanOrEqual(Math.max(...perKind) + 0.05);
    expect(result.verdict).toMatch(new RegExp(`^Following recommend went ${word} on your own history`));
    // Each group's outcome is over the same kinds, weighted alike, so their gap is the difference.
    expect(100 * ((result.followed.outcome ?? 0) - (result.other.outcome ?? 0))).toBeCloseTo(result.difference?.mean ?? NaN, 0);
    for (const k of shared) {
      const row = result.byKind.find((r) => r.kind === k.kind);
      expect(row?.followed.sessions).toBe(k.followed.length);
      expect(row?.other.sessions).toBe(k.other.length);
      expect(row?.followed.outcome).toBeCloseTo(mean(k.followed), 3);
      expect(row?.other.outcome).toBeCloseTo(mean(k.other), 3);
    }
  });

  it('gives a kind of outcome that only one group has no say', () => {
    // PICKED_BETTER plus, for the picked model only, sessions whose every turn was undone (outcome 0):
    // there is nothing to compare them with, so the answer is that of the other two kinds.
    const picked = [...PICKED_BETTER.picked, { turns: 4, kept: 0 }, { turns: 4, kept: 0 }];
    const built = cycleHistory(picked, [...PICKED_BETTER.other, PICKED_BETTER.other[2], PICKED_BETTER.other[3]], CYCLES);
    const known = truth(built);
    const turns = known.kinds.find((k) => k.kind === 'turns');
    expect(turns?.followed.length).toBeGreaterThan(0);
    expect(turns?.other.length).toBe(0);
    const result = backtestRecommendations({ history: { usage: built.usage }, profiles, similarity: () => 0, prefer: 'quality' });
    expect(result.followed.sessions).toBe(built.judged.filter((s) => s.picked).length);
    const shared = known.kinds.filter((k) => k.followed.length > 0 && k.other.length > 0);
    const perKind = shared.map((k) => 100 * (mean(k.followed) - mean(k.other)));
    expect(Math.min(...perKind)).toBeGreaterThan(0);
    expect(result.difference?.mean).toBeGreaterThanOrEqual(Math.min(...perKind) - 0.05);
    expect(result.verdict).toMatch(/^Following recommend went better on your own history/);
    expect(result.byKind.find((r) => r.kind === 'turns')).toMatchObject({ followed: { sessions: turns?.followed.length, outcome: 0 }, other: { sessions: 0, outcome: null }, weight: 0 });
    expect(formatBacktest(result)).toContain(`turns not undone:  ${turns?.followed.length} vs 0 sessions, 0% vs - (only one group: not compared)`);
  });

  it('cannot tell yet when the two groups\' outcomes are never of the same kind', () => {
    // Every picked session graded "good", every other session's commits held: plenty of sessions,
    // nothing alike to compare.
    const built = cycleHistory([{ grade: 2 }, { grade: 5 }], [{ commits: 4, held: 4 }, { commits: 4, held: 3 }], 30);
    const result = backtestRecommendations({ history: { usage: built.usage }, profiles, similarity: () => 0, prefer: 'quality' });
    expect(result.followed.sessions).toBe(built.judged.filter((s) => s.picked).length);
    expect(result.followed.sessions).toBeGreaterThanOrEqual(BACKTEST_MIN_SESSIONS);
    expect(result.other.sessions).toBeGreaterThanOrEqual(BACKTEST_MIN_SESSIONS);
    expect(result.difference).toBeNull();
    expect(result.verdict).toMatch(/^Too little history to judge yet: .*none of them has an outcome of a kind the other group has too/);
  });
});

describe('recommend --backtest', () => {
  it('answers from the database with --json, saying there is too little to judge on an empty history', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-backtest-'));
    try {
      const printed: string[] = [];
      // An empty database: readers create none.
      Store.open({ path: path.join(dir, 'db.lmdb'), maxDatabaseSize: 1 << 24 }).close();
      await run(['--backtest', '--json', '--db', path.join(dir, 'db.lmdb')], { out: (text) => printed.push(text), err: (text) => printed.push(text) });
      const parsed = JSON.parse(printed.join('\n')) as { backtest: { judged: number; difference: unknown; verdict: string } };
      expect(parsed.backtest).toMatchObject({ judged: 0, difference: null });
      expect(parsed.backtest.verdict).toMatch(/^Too little history to judge yet/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses --apply with it, in one line, before touching anything', async () => {
    await expect(run(['--backtest', '--apply', '--db', '/nonexistent/never.lmdb'], { out: () => undefined, err: () => undefined })).rejects.toThrow(/--backtest and --apply do not go together/);
  });
});

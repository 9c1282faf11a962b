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
  it.each<[string, Partial<UsageRecord>, number | null]>([
    ['the user grade when graded', { commits: 2, userGradedCommits: 2, userGradeSum: 7 }, (7 + 2) / 12],
    ['the share of commits that held', { commits: 4, revertedCommits: 1 }, 3 / 4],
    ['the share of turns not undone', { turns: 4, undoneTurns: 1 }, 3 / 4],
    ['nothing to go on', {}, null],
  ])('%s', (_name, counters, expected) => {
    const outcome = sessionOutcome(usageRecord({ agent: 'build', model: 'm', ...counters }));
    if (expected === null) expect(outcome).toBeNull();
    else expect(outcome).toBeCloseTo(expected, 10);
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

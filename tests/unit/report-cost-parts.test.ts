/**
 * The report's cost, part by part: what OpenCode stored, the price catalog's estimate for usage it
 * stored at 0 while tokens were spent (priced once per row and model, on the row's summed tokens), and
 * the sessions nobody can price. The estimator here is a plain rate the test applies itself: $2 per
 * million input tokens and $10 per million output tokens, null for a model named "x/unknown".
 */
import { describe, expect, it } from '@jest/globals';
import { reportPrices } from '../../src/core/answers/report.js';
import { buildReport } from '../../src/core/report/report.js';
import type { CostEstimator } from '../../src/core/report/recommend-prices.js';
import { usageRecord } from '../helpers/usage-record.js';

const estimate: CostEstimator = (record) =>
  record.model === 'x/unknown' ? null : (record.tokensInput * 2 + record.tokensOutput * 10 + record.tokensReasoning * 10 + record.tokensCacheRead + record.tokensCacheWrite) / 1_000_000;

/** Usage stored at cost 0 with tokens spent (an unpriced model, as OpenCode stores it). */
const unpriced = (model: string, tokens: { input: number; output: number; reasoning?: number; cacheRead?: number; cacheWrite?: number }, commits = 1) =>
  usageRecord({
    agent: 'build',
    model,
    commits,
    cost: 0,
    tokensInput: tokens.input,
    tokensOutput: tokens.output,
    tokensReasoning: tokens.reasoning ?? 0,
    tokensCacheRead: tokens.cacheRead ?? 0,
    tokensCacheWrite: tokens.cacheWrite ?? 0,
  });

describe('the report prices usage stored at cost 0', () => {
  it("sums a row's tokens of every kind across its sessions and prices them once, marked estimated, and the totals add their rows", () => {
    const history = {
      usage: [
        unpriced('a/model', { input: 1_000_000, output: 100_000, reasoning: 50_000, cacheRead: 200_000, cacheWrite: 300_000 }),
        unpriced('a/model', { input: 500_000, output: 50_000, reasoning: 10_000, cacheRead: 100_000, cacheWrite: 100_000 }, 3),
        usageRecord({ agent: 'build', model: 'b/model', commits: 2, cost: 1.5, tokensInput: 10 }),
      ],
    };
    const report = buildReport(history, 'setup', { estimateCost: estimate });
    const a = report.rows.find((row) => row.model === 'a/model');
    const b = report.rows.find((row) => row.model === 'b/model');
    // a/model: input 1.5M × $2 = $3, output 150k × $10 = $1.5, reasoning 60k × $10 = $0.6, cache 300k + 400k × $1 = $0.7: $5.8 over 4 commits.
    expect(a).toMatchObject({ cost: 5.8, costEstimated: true, costUnknownSessions: 0, costPerCommit: 1.45 });
    expect(b).toMatchObject({ cost: 1.5, costEstimated: false, costPerCommit: 0.75 });
    expect(report.totals).toMatchObject({ cost: 7.3, costEstimated: true, costUnknownSessions: 0 });
  });

  it('leaves a model no price knows out of the sum: the row unknown, a total beside known cost partial, no cost per commit', () => {
    const history = {
      usage: [
        unpriced('x/unknown', { input: 1_000, output: 100 }),
        unpriced('x/unknown', { input: 2_000, output: 100 }),
        usageRecord({ agent: 'build', model: 'b/model', commits: 1, cost: 0.4, tokensInput: 10 }),
      ],
    };
    const report = buildReport(history, 'setup', { estimateCost: estimate });
    expect(report.rows.find((row) => row.model === 'x/unknown')).toMatchObject({ cost: null, costPerCommit: null, costEstimated: false, costUnknownSessions: 2 });
    expect(report.totals).toMatchObject({ cost: 0.4, costPerCommit: null, costUnknownSessions: 2, costEstimated: false });
  });

  it('without an estimator calls every such session unknown, never free', () => {
    const report = buildReport({ usage: [unpriced('a/model', { input: 1_000, output: 10 })] }, 'setup');
    expect(report.rows[0]).toMatchObject({ cost: null, costPerCommit: null, costUnknownSessions: 1 });
  });

  it('counts work that spent nothing as known and free, not unknown', () => {
    const report = buildReport({ usage: [usageRecord({ agent: 'plan', model: 'a/model', commits: 2, cost: 0 })] }, 'setup', { estimateCost: estimate });
    expect(report.rows[0]).toMatchObject({ cost: 0, costPerCommit: 0, costEstimated: false, costUnknownSessions: 0 });
  });

  it('loads the price catalog only when the history holds usage stored at 0 with tokens spent', async () => {
    expect(await reportPrices({ usage: [usageRecord({ agent: 'build', model: 'b/model', cost: 0.4, tokensInput: 10 }), usageRecord({ agent: 'build', model: 'b/model', cost: 0 })] })).toBeUndefined();
    const prices = await reportPrices({ usage: [unpriced('anthropic/claude-3-5-sonnet-20241022', { input: 1_000_000, output: 0 })] });
    // The catalog's price of that model: $3 per million input tokens.
    expect(prices?.(unpriced('anthropic/claude-3-5-sonnet-20241022', { input: 1_000_000, output: 0 }))).toBeCloseTo(3, 6);
  });
});

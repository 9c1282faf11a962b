/**
 * Cost you can trust: usage OpenCode stored at cost 0 while spending tokens is priced from the real
 * price catalog (@pydantic/genai-prices) and marked estimated; a model the catalog does not know stays
 * of unknown cost and is never treated as free.
 */
import { describe, expect, it } from '@jest/globals';
import { calcPrice } from '@pydantic/genai-prices';
import { recommendSetups } from '../../src/core/report/recommend.js';
import type { Recommendation } from '../../src/core/report/recommend.js';
import { catalogUsage, costOf, loadPriceCatalog } from '../../src/core/report/recommend-prices.js';
import { describeCost } from '../../src/core/report/recommend-text.js';
import type { UsageRecord } from '../../src/core/types.js';
import { profile } from '../helpers/synthetic-history.js';
import { usageRecord } from '../helpers/usage-record.js';

const KNOWN = 'anthropic/claude-sonnet-4-5';
const UNKNOWN_MODEL = 'nowhere/model-nobody-prices';
const TOKENS = { tokensInput: 10_000, tokensOutput: 2_000, tokensReasoning: 500, tokensCacheRead: 30_000, tokensCacheWrite: 1_000 };
const TARGET = profile('/p/target', 'rust', 'axum', 'api');
/** Same outcomes for every setup: only cost can tell them apart. */
const WORK: Partial<UsageRecord> = { commits: 2, toolCalls: 10, userGradedCommits: 1, userGradeSum: 2, turns: 2 };

function work(model: string, sessions: number, counters: Partial<UsageRecord>): UsageRecord[] {
  return Array.from({ length: sessions }, () => usageRecord({ agent: 'build', model, ...WORK, ...TOKENS, ...counters }));
}

async function recommend(usage: UsageRecord[], prefer: 'cheap' | 'balanced' = 'cheap'): Promise<Recommendation> {
  return recommendSetups({ target: TARGET, history: { usage }, profiles: new Map(), similarity: () => 0, prefer, estimateCost: await loadPriceCatalog() });
}

const setup = (result: Recommendation, model: string) => {
  const found = result.recommendations.find((r) => r.model === model);
  if (!found) throw new Error(`no ${model}`);
  return found;
};

describe('the catalog usage', () => {
  it("counts cache reads and writes into the whole input and reasoning as output", () => {
    expect(catalogUsage(usageRecord({ agent: 'a', model: KNOWN, ...TOKENS }))).toEqual({
      input_tokens: 10_000 + 30_000 + 1_000,
      cache_read_tokens: 30_000,
      cache_write_tokens: 1_000,
      output_tokens: 2_000 + 500,
    });
  });
});

describe('pricing usage stored at cost 0', () => {
  it('prices a known model from the catalog and says it is an estimate', async () => {
    const estimate = await loadPriceCatalog();
    const record = usageRecord({ agent: 'build', model: KNOWN, ...TOKENS, cost: 0 });
    const expected = calcPrice({ input_tokens: 41_000, cache_read_tokens: 30_000, cache_write_tokens: 1_000, output_tokens: 2_500 }, 'claude-sonnet-4-5', { providerId: 'anthropic' })?.total_price;
    expect(expected).toBeGreaterThan(0);
    expect(costOf(record, estimate)).toEqual({ cost: expected, kind: 'estimated' });
  });

  it('keeps a stored cost, and work that spent no tokens, as stored', async () => {
    const estimate = await loadPriceCatalog();
    expect(costOf(usageRecord({ agent: 'build', model: KNOWN, ...TOKENS, cost: 0.42 }), estimate)).toEqual({ cost: 0.42, kind: 'stored' });
    expect(costOf(usageRecord({ agent: 'build', model: UNKNOWN_MODEL, cost: 0 }), estimate)).toEqual({ cost: 0, kind: 'stored' });
  });

  it('leaves a model the catalog does not know unknown, never free', async () => {
    const estimate = await loadPriceCatalog();
    expect(costOf(usageRecord({ agent: 'build', model: UNKNOWN_MODEL, ...TOKENS, cost: 0 }), estimate)).toEqual({ cost: 0, kind: 'unknown' });
  });
});

describe('cost in the recommendation', () => {
  it('does not favour a model of unknown price under --prefer cheap', async () => {
    const result = await recommend([...work(UNKNOWN_MODEL, 20, { cost: 0 }), ...work('paid/model', 20, { cost: 0.5 })]);
    expect(setup(result, UNKNOWN_MODEL).costPerAcceptedCommit).toBeNull();
    expect(describeCost(setup(result, UNKNOWN_MODEL))).toBe('cost unknown');
    expect(setup(result, UNKNOWN_MODEL).score).toBeLessThanOrEqual(setup(result, 'paid/model').score);
  });

  it('says a priced setup none of whose commits held has no accepted commit to price, not that its cost is unknown', async () => {
    const result = await recommend([...work('paid/reverted', 20, { cost: 0.5, revertedCommits: 1, followUpFixCommits: 1 }), ...work('paid/model', 20, { cost: 0.5 })]);
    const reverted = setup(result, 'paid/reverted');
    expect(reverted.acceptedCommits).toBe(0);
    expect(reverted.costPerAcceptedCommit).toBeNull();
    expect(describeCost(reverted)).toBe('no accepted commit to price');
    // 20 sessions of 2 commits at $0.50 a session, none reverted.
    expect(setup(result, 'paid/model').acceptedCommits).toBe(40);
    expect(describeCost(setup(result, 'paid/model'))).toBe(`$${((20 * 0.5) / 40).toFixed(3)} per accepted commit`);
  });

  it('counts the commits that held: neither reverted nor followed by a fix', async () => {
    const history = [
      ...work('paid/model', 10, { cost: 0.5, revertedCommits: 1 }),
      ...work('paid/model', 5, { cost: 0.5, followUpFixCommits: 1 }),
      ...work('paid/model', 5, { cost: 0.5 }),
    ];
    // 20 sessions of 2 commits: 40, less 10 reverted and 5 fixed after.
    expect(setup(await recommend(history), 'paid/model').acceptedCommits).toBe(25);
  });

  it('shows an estimated cost per accepted commit as estimated', async () => {
    const result = await recommend([...work(KNOWN, 20, { cost: 0 }), ...work('paid/model', 20, { cost: 0.5 })]);
    const priced = setup(result, KNOWN);
    const perSession = calcPrice({ input_tokens: 41_000, cache_read_tokens: 30_000, cache_write_tokens: 1_000, output_tokens: 2_500 }, 'claude-sonnet-4-5', { providerId: 'anthropic' })?.total_price ?? NaN;
    // 20 sessions of 2 commits, none reverted: 40 accepted commits.
    expect(priced.costPerAcceptedCommit).toBeCloseTo((20 * perSession) / 40, 4);
    expect(priced.costEstimated).toBe(true);
    expect(describeCost(priced)).toMatch(/^\$\d+\.\d{3} per accepted commit \(estimated\)$/);
    expect(setup(result, 'paid/model').costEstimated).toBe(false);
  });

  it('shows a model the catalog prices at $0 as free, not as of unknown cost', async () => {
    const free = 'openrouter/meta-llama/llama-3.3-70b-instruct:free';
    // The catalog's own figure for the work, read directly: zero, and a known price (not null).
    expect(calcPrice({ input_tokens: 41_000, cache_read_tokens: 30_000, cache_write_tokens: 1_000, output_tokens: 2_500 }, 'meta-llama/llama-3.3-70b-instruct:free', { providerId: 'openrouter' })?.total_price).toBe(0);
    const result = await recommend([...work(free, 20, { cost: 0 }), ...work('paid/model', 20, { cost: 0.5 })]);
    const setupOnFree = setup(result, free);
    expect(setupOnFree.costPerAcceptedCommit).toBe(0);
    // A price of $0 is a known cost.
    expect([setupOnFree.unpricedSessions, setupOnFree.pricedSessions]).toEqual([0, 20]);
    expect(setupOnFree.costEstimated).toBe(true);
    expect(describeCost(setupOnFree)).toBe('$0.00 per accepted commit (estimated)');
    // Same outcomes, no cost: under --prefer cheap it ranks above the paid model.
    expect(setupOnFree.score).toBeGreaterThan(setup(result, 'paid/model').score);
  });

  it('says how much of the work has no known price when only part of it has none', async () => {
    // 17 sessions OpenCode priced, 3 of the same model stored at 0 with tokens spent, which no catalog
    // prices, and 4 that spent nothing yet (a session still starting): those count on neither side.
    const silent = Array.from({ length: 4 }, () => usageRecord({ agent: 'build', model: UNKNOWN_MODEL, ...WORK, cost: 0 }));
    const partly = [...work(UNKNOWN_MODEL, 17, { cost: 0.5 }), ...work(UNKNOWN_MODEL, 3, { cost: 0 }), ...silent];
    const result = await recommend([...partly, ...work('paid/model', 20, { cost: 0.5 })]);
    const setupPartly = setup(result, UNKNOWN_MODEL);
    expect([setupPartly.unpricedSessions, setupPartly.pricedSessions, setupPartly.sessions]).toEqual([3, 17, 24]);
    expect(setupPartly.costPerAcceptedCommit).toBeNull();
    expect(describeCost(setupPartly)).toBe('cost unknown for 3 of its 20 sessions');
    expect([setup(result, 'paid/model').unpricedSessions, setup(result, 'paid/model').pricedSessions]).toEqual([0, 20]);
    // None of it priced, beside work that spent nothing: the plain words.
    const none = setup(await recommend([...work(UNKNOWN_MODEL, 20, { cost: 0 }), ...silent, ...work('paid/model', 20, { cost: 0.5 })]), UNKNOWN_MODEL);
    expect([none.unpricedSessions, none.pricedSessions, describeCost(none)]).toEqual([20, 0, 'cost unknown']);
  });

  it('says no cost was recorded for work that recorded neither a cost nor tokens', async () => {
    const silent = Array.from({ length: 20 }, () => usageRecord({ agent: 'build', model: 'quiet/model', ...WORK, cost: 0 }));
    const quiet = setup(await recommend([...silent, ...work('paid/model', 20, { cost: 0.5 })]), 'quiet/model');
    expect([quiet.unpricedSessions, quiet.pricedSessions, quiet.costPerAcceptedCommit, describeCost(quiet)]).toEqual([0, 0, null, 'no cost recorded']);
  });

  it('says so when no model in a role has a known price', async () => {
    const result = await recommend([...work(UNKNOWN_MODEL, 20, { cost: 0 }), ...work('nowhere/another-unpriced', 20, { cost: 0 })], 'balanced');
    expect(result.roles[0]?.caveat).toMatch(/no model in this role has a known price/);
  });
});

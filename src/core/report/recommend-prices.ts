/**
 * Cost you can trust: usage whose stored cost is 0 although tokens were spent (a model missing from
 * OpenCode's price list, a subscription) is priced from a maintained price catalog
 * (@pydantic/genai-prices, bundled data, no network) and marked estimated; a model the catalog does
 * not know stays unknown, never free.
 */
import type { UsageRecord } from '../types.js';

/** The cost of one usage record in dollars, or null when its model has no known price. */
export type CostEstimator = (record: UsageRecord) => number | null;

/** The catalog's calculation, as far as this module uses it. */
export type CatalogPrice = (
  usage: Record<string, number>,
  modelId: string,
  options?: { providerId?: string },
) => { total_price: number } | null;

/** How a record's cost is known. */
export type CostKind = 'stored' | 'estimated' | 'unknown';

/** Whether the record spent tokens (so a stored cost of 0 is a missing price, not free work). */
export function spentTokens(record: UsageRecord): boolean {
  return record.tokensInput + record.tokensOutput + record.tokensReasoning + record.tokensCacheRead + record.tokensCacheWrite > 0;
}

/**
 * The catalog's usage fields from OpenCode's counts: the catalog's input is the whole input, cache
 * reads and writes included (OpenCode counts them apart); reasoning is billed as output.
 */
export function catalogUsage(record: UsageRecord): Record<string, number> {
  return {
    input_tokens: record.tokensInput + record.tokensCacheRead + record.tokensCacheWrite,
    cache_read_tokens: record.tokensCacheRead,
    cache_write_tokens: record.tokensCacheWrite,
    output_tokens: record.tokensOutput + record.tokensReasoning,
  };
}

/** An estimator over the catalog: `provider/model` is looked up with its provider first, then by the model alone. */
export function catalogEstimator(price: CatalogPrice): CostEstimator {
  const cache = new Map<string, ((usage: Record<string, number>) => number | null) | null>();
  const pricer = (model: string) => {
    if (cache.has(model)) return cache.get(model) ?? null;
    const slash = model.indexOf('/');
    const providerId = slash > 0 ? model.slice(0, slash) : undefined;
    const modelId = slash > 0 ? model.slice(slash + 1) : model;
    const probe = { input_tokens: 1, output_tokens: 1 };
    let found: ((usage: Record<string, number>) => number | null) | null = null;
    if (providerId && price(probe, modelId, { providerId })) found = (usage) => price(usage, modelId, { providerId })?.total_price ?? null;
    else if (price(probe, modelId)) found = (usage) => price(usage, modelId)?.total_price ?? null;
    cache.set(model, found);
    return found;
  };
  return (record) => {
    const found = pricer(record.model);
    return found ? found(catalogUsage(record)) : null;
  };
}

/** OpenCode stored a cost of 0 while tokens were spent: the price is missing, not the cost (a price to estimate). */
export function lacksPrice(record: UsageRecord): boolean {
  return !(record.cost > 0) && spentTokens(record);
}

/** The record's cost and how it is known: stored when non-zero or no tokens were spent, else from the catalog. */
export function costOf(record: UsageRecord, estimate: CostEstimator | undefined): { cost: number; kind: CostKind } {
  if (!lacksPrice(record)) return { cost: record.cost, kind: 'stored' };
  const estimated = estimate ? estimate(record) : null;
  return estimated === null ? { cost: 0, kind: 'unknown' } : { cost: estimated, kind: 'estimated' };
}

/** Loads the price catalog (about 1 MB of code: only when a recommendation is asked for). */
export async function loadPriceCatalog(): Promise<CostEstimator> {
  const catalog = await import('@pydantic/genai-prices');
  return catalogEstimator((usage, modelId, options) => catalog.calcPrice(usage, modelId, options));
}

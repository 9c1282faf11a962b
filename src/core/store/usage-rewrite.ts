/**
 * Usage records written before schema version 5 are msgpack maps that spell out every field name
 * (stored-form.ts has their stored form since). They read correctly either way, but a map decodes
 * about twice as slowly and takes five times the bytes, so a file upgraded in place is rewritten a
 * step at a time after flushes, beside the index's deferred work (Store.maintainIndexes). The meta
 * key holds the last key rewritten, then `true` once every record is in the stored form.
 */
import type { WritableTables } from './tables.js';

/** Records rewritten per step: one short transaction each (about 10 ms). */
export const USAGE_REWRITE_STEP = 500;
export const USAGE_REWRITE_KEY = 'usageRewrittenTo';

type UsageKey = [string, string, string];

function sameKey(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((part, at) => part === b[at]);
}

/** Marks a new file's usage records as all in the stored form (a new file has no others). */
export function markUsageRewritten(tables: WritableTables): void {
  tables.meta.putSync(USAGE_REWRITE_KEY, true);
}

/** Rewrites the next step of usage records in the stored form; returns whether any are left. Call inside `store.write`. */
export function rewriteUsageStep(tables: WritableTables): boolean {
  const reached = tables.meta.get(USAGE_REWRITE_KEY);
  if (reached === true) return false;
  const start = Array.isArray(reached) ? (reached as UsageKey) : undefined;
  // Read first, then write: the range is not walked while its records change.
  const batch = [...tables.usage.getRange({ ...(start ? { start } : {}), limit: USAGE_REWRITE_STEP + 1 })]
    .filter(({ key }) => !start || !sameKey(key, start))
    .slice(0, USAGE_REWRITE_STEP);
  for (const { key, value } of batch) tables.usage.putSync(key, value);
  const last = batch.at(-1)?.key;
  const left = batch.length === USAGE_REWRITE_STEP && last !== undefined;
  tables.meta.putSync(USAGE_REWRITE_KEY, left ? last : true);
  return left;
}

/**
 * Where the last import of a history store ended, kept in the tracker's meta table per store: the
 * newest session update imported and a fingerprint of the store's files. Unchanged files mean
 * nothing new, known without opening the store.
 */
import type { StoreAccess } from '../store/access.js';
import type { Store } from '../store/store.js';

export interface Watermark {
  /** Newest session update imported (epoch ms). */
  updatedAt: number;
  /** The store's file fingerprint when the import ended. */
  signature: string;
  importedAt: string;
}

const KEY_PREFIX = 'backfill:';

/** Sessions updated at the watermark's own millisecond are read again: replaying them adds nothing, missing one would. */
export const WATERMARK_OVERLAP_MS = 1;

function isWatermark(value: unknown): value is Watermark {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.updatedAt === 'number' && typeof record.signature === 'string';
}

/** The watermark of the history store at `location`, undefined before its first import. */
export function readWatermark(store: StoreAccess, location: string): Watermark | undefined {
  const value = store.tables.meta.get(`${KEY_PREFIX}${location}`);
  return isWatermark(value) ? value : undefined;
}

/** Records how far the store at `location` was imported (never moves back). */
export function writeWatermark(store: Store, location: string, watermark: Watermark): void {
  // Read and written in one transaction: a second backfill finishing meanwhile is never moved back.
  store.write(() => {
    const held = readWatermark(store, location);
    const updatedAt = Math.max(held?.updatedAt ?? 0, watermark.updatedAt);
    store.putRecords([{ table: 'meta', key: `${KEY_PREFIX}${location}`, value: { ...watermark, updatedAt } }]);
  });
}

/**
 * The same from a store held through StoreAccess (the plugin's worker): read, then put, in two calls,
 * not one transaction. A backfill committing between the two is moved back by what it added; the next
 * import then reads those sessions again, and replaying them adds nothing.
 */
export function advanceWatermark(store: StoreAccess, location: string, watermark: Watermark): void {
  const held = readWatermark(store, location);
  const updatedAt = Math.max(held?.updatedAt ?? 0, watermark.updatedAt);
  store.putRecords([{ table: 'meta', key: `${KEY_PREFIX}${location}`, value: { ...watermark, updatedAt } }]);
}

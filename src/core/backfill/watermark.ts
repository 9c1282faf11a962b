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
  store.write(() => advanceWatermark(store, location, watermark));
}

/**
 * Moves the watermark forward (never back): a read, then a put. In writeWatermark's transaction the two
 * are one; from the plugin's main thread (its store in a worker) they are two calls, so a backfill
 * committing between them is moved back by what it added, and the next import reads those sessions
 * again, which adds nothing.
 */
export function advanceWatermark(store: StoreAccess, location: string, watermark: Watermark): void {
  const held = readWatermark(store, location);
  const updatedAt = Math.max(held?.updatedAt ?? 0, watermark.updatedAt);
  store.putRecords([{ table: 'meta', key: `${KEY_PREFIX}${location}`, value: { ...watermark, updatedAt } }]);
}

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

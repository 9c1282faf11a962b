/**
 * `maxDatabaseSize` as a HARD limit. lmdb-js grows its memory map by itself whenever a write needs
 * more pages (its own patch of mdb_page_alloc), so the map size cannot enforce the limit. Instead a
 * write is let through only when the file plus an upper bound of what the write can add stays within
 * the limit. The bound, per write transaction (copy-on-write B-trees):
 *   - every value written needs its bytes in pages (compression only shrinks them), counted twice
 *     for the prior-art term index the same transaction updates from documents;
 *   - every key touched dirties at most one leaf and the pages above it: WRITE_PATH_PAGES pages,
 *     but never more pages than the tree already has (a page is copied at most once per transaction);
 *   - the meta, free-list and sub-database root records: FIXED_PAGES.
 * Over-estimating only makes the limit bite a little early; it never lets the file past it.
 */
import type { Capacity } from '../../contract/answers.js';
export type { Capacity } from '../../contract/answers.js';
/** Pages one key may dirty: its leaf plus branch pages up to the root of a 100,000-entry tree. */
export const WRITE_PATH_PAGES = 2;
/** Meta, free-list records, and the roots of the named sub-databases a batch touches. */
export const FIXED_PAGES = 24;
/** Documents (commits, journal entries, retrospectives) are indexed: their text is written again as postings. */
export const DOCUMENT_INDEX_FACTOR = 1;
/** The share of the limit at which the user is warned once. */
export const WARN_AT_SHARE = 0.8;

/** Bytes of a msgpack header at most (str32, array32, map32, bin32) and of a number (float64). */
const HEADER_BYTES = 5;
const NUMBER_BYTES = 9;
/** UTF-8 takes at most three bytes per UTF-16 unit (a surrogate pair: four bytes for two units). */
const UTF8_BYTES_PER_UNIT = 3;

/**
 * An upper bound of the bytes `value` takes encoded as lmdb stores it (msgpack, strings in UTF-8),
 * from string lengths alone: about ten times cheaper than serializing it, which a flush did for
 * every mutation. Field names count as if each object spelled them out (a record spells them once).
 */
export function encodedBytesBound(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return UTF8_BYTES_PER_UNIT * value.length + HEADER_BYTES;
    case 'number':
    case 'bigint':
      return NUMBER_BYTES;
    case 'object': {
      if (value === null) return 1;
      if (ArrayBuffer.isView(value)) return value.byteLength + HEADER_BYTES;
      let bytes = HEADER_BYTES;
      if (Array.isArray(value)) {
        for (const item of value as unknown[]) bytes += encodedBytesBound(item);
        return bytes;
      }
      const record = value as Record<string, unknown>;
      for (const name in record) {
        const field = record[name];
        if (field !== undefined) bytes += UTF8_BYTES_PER_UNIT * name.length + HEADER_BYTES + encodedBytesBound(field);
      }
      return bytes;
    }
    default:
      return 1;
  }
}

export interface WriteEstimateInput {
  /** An upper bound of each value's encoded bytes (see encodedBytesBound), and whether it is an indexed document. */
  values: readonly { bytes: number; document: boolean }[];
  /** Bytes of the data file now. */
  fileBytes: number;
  pageSize: number;
}

/** An upper bound of how many bytes one write transaction can add to the data file. */
export function maxGrowthBytes(input: WriteEstimateInput): number {
  const { values, fileBytes, pageSize } = input;
  let dataBytes = 0;
  for (const value of values) dataBytes += boundedBytes(value);
  return growthOf(values.length, dataBytes, fileBytes, pageSize);
}

/** What one value adds to maxGrowthBytes' data bytes: its own, and the index's share for a document. */
export function boundedBytes(value: { bytes: number; document: boolean }): number {
  return value.bytes * (value.document ? 1 + DOCUMENT_INDEX_FACTOR : 1);
}

/** maxGrowthBytes from its sums: how many values, and their boundedBytes added up. */
export function growthOf(count: number, dataBytes: number, fileBytes: number, pageSize: number): number {
  const existingPages = Math.ceil(fileBytes / pageSize);
  const copiedPages = Math.min(count * WRITE_PATH_PAGES, existingPages);
  return (FIXED_PAGES + copiedPages + Math.ceil(dataBytes / pageSize)) * pageSize;
}

/** Whether a write of at most `growth` bytes keeps the file within `limit`. */
export function fitsWithin(fileBytes: number, growth: number, limit: number): boolean {
  return fileBytes + growth <= limit;
}

export interface UsageWarningInput {
  fileBytes: number;
  limit: number;
  /** Sessions recorded so far (their bytes give the rate). */
  sessions: number;
}

/**
 * The one-line warning once the file has passed WARN_AT_SHARE of the limit, with how many more
 * sessions fit at the rate so far; undefined below it.
 */
export function usageWarning(path: string, input: UsageWarningInput): string | undefined {
  const { fileBytes, limit, sessions } = input;
  if (fileBytes < limit * WARN_AT_SHARE) return undefined;
  const percent = Math.floor((fileBytes / limit) * 100);
  const rate =
    sessions > 0
      ? `about ${Math.max(0, Math.floor((limit - fileBytes) / (fileBytes / sessions)))} more session(s) fit at the current rate`
      : 'no session is recorded yet to tell how many more fit';
  return (
    `the agent-tracker database at ${path} is ${percent}% full (${fileBytes} of ${limit} bytes, maxDatabaseSize): ` +
    `${rate}; raise the "maxDatabaseSize" plugin option (at most 2 GiB). ` +
    'Past the limit, sessions are kept in a spill file beside the database until there is room.'
  );
}

export interface CapacityInput {
  fileBytes: number;
  /**
   * Bytes of the pages the data takes (Store.bytesInUse). The rest of the file is pages freed by
   * earlier writes, which later writes fill before the file grows: given, the rate and the room
   * are taken from it.
   */
  usedBytes?: number;
  limit: number;
  /** Entries recorded so far (commits, journal entries, retrospectives): with them grows everything else. */
  entries: number;
}

/**
 * The room left under the limit, in entries at the rate so far: the bytes the data takes per entry
 * (every table and the index included), never below zero. Free pages in the file count as room.
 */
export function remainingCapacity(input: CapacityInput): Capacity {
  const { fileBytes, limit, entries } = input;
  if (entries <= 0) return { entries: 0, bytesPerEntry: null, moreEntries: null };
  const taken = Math.min(input.usedBytes ?? fileBytes, fileBytes);
  const bytesPerEntry = taken / entries;
  return { entries, bytesPerEntry: Math.round(bytesPerEntry), moreEntries: Math.max(0, Math.floor((limit - taken) / bytesPerEntry)) };
}

/** What doctor's room counts: the entries everything else grows with (the other tables' counts are listed apart). */
const ENTRY_KINDS = 'commits, activities, retrospectives';

/** The capacity as doctor's line says it. */
export function describeCapacity(capacity: Capacity): string {
  if (capacity.moreEntries === null || capacity.bytesPerEntry === null) return 'no commit, activity or retrospective recorded yet to tell how many more fit';
  return `about ${capacity.moreEntries} more entries (${ENTRY_KINDS}) fit at this database's rate: ${capacity.bytesPerEntry} bytes each, over the ${capacity.entries} so far`;
}

/**
 * How each sub-database is compressed. lmdb-js compresses a value with LZ4 (its built-in
 * dictionary) from a size threshold on, and marks it, so values written under any threshold read
 * back the same: the threshold can change without touching stored data. The dictionary cannot.
 *
 * - Entries (commits, journal entries, retrospectives, grades): text of a few hundred bytes, which
 *   the default threshold (1,000 bytes) would leave as it is. From DOCUMENT_THRESHOLD on they are
 *   compressed: about a fifth fewer pages for the entries, measured in bench/prior-art.bench.mjs.
 * - The term index holds packed binary postings, which do not compress: stored as is.
 * - Counters and bookkeeping (agents, sessions, events, meta): small records rewritten often; the
 *   default threshold, so they are compressed only when large.
 */
import type { TableName } from './mutations.js';

/** Entries from this many bytes on are compressed (LZ4 gains nothing on shorter ones). */
export const DOCUMENT_THRESHOLD = 64;
const DOCUMENT_TABLES: ReadonlySet<string> = new Set<TableName>(['commits', 'activities', 'retrospectives', 'communication', 'userGrades']);

/** The `compression` option to open `name` with: the same for every reader and writer of the file. */
export function compressionOf(name: TableName | string): boolean | { threshold: number } {
  if (name === 'terms') return false;
  return DOCUMENT_TABLES.has(name) ? { threshold: DOCUMENT_THRESHOLD } : true;
}

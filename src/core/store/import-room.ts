/**
 * `maxDatabaseSize` for an import: lmdb-js grows its map by itself, so an import is refused before
 * it writes anything unless the file plus an upper bound of what its absent records can add stays
 * within the limit (the same bound a flush is held to, size-limit.ts).
 */
import fs from 'node:fs';
import { encodedBytesBound, fitsWithin, maxGrowthBytes } from './size-limit.js';
import type { TableName } from './mutations.js';
import type { Store } from './store.js';
import { tableNamed } from './tables.js';

/** lmdb's page size here (store.ts opens every file with it). */
const PAGE_SIZE = 4096;
/** Tables whose records the prior-art index writes again as postings. */
const INDEXED_KINDS: ReadonlySet<string> = new Set(['commits', 'activities', 'retrospectives']);

export interface RoomRecord {
  kind: TableName;
  key: string | string[];
  value: unknown;
}

/** Why the records do not fit within `maxDatabaseSize`, or undefined when they do. Reads only. */
export function importRoomProblem(store: Store, records: readonly RoomRecord[]): string | undefined {
  let fileBytes = 0;
  try {
    fileBytes = fs.statSync(store.path).size;
  } catch {
    fileBytes = 0;
  }
  const values: { bytes: number; document: boolean }[] = [];
  for (const record of records) {
    if (tableNamed(store.tables, record.kind).doesExist(record.key)) continue;
    values.push({ bytes: encodedBytesBound(record.key) + encodedBytesBound(record.value), document: INDEXED_KINDS.has(record.kind) });
  }
  if (values.length === 0) return undefined;
  const growth = maxGrowthBytes({ values, fileBytes, pageSize: PAGE_SIZE });
  if (fitsWithin(fileBytes, growth, store.maxDatabaseSize)) return undefined;
  return (
    `importing ${values.length} new records could take the database at ${store.path} to ${fileBytes + growth} bytes, past maxDatabaseSize ` +
    `(${store.maxDatabaseSize} bytes). Raise the "maxDatabaseSize" plugin option (at most 2 GiB) and import again. Nothing was imported.`
  );
}

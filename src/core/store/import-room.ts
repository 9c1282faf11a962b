/**
 * `maxDatabaseSize` for an import: lmdb-js grows its map by itself, so an import is refused before
 * it writes anything unless the file plus an upper bound of what its absent records can add stays
 * within the limit (the same bound a flush is held to, size-limit.ts).
 */
import fs from 'node:fs';
import { boundedBytes, encodedBytesBound, fitsWithin, growthOf } from './size-limit.js';
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

/**
 * Whether the records added one at a time fit within `maxDatabaseSize` (`problem`: why not, or
 * undefined when they do). Keeps two sums, not the records, for a file read as it goes. Reads only.
 */
export class ImportRoom {
  private count = 0;
  private dataBytes = 0;

  constructor(private readonly store: Store) {}

  add(record: RoomRecord): void {
    if (tableNamed(this.store.tables, record.kind).doesExist(record.key)) return;
    this.count += 1;
    this.dataBytes += boundedBytes({ bytes: encodedBytesBound(record.key) + encodedBytesBound(record.value), document: INDEXED_KINDS.has(record.kind) });
  }

  problem(): string | undefined {
    if (this.count === 0) return undefined;
    const { store } = this;
    let fileBytes = 0;
    try {
      fileBytes = fs.statSync(store.path).size;
    } catch {
      fileBytes = 0;
    }
    const growth = growthOf(this.count, this.dataBytes, fileBytes, PAGE_SIZE);
    if (fitsWithin(fileBytes, growth, store.maxDatabaseSize)) return undefined;
    return (
      `importing ${this.count} new records could take the database at ${store.path} to ${fileBytes + growth} bytes, past maxDatabaseSize ` +
      `(${store.maxDatabaseSize} bytes). Raise the "maxDatabaseSize" plugin option (at most 2 GiB) and import again. Nothing was imported.`
    );
  }
}

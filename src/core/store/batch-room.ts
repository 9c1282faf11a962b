/**
 * lmdb-js grows its map on demand, so the size limit is enforced here, hard: a batch is refused
 * unless the file plus an upper bound of what it can add stays within maxDatabaseSize, and the
 * disk has room for that bound (size-limit.ts says why the bound holds).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Mutation } from './mutations.js';
import { freeBytes } from './preflight.js';
import { diskFull } from './problems.js';
import { encodedBytesBound, fitsWithin, maxGrowthBytes } from './size-limit.js';
import { DatabaseFullError } from './store-errors.js';

/** lmdb's page size on the platforms lmdb-js ships for (the OS page size). */
export const PAGE_SIZE = 4096;

/** The documents a mutation writes, for the size bound: indexed records count their text twice. */
const DOCUMENT_TABLES: ReadonlySet<Mutation['table']> = new Set(['commits', 'activities']);

/**
 * Throws unless `mutations` fit in the database at `database` within `maxDatabaseSize`, and on its disk.
 * @throws DatabaseFullError (the setting to raise) or the disk-full StoreProblem.
 */
export function ensureBatchFits(database: string, maxDatabaseSize: number, mutations: readonly Mutation[]): void {
  let size = 0;
  try {
    size = fs.statSync(database).size;
  } catch {
    return;
  }
  const values = mutations.map((mutation) => ({
    bytes: encodedBytesBound(mutation),
    document: DOCUMENT_TABLES.has(mutation.table) || (mutation.table === 'agents' && mutation.ops.some((op) => 'retrospective' in op)),
  }));
  // A replayed event's journal entry is one more key and an indexed document (its bytes are in the event's bound too).
  for (const mutation of mutations) if (mutation.table === 'events' && mutation.activity) values.push({ bytes: encodedBytesBound(mutation.activity), document: true });
  const growth = maxGrowthBytes({ values, fileBytes: size, pageSize: PAGE_SIZE });
  if (!fitsWithin(size, growth, maxDatabaseSize)) {
    throw new DatabaseFullError(
      `the agent-tracker database at ${database} is full (${size} bytes, maxDatabaseSize ${maxDatabaseSize}). ` +
        'Raise the "maxDatabaseSize" plugin option (at most 2 GiB); nothing is lost: what waits is kept in memory and, at the end of the session, in a spill file beside the database.',
    );
  }
  const free = freeBytes(path.dirname(database));
  if (free !== undefined && free < growth) throw diskFull(path.dirname(database), free, growth);
}

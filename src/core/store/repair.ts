/**
 * `agent-tracker repair`: rebuilds a damaged database from everything that can still be read.
 *   1. salvage every readable record of the damaged file, crash-isolated (salvage.ts);
 *   2. salvage the newest snapshot that passes verification, for what the damaged file lost;
 *   3. write a fresh database from both (the file's own record wins: it is newer), indexes rebuilt;
 *   4. run the refill steps (the seam where an import from OpenCode's own store refills what even
 *      the snapshot did not have);
 *   5. put the damaged file aside (never deleted) and the fresh one in its place.
 * A dry run does 1-2 and reports what 3-5 would keep, recover and lose.
 */
import fs from 'node:fs';
import type { Key } from 'lmdb';
import type { SalvagedTable, TableSalvage } from './salvage.js';
import { SALVAGED_TABLES, salvageFile } from './salvage.js';
import { lmdbFileProblem } from './lmdb-file-check.js';
import { snapshotsOf } from './snapshot.js';
import { Store } from './store.js';
import type { DocumentIndexer, HistoryTable, MergeRecord } from './store.js';
import { lastKnownEntries, recordVerified, sidecarPath, verifySync } from './verify.js';

export interface TableRepairCounts {
  /** Read from the damaged file. */
  kept: number;
  /** Not readable in the damaged file, taken from the snapshot. */
  recovered: number;
  /** Known to have been in the damaged file and found nowhere; null when its count could not be read. */
  lost: number | null;
  /** Damaged pages of the damaged file met in this table (each hid records). */
  skippedRanges: number;
}

export interface RefillResult {
  name: string;
  added: number;
}

/**
 * A step run on the fresh database before it replaces the damaged one, e.g. the import from
 * OpenCode's own history store that refills sessions, tokens, tool calls and commits a crash lost.
 */
export type RefillStep = (store: Store) => Promise<RefillResult>;

export interface RepairOptions {
  path: string;
  maxDatabaseSize: number;
  dryRun?: boolean;
  /** Refill steps, run in order on the fresh database (none by default). */
  refill?: readonly RefillStep[];
  now?: Date;
  /** Keeps the fresh file's term index in step with what is merged into it (search/indexer.ts). */
  indexer: DocumentIndexer;
}

export interface RepairReport {
  database: string;
  dryRun: boolean;
  /** The snapshot merged, when one passed verification. */
  snapshot: string | null;
  /** Where the damaged file was put (not on a dry run). */
  damagedFileKeptAt: string | null;
  tables: Record<SalvagedTable, TableRepairCounts>;
  refilled: RefillResult[];
}

/** The newest snapshot whose every page reads (checked out of process), salvaged. */
function newestGoodSnapshot(database: string): { file: string; tables: Record<SalvagedTable, TableSalvage> } | undefined {
  for (const snapshot of snapshotsOf(database)) {
    if (verifySync(snapshot.file).ok) return { file: snapshot.file, tables: salvageFile(snapshot.file) };
  }
  return undefined;
}

/**
 * How many records the table is known to have held: records are never deleted, so the file's own
 * count and the count at its last verified state are both lower bounds, and the larger stands. A
 * table read whole with no count anywhere held what was read; a damaged one with none is unknown.
 */
function lossBaseline(fromFile: TableSalvage, lastKnown: number | undefined): number | undefined {
  const known = [fromFile.expected, lastKnown].filter((count): count is number => typeof count === 'number');
  if (known.length > 0) return Math.max(...known);
  return fromFile.skippedRanges === 0 ? fromFile.records.size : undefined;
}

function stampOf(date: Date): string {
  return date.toISOString().replace(/[-:.]/g, '');
}

/** How much of a file's start is looked at to tell text from a database page. */
const TEXT_PROBE_BYTES = 4096;

/**
 * Why the thing at `database` was never a database, so that repair must not put one in its place (a
 * wrong --db: a folder, or a text file such as a config): undefined for anything that may be one,
 * however damaged. An lmdb file begins with its first page's number, 0, so its first bytes are NUL.
 */
function notADatabase(database: string): string | undefined {
  const stat = fs.statSync(database);
  if (stat.isDirectory()) return 'is a folder, not an agent-tracker database';
  if (!stat.isFile()) return 'is not a regular file, so not an agent-tracker database';
  if (stat.size === 0 || lmdbFileProblem(database) === undefined) return undefined;
  const head = Buffer.alloc(Math.min(stat.size, TEXT_PROBE_BYTES));
  const fd = fs.openSync(database, 'r');
  try {
    fs.readSync(fd, head, 0, head.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  return head.includes(0) ? undefined : 'holds text, not an agent-tracker database';
}

function moveIfExists(from: string, to: string): void {
  if (fs.existsSync(from)) fs.renameSync(from, to);
}

/**
 * Repairs the database at `options.path` (see the module comment).
 * @throws Error when there is no file to repair.
 */
export async function repairDatabase(options: RepairOptions): Promise<RepairReport> {
  const database = options.path;
  const now = options.now ?? new Date();
  if (!fs.existsSync(database)) throw new Error(`there is no database at ${database}: nothing to repair`);
  const foreign = notADatabase(database);
  if (foreign) throw new Error(`${database} ${foreign}: nothing was changed. Check the path (--db, AGENT_TRACKER_DB_PATH or the "databasePath" option)`);
  // Read even when the header is bad: the children may crash, this process never does.
  const damagedTables = salvageFile(database);
  const snapshot = newestGoodSnapshot(database);
  // When the damaged file's own counts are unreadable, the counts of its last verified state stand in.
  const lastKnown = lastKnownEntries(database) ?? {};

  const tables = {} as Record<SalvagedTable, TableRepairCounts>;
  const merged = new Map<SalvagedTable, { key: Key; value: unknown }[]>();
  for (const table of SALVAGED_TABLES) {
    const fromFile = damagedTables[table];
    const records = [...fromFile.records.values()];
    let recovered = 0;
    for (const [id, record] of snapshot?.tables[table].records ?? []) {
      if (fromFile.records.has(id)) continue;
      records.push(record);
      recovered += 1;
    }
    merged.set(table, records);
    const kept = fromFile.records.size;
    const expected = lossBaseline(fromFile, lastKnown[table]);
    tables[table] = {
      kept,
      recovered,
      lost: expected === undefined ? null : Math.max(0, expected - kept - recovered),
      skippedRanges: fromFile.skippedRanges,
    };
  }

  const report: RepairReport = { database, dryRun: options.dryRun === true, snapshot: snapshot?.file ?? null, damagedFileKeptAt: null, tables, refilled: [] };
  if (options.dryRun) return report;

  const fresh = `${database}.repair-${stampOf(now)}`;
  const store = Store.open({ path: fresh, maxDatabaseSize: options.maxDatabaseSize, indexer: options.indexer });
  try {
    store.write((t) => {
      const history: MergeRecord[] = [];
      for (const [table, records] of merged) {
        if (table === 'migrations') for (const record of records) t.migrations.putSync(record.key as string, record.value as never);
        else for (const record of records) history.push({ table: table as HistoryTable, key: record.key, value: record.value });
      }
      store.mergeAbsent(history);
    });
    for (const step of options.refill ?? []) report.refilled.push(await step(store));
  } finally {
    store.close();
  }

  const aside = `${database}.damaged-${stampOf(now)}`;
  fs.renameSync(database, aside);
  moveIfExists(`${database}-lock`, `${aside}-lock`);
  fs.rmSync(sidecarPath(database), { force: true });
  fs.renameSync(fresh, database);
  fs.rmSync(`${fresh}-lock`, { force: true });
  const freshCounts = Object.fromEntries([...merged].map(([table, records]) => [table, records.length]));
  recordVerified(database, freshCounts);
  report.damagedFileKeptAt = aside;
  return report;
}

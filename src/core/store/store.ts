/**
 * The only module that opens the central database for writing, and its one door for writes: every
 * write runs in `write`, one synchronous transaction that hands out the writable tables. Everyone
 * else reads `tables`, typed read-only. Flushes (`applyBatch`) and local state (`putRecords`) go
 * through that door too; what they write is in apply-batch.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open } from 'lmdb';
import type { Key, RootDatabase } from 'lmdb';
import type { ScoringRules } from '../rules.js';
import type { StoreAccess } from './access.js';
import type { FlushResult, Mutation, StateMutation, TableName } from './mutations.js';
import { applyMutations, applyStateMutation, provisionedItemsIn } from './apply-batch.js';
import { ensureBatchFits, PAGE_SIZE } from './batch-room.js';
import { salvagedCounts } from './salvage.js';
import { refuseLateWrite, settleLateWrite } from './late-write.js';
import type { LateWriteGuard } from './late-write.js';
import { afterOwnWrite, beforeOwnWrite, recordVerifiedIfOwn } from './verify.js';
import { emptyTables } from './empty-tables.js';
import { tablesOf } from './open-tables.js';
import { preflight } from './preflight.js';
import { newerSchema } from './problems.js';
import { DatabaseFullError, StoreNotWritableError, StoreOpenError } from './store-errors.js';
import { markUsageRewritten, rewriteUsageStep } from './usage-rewrite.js';
import { recountGradePairs } from './grade-pairs.js';
import { chainedRefsOf, chainedRefsOfRecords, markSuspectIndexBuilt, openChainEntry } from '../integrity/record-chain.js';
import type { ChainedRef } from '../integrity/record-chain.js';

export { DatabaseFullError, StoreNotWritableError, StoreOpenError } from './store-errors.js';
export { ZERO_COUNTERS } from './apply-batch.js';
export { readLegacyEntries } from './legacy-read.js';
export type { StoreAccess } from './access.js';
export type { LegacyEntry } from './legacy-read.js';

/**
 * The layout of the stored data. 2: the prior-art index's packed layout (search/index/, index
 * version 3); an older tracker must not append its own layout to it, so it opens such a file
 * read-only. 3: commits, retrospectives and journal entries leave out the fields their key holds.
 * 4: they are stored as arrays in a fixed field order, without their field names, and their times
 * as milliseconds (stored-form.ts). 5: usage records too. 6: a host event's totals as a bit mask of
 * its counters and their values (an older tracker would read no totals and count the event again).
 * 7: usage records count the commits graded by both the agent and the user (grade-pairs.ts; an older
 * tracker would record grades without them, and the file's are counted from its grades when stamped).
 * An older tracker would misread such records, so it opens the file read-only and says to update.
 * A file of an earlier version is stamped at its first writable open (its records stay as they
 * are and read the same); an index of an earlier layout is rebuilt once (query/reindex.ts) by
 * `agent-tracker prior-art` or the first prior-art search.
 */
export const SCHEMA_VERSION = 7;
/** The first version whose usage records count graded pairs: an older file's are counted when it is stamped. */
const GRADE_PAIRS_SINCE = 7;
const MAX_NAMED_DATABASES = 16;
/** The two meta pages at the start of every lmdb file. */
const META_PAGES = 2;

/** The page counts lmdb's getStats reports for one B-tree. */
interface LmdbTreeStats {
  treeBranchPageCount: number;
  treeLeafPageCount: number;
  overflowPages: number;
}

export type { HistoryTable, MetaValues, Table, TableKey, Tables, TermIndexKey, WritableTable, WritableTables, WrittenDocument } from './tables.js';
export { STORED_NAMES, tableNamed } from './tables.js';
import type { HistoryTable, MetaValues, Table, Tables, WritableTable, WritableTables, WrittenDocument } from './tables.js';
import type { TableKey } from './tables.js';
import { STORED_NAMES, tableKeyOf } from './tables.js';

/** One record to merge: where it goes, its key and its stored value. */
export interface MergeRecord {
  table: HistoryTable;
  key: Key;
  value: unknown;
}

export interface MergeCounts {
  added: number;
  skipped: number;
  addedByTable: Partial<Record<HistoryTable, number>>;
  /** Records whose key was there and that `resolve` wrote over (counted in `skipped` too); absent when none. */
  resolved?: number;
}

/** What a merge tells its caller, and asks it, record by record (inside the merge's transaction). */
export interface MergeHooks {
  /** Each record as it is merged: written (`added`, its key was absent) or not. */
  observe?: (record: MergeRecord, added: boolean) => void;
  /**
   * For a record whose key is there: the value to write over the stored one (a merge the caller decides,
   * e.g. two sheets of one agent), or undefined to keep the stored one.
   */
  resolve?: (record: MergeRecord, stored: unknown) => unknown;
}

/** The tables whose records are searchable documents, by the kind the indexers know them as. */
const DOCUMENT_KIND_OF: Partial<Record<HistoryTable, WrittenDocument['kind']>> = {
  commits: 'commit',
  activities: 'activity',
  retrospectives: 'retrospective',
};

/**
 * Keeps an index in step with the documents a write adds, inside that write's transaction (the
 * only code besides the store handed writable tables). The store persists and does not know what
 * an index means: search/indexer.ts gives the term index's (`termIndexer`), and every writer
 * passes it (or `addIndexer` it before its first document).
 */
export type DocumentIndexer = ((tables: WritableTables, documents: WrittenDocument[]) => void) & {
  /**
   * Work a write leaves for later (the term index merges its runs), one bounded step inside the
   * caller's transaction; returns whether any is left. Kept out of the writes themselves so a
   * flush at a turn's end does not wait for it.
   */
  maintain?: (tables: WritableTables) => boolean;
};

export interface StoreOptions {
  path: string;
  maxDatabaseSize: number;
  readOnly?: boolean;
  /** The term index kept in step by every write. Without one, a write that adds a searchable document is refused whole. */
  indexer?: DocumentIndexer;
}

/** The refusal of a write that adds documents to a store no indexer was given (yet): nothing of it is written. */
export const NO_INDEXER = 'the prior-art index is not loaded yet, so entries are not written; what is recorded waits in memory';

/** The refusal of a write helper called outside `store.write`: it would write in a transaction of its own. */
const OUTSIDE_WRITE = 'a store write ran outside store.write';
/**
 * Documents mergeAbsent indexes at a time. Each batch is a run of the term index, which a later step
 * merges: 10,000 kept a 55 MB import at 211 MiB (one batch: 303, 2,000: 202) at the CPU of one batch.
 */
export const MERGE_INDEX_BATCH = 10_000;

export class Store implements StoreAccess {
  readonly path: string;
  readonly maxDatabaseSize: number;
  /** Every table, read-only: writes go through `write`. */
  readonly tables: Tables;
  /** The same tables, writable: handed out only inside `write`. */
  private readonly writable: WritableTables;
  /** Whether a `write` transaction is running (a nested `write` joins it). */
  private writing = false;
  private root: RootDatabase | undefined;
  private options: StoreOptions;
  private closed = false;
  /** Why writes are refused (still being checked, damaged, newer schema); undefined when writable. */
  private writeRefusal: string | undefined;
  /** Opened read-only on a file of an earlier schema: not stamped, so what the stamp counts is not counted yet. */
  private unstamped = false;
  /** Called inside the flush transaction with every document written, to keep indexes in step. */
  private readonly indexers: DocumentIndexer[] = [];

  private constructor(root: RootDatabase | undefined, options: StoreOptions) {
    this.root = root;
    this.options = options;
    this.path = options.path;
    this.maxDatabaseSize = options.maxDatabaseSize;
    this.writable = root ? tablesOf(root) : emptyTables();
    this.tables = this.writable;
    // Every writer keeps the term index in step, inside its flush transaction (plugin, import, migrate).
    if (options.indexer) this.addIndexer(options.indexer);
  }

  /**
   * Opens (creating when needed) the database at `options.path`: the lmdb file plus its `-lock` file.
   * The place is checked in JS first (preflight.ts); a file written by a newer schema is opened
   * read-only and refuses writes. Does NOT verify every page: see verify.ts for that.
   * @throws StoreProblem (one line with the advice) or StoreOpenError with the path and what to do.
   */
  static open(options: StoreOptions): Store {
    const problem = preflight({ path: options.path, ...(options.readOnly ? { readOnly: true } : {}) });
    if (problem) throw problem;
    const store = new Store(Store.openRoot(options), options);
    store.settleSchema();
    return store;
  }

  /**
   * A store whose tables read as empty and whose writes are refused with `reason`, until `attach`
   * opens the file: the plugin records into memory while the file is checked out of process.
   */
  static pending(options: StoreOptions, reason: string): Store {
    const store = new Store(undefined, options);
    store.writeRefusal = reason;
    return store;
  }

  /** Opens the file behind a pending store (after it passed its checks); the tables switch to it. */
  attach(): void {
    if (this.root || this.closed) return;
    const problem = preflight({ path: this.path, ...(this.options.readOnly ? { readOnly: true } : {}) });
    if (problem) throw problem;
    this.root = Store.openRoot(this.options);
    Object.assign(this.writable, tablesOf(this.root));
    this.writeRefusal = undefined;
    this.settleSchema();
  }

  /** Whether the file is open (false while a pending store waits for its checks). */
  get attached(): boolean {
    return this.root !== undefined;
  }

  /** Why writes are refused, or undefined when the store takes writes. */
  get refusal(): string | undefined {
    return this.writeRefusal;
  }

  /** Whether this read-only store is a file of an earlier schema, which its first writable open stamps. */
  get olderSchema(): boolean {
    return this.unstamped;
  }

  /** Refuses further writes with `reason` (e.g. the check found damage); reads go on. */
  refuseWrites(reason: string): void {
    this.writeRefusal = reason;
  }

  private static openRoot(options: StoreOptions): RootDatabase {
    try {
      if (!options.readOnly) fs.mkdirSync(path.dirname(options.path), { recursive: true });
      return open({
        path: options.path,
        // One file at the path, whatever its name: lmdb-js makes a folder (data.mdb, lock.mdb) for a
        // path without an extension, which every check of the file (preflight, verify) then refuses.
        noSubdir: true,
        mapSize: options.maxDatabaseSize,
        maxDbs: MAX_NAMED_DATABASES,
        compression: true,
        readOnly: options.readOnly ?? false,
      });
    } catch (error) {
      throw new StoreOpenError(
        `cannot open the agent-tracker database at ${options.path}: ${(error as Error).message}. ` +
          'Check that the folder is writable, or set another path with the "databasePath" option or AGENT_TRACKER_DB_PATH.',
      );
    }
  }

  /** Stamps a new or older file with the schema version; a newer one turns the store read-only (nothing written). */
  private settleSchema(): void {
    const stored = this.tables.meta.get('schemaVersion');
    if (stored !== undefined && Number(stored) > SCHEMA_VERSION) {
      this.writeRefusal = newerSchema(this.path, Number(stored), SCHEMA_VERSION).message;
      return;
    }
    if (stored !== undefined && Number(stored) < SCHEMA_VERSION && this.options.readOnly) this.unstamped = true;
    if ((stored === undefined || Number(stored) < SCHEMA_VERSION) && !this.options.readOnly) {
      // No version and no journal: a new file (a file from before the version has a journal).
      const created = stored === undefined && [...this.tables.activities.getRange({ limit: 1 })].length === 0;
      this.write((tables) => {
        tables.meta.putSync('schemaVersion', SCHEMA_VERSION);
        if (created) {
          markSuspectIndexBuilt(tables);
          markUsageRewritten(tables);
        } else if (Number(stored ?? 0) < GRADE_PAIRS_SINCE) {
          recountGradePairs(tables);
        }
      });
    }
  }

  /**
   * A consistent copy of the open database at `target` (lmdb copies while it stays open). Not
   * lmdb's compacting copy: writing to one (a user who puts a snapshot back in place) can abort the
   * process inside lmdb (mdb_page_alloc) or fail every write transaction. A plain copy keeps the
   * free pages (a few percent of the file) and takes writes like the database it came from.
   */
  async backup(target: string): Promise<void> {
    if (!this.root) throw new StoreNotWritableError(this.writeRefusal ?? 'the database is not open');
    await this.root.backup(target, false);
  }

  /** Registers an index updater that runs inside every flush transaction (once: a second add of the same is ignored). */
  addIndexer(indexer: DocumentIndexer): void {
    if (!this.indexers.includes(indexer)) this.indexers.push(indexer);
  }

  /**
   * One step of the deferred work, in its own transaction: the indexers' (DocumentIndexer.maintain)
   * and the rewrite of usage records from before schema version 5 (usage-rewrite.ts). Returns
   * whether any is left. Nothing to do on a store not open for writing.
   */
  maintainIndexes(): boolean {
    if (!this.root || this.writeRefusal !== undefined || this.options.readOnly === true) return false;
    const steps = this.indexers.filter((indexer) => indexer.maintain !== undefined);
    return this.write((tables) => {
      const indexesLeft = steps.map((indexer) => indexer.maintain?.(tables) === true).includes(true);
      return rewriteUsageStep(tables) || indexesLeft;
    });
  }

  /**
   * Runs the indexers on documents written outside `applyBatch`; call inside `write`. With no
   * indexer, throws (the transaction, documents included, is not written): an entry missing from
   * the index would never be found by prior-art.
   */
  indexDocuments(documents: WrittenDocument[]): void {
    const tables = this.writableTables();
    if (documents.length === 0) return;
    if (this.indexers.length === 0) throw new StoreNotWritableError(NO_INDEXER);
    for (const indexer of this.indexers) indexer(tables, documents);
  }

  /**
   * The additive merge of migrations and imports: writes each record whose key is absent, keeps
   * every record already there (unless `hooks.resolve` gives the value to write over it), and indexes
   * the documents written, `indexBatch` at a time, so records read as they come (an import) are not
   * all held. Call inside `write`.
   */
  mergeAbsent(records: Iterable<MergeRecord>, indexBatch = MERGE_INDEX_BATCH, hooks: MergeHooks = {}): MergeCounts {
    const counts: MergeCounts = { added: 0, skipped: 0, addedByTable: {} };
    let written: WrittenDocument[] = [];
    const tables = this.writableTables();
    const chained: ChainedRef[] = [];
    for (const record of records) {
      const table = tables[tableKeyOf(record.table)] as unknown as WritableTable<unknown, Key>;
      if (table.doesExist(record.key)) {
        counts.skipped += 1;
        hooks.observe?.(record, false);
        const value = hooks.resolve?.(record, table.get(record.key));
        if (value !== undefined) {
          // Opened before the write: the chain compares the stored record with its last digest first.
          const chain = openChainEntry(tables, chainedRefsOfRecords([record]));
          table.putSync(record.key, value);
          chain.close(new Date().toISOString());
          counts.resolved = (counts.resolved ?? 0) + 1;
        }
        continue;
      }
      table.putSync(record.key, record.value);
      hooks.observe?.(record, true);
      counts.added += 1;
      counts.addedByTable[record.table] = (counts.addedByTable[record.table] ?? 0) + 1;
      const kind = DOCUMENT_KIND_OF[record.table];
      if (kind) written.push({ kind, key: record.key, value: record.value } as WrittenDocument);
      if (written.length >= indexBatch) {
        this.indexDocuments(written);
        written = [];
      }
      chained.push(...chainedRefsOfRecords([record]));
    }
    openChainEntry(tables, chained).close(new Date().toISOString());
    this.indexDocuments(written);
    return counts;
  }

  /** Empties one sub-database, for a rebuild of derived data (the term index). Call inside `write`. */
  clearTable(name: TableName): void {
    (this.writableTables()[tableKeyOf(name)] as unknown as { clearSync(): void }).clearSync();
  }

  /** The writable tables, for the helpers that must run inside `write`; a call outside it is refused. */
  private writableTables(): WritableTables {
    if (!this.writing) throw new StoreNotWritableError(OUTSIDE_WRITE);
    return this.writable;
  }

  meta(): MetaValues {
    const meta = this.tables.meta;
    return {
      schemaVersion: Number(meta.get('schemaVersion') ?? 0),
      flushes: Number(meta.get('flushes') ?? 0),
      lastFlushAt: String(meta.get('lastFlushAt') ?? ''),
    };
  }

  /** What setup has provisioned into this OpenCode config folder so far (item ids), as stored. */
  provisionedItems(configDir: string): string[] {
    return provisionedItemsIn(this.tables, configDir);
  }

  /**
   * The one door for writes: runs `action` in one synchronous write transaction and hands it the
   * writable tables; all of it is written or nothing. A `write` inside another joins its
   * transaction. A full map becomes a DatabaseFullError.
   * @throws StoreNotWritableError while the store refuses writes (pending, damaged, newer, read-only).
   */
  write<T>(action: (tables: WritableTables) => T): T {
    const root = this.openForWrites();
    if (this.writing) return action(this.writable);
    try {
      // The chain of own writes (verify.ts): only a file changed by this process's commits alone stays verified.
      beforeOwnWrite(this.path);
      this.writing = true;
      const result = root.transactionSync(() => action(this.writable));
      afterOwnWrite(this.path);
      return result;
    } catch (error) {
      const message = (error as Error).message ?? String(error);
      if (/MDB_MAP_FULL|map.?full|MapFull/i.test(message)) {
        throw new DatabaseFullError(
          `the agent-tracker database at ${this.path} is full (maxDatabaseSize ${this.maxDatabaseSize} bytes). ` +
            'Raise the "maxDatabaseSize" plugin option (at most 2 GiB); nothing buffered was lost.',
        );
      }
      throw error;
    } finally {
      this.writing = false;
    }
  }

  /**
   * Applies a batch in ONE transaction: agent ops replayed on the stored agent, counter deltas added
   * to the stored counters, write-once records written only when absent, indexes updated.
   * All or nothing: on a throw, nothing of the batch is written. The size limit is hard, for the
   * last flush of a process too: what does not fit stays with the caller (spill.ts keeps it).
   * With `late`, a caller that waits a bounded time: the batch is refused once it stopped waiting,
   * and marked merged under its spill id when the commit comes near its deadline (spill.ts).
   */
  applyBatch(mutations: readonly Mutation[], rules: ScoringRules, now: string, late?: LateWriteGuard): FlushResult {
    const started = performance.now();
    this.openForWrites();
    ensureBatchFits(this.path, this.maxDatabaseSize, mutations);
    const applied = this.write((tables) => {
      // The write lock is held from here: the wait for it (another process's transaction) is behind us.
      refuseLateWrite(late);
      const chain = openChainEntry(tables, chainedRefsOf(mutations));
      const batch = applyMutations(tables, mutations, rules, now);
      tables.meta.putSync('flushes', Number(tables.meta.get('flushes') ?? 0) + 1);
      tables.meta.putSync('lastFlushAt', now);
      chain.close(now);
      this.indexDocuments(batch.written);
      settleLateWrite(tables, late, now);
      return batch;
    });
    return { mutations: mutations.length, durationMs: performance.now() - started, counted: applied.counted, created: applied.created };
  }

  /**
   * Writes local state (a project profile, a backfill mark, a review) in one transaction, durable
   * at once: the batch path without a flush's count, for callers with no write buffer (the CLI).
   */
  putRecords(records: readonly StateMutation[]): void {
    this.openForWrites();
    ensureBatchFits(this.path, this.maxDatabaseSize, records);
    this.write((tables) => {
      const chain = openChainEntry(tables, chainedRefsOfRecords(records.map((record) => ({ table: record.table, key: record.key, value: 'value' in record ? record.value : undefined }))));
      for (const record of records) applyStateMutation(tables, record);
      chain.close(new Date().toISOString());
    });
  }

  /** The open root, unless writes are refused. */
  private openForWrites(): RootDatabase {
    if (!this.root || this.writeRefusal) throw new StoreNotWritableError(this.writeRefusal ?? 'the database is not open');
    if (this.options.readOnly === true) throw new StoreNotWritableError(`the agent-tracker database at ${this.path} was opened read-only`);
    return this.root;
  }

  /** Entry counts per sub-database, by their persisted names, for `doctor`. */
  counts(): Record<TableName, number> {
    const result = {} as Record<TableName, number>;
    for (const [key, table] of Object.entries(this.tables) as [TableKey, Table<unknown>][]) {
      result[STORED_NAMES[key]] = table.getKeysCount();
    }
    return result;
  }

  /** Keeps the file marked verified when only the tracker's own recorded commits changed it (verify.ts). */
  keepVerifiedIfOwn(): void {
    recordVerifiedIfOwn(this.path, () => salvagedCounts(this.tables));
  }

  /**
   * Closes lmdb's memory map and maps the file again, between transactions. lmdb maps the whole
   * file, and each page a transaction reads or writes (with its neighbours, which the kernel maps
   * along) stays in the process's resident memory until the map is closed: a backfill's RSS grew
   * with the file it wrote, by all of it (48 MiB at 3,000 sessions). The tables stay the same
   * objects, on the new map. Nothing to do inside a transaction or on a store not open.
   */
  releaseMappedPages(): void {
    if (!this.root || this.writing || this.closed) return;
    void this.root.close();
    this.root = undefined;
    try {
      this.root = Store.openRoot(this.options);
    } catch (error) {
      // The file cannot be opened again (removed, made unreadable): reads find nothing, writes are refused with why.
      Object.assign(this.writable, emptyTables());
      this.writeRefusal = (error as Error).message;
      throw error;
    }
    Object.assign(this.writable, tablesOf(this.root));
  }

  /**
   * Bytes of the pages the data takes: every table, the index, and lmdb's own tree of tables and
   * free-page lists; undefined while the file is not open. The rest of the file is pages earlier
   * writes freed (copy-on-write), which later writes reuse before the file grows.
   */
  bytesInUse(): number | undefined {
    if (!this.root) return undefined;
    const pagesOf = (stats: LmdbTreeStats | undefined) => (stats ? stats.treeBranchPageCount + stats.treeLeafPageCount + stats.overflowPages : 0);
    const rootStats = this.root.getStats() as { root?: LmdbTreeStats; free?: LmdbTreeStats };
    let pages = META_PAGES + pagesOf(rootStats.root) + pagesOf(rootStats.free);
    for (const table of Object.values(this.tables)) pages += pagesOf((table as unknown as { getStats(): LmdbTreeStats }).getStats());
    return pages * PAGE_SIZE;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.root) void this.root.close();
  }
}


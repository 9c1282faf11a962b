/**
 * The only module that imports lmdb. Opens the central database with its named sub-databases,
 * applies a batch of buffered mutations in ONE synchronous transaction, and offers typed reads.
 */
import { chainedRefsOf, chainedRefsOfRecords, openChainEntry } from '../integrity/record-chain.js';
import fs from 'node:fs';
import path from 'node:path';
import { open } from 'lmdb';
import type { Database, Key, RootDatabase } from 'lmdb';
import { applyAgentOp, newAgent } from '../rules.js';
import type { ScoringRules } from '../rules.js';
import type { AgentRecord, CounterDeltas, CounterName, RetrospectiveEntry, UsageCounters, UsageRecord } from '../types.js';
import type { FlushResult, Mutation, SessionsMutation, TableName } from './mutations.js';
import { addUsage, replayDelta } from './replay.js';
import { lmdbFileProblem } from './lmdb-file-check.js';
import { lmdbTreeProblem } from './lmdb-walk.js';
import { afterOwnWrite, beforeOwnWrite } from './verify.js';
import { compressionOf } from './compression.js';
import { hasStoredForm, restoredValue, storedValue } from './stored-form.js';
import { emptyTables } from './empty-tables.js';
import { freeBytes, preflight } from './preflight.js';
import { diskFull, newerSchema } from './problems.js';
import { encodedBytesBound, fitsWithin, maxGrowthBytes } from './size-limit.js';

/**
 * The layout of the stored data. 2: the prior-art index's packed layout (search/index/, index
 * version 3); an older tracker must not append its own layout to it, so it opens such a file
 * read-only. 3: commits, retrospectives and journal entries leave out the fields their key holds.
 * 4: they are stored as arrays in a fixed field order, without their field names, and their times
 * as milliseconds (stored-form.ts).
 * An older tracker would misread such records, so it opens the file read-only and says to update.
 * A file of an earlier version is stamped at its first writable open (its records stay as they
 * are and read the same); an index of an earlier layout is rebuilt once (search/reindex.ts) by
 * `agent-tracker prior-art` or the first prior-art search.
 */
export const SCHEMA_VERSION = 4;
const MAX_NAMED_DATABASES = 16;
/** lmdb's page size on the platforms lmdb-js ships for (the OS page size). */
const PAGE_SIZE = 4096;
/** The two meta pages at the start of every lmdb file. */
const META_PAGES = 2;

/** The page counts lmdb's getStats reports for one B-tree. */
interface LmdbTreeStats {
  treeBranchPageCount: number;
  treeLeafPageCount: number;
  overflowPages: number;
}

export type { HistoryTable, MetaValues, Table, Tables, TermIndexKey, WrittenDocument } from './tables.js';
import type { HistoryTable, MetaValues, Table, Tables, WrittenDocument } from './tables.js';

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
}

/** The tables whose records are searchable documents, by the kind the indexers know them as. */
const DOCUMENT_KIND_OF: Partial<Record<HistoryTable, WrittenDocument['kind']>> = {
  commits: 'commit',
  activities: 'activity',
  retrospectives: 'retrospective',
};

/** The put option that writes a record only when its key is absent (lmdb's MDB_NOOVERWRITE). */
const WRITE_ONCE = { noOverwrite: true } as const;

/** Records read once and written once per batch, whatever number of mutations touch them. */
interface BatchCache {
  agents: Map<string, AgentRecord>;
  sessions: Map<string, { key: [string, string, string]; record: UsageRecord }>;
  /** The session counters replayable events added (see FlushResult.counted). */
  counted: SessionsMutation[];
  /** Host sessions with many events in the batch and none held before it -> their event ids written so far. */
  freshEventSessions: Map<string, Set<string>>;
}

/** Events of one host session in a batch from which one probe for any held event pays (a backfill's whole session). */
const PROBE_EVENTS_FROM = 16;

/** Raised when the database cannot take more data; the message says which setting to raise. */
export class DatabaseFullError extends Error {
  override name = 'DatabaseFullError';
}

/** Raised when the database cannot be opened; the message names the path and the cause. */
export class StoreOpenError extends Error {
  override name = 'StoreOpenError';
}

/**
 * Keeps an index in step with the documents a write adds, inside that write's transaction. The
 * store persists and does not know what an index means: search/indexer.ts gives the term index's
 * (`termIndexer`), and every writer passes it (or `addIndexer` it before its first document).
 */
export type DocumentIndexer = ((tables: Tables, documents: WrittenDocument[]) => void) & {
  /**
   * Work a write leaves for later (the term index merges its runs), one bounded step inside the
   * caller's transaction; returns whether any is left. Kept out of the writes themselves so a
   * flush at a turn's end does not wait for it.
   */
  maintain?: (tables: Tables) => boolean;
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

/** Raised by writes to a store that is not (yet) open for writing: still being checked, damaged, or newer. */
export class StoreNotWritableError extends Error {
  override name = 'StoreNotWritableError';
}

/**
 * One entry table whose values are stored in a form of their own (stored-form.ts): written in
 * it, read whole. Everything else lmdb offers (stats, clear) passes through.
 */
function storedFormTable<V, K extends Key>(db: Database<V, K>, name: TableName): Table<V, K> {
  const restore = (key: K, value: V | undefined): V | undefined => (value === undefined ? value : (restoredValue(name, key, value) as V));
  // lmdb's typings say putSync returns nothing; it returns whether it wrote (false under noOverwrite when the key is there).
  const raw = db as unknown as Table<V, K>;
  const table: Table<V, K> & Pick<Database<V, K>, 'getStats' | 'clearSync'> = {
    get: (key) => restore(key, db.get(key)),
    doesExist: (key) => db.doesExist(key),
    getRange: (options) => db.getRange(options).map(({ key, value }) => ({ key, value: restore(key, value) as V })),
    getKeysCount: (options) => db.getKeysCount(options),
    getKeys: (options) => db.getKeys(options),
    putSync: (key, value, options) => raw.putSync(key, storedValue(name, key, value) as V, options),
    removeSync: (key) => db.removeSync(key),
    getStats: () => db.getStats(),
    clearSync: () => db.clearSync(),
  };
  return table;
}

/** Names the tables of an open root database, each with the compression that pays for it (compression.ts). */
function tablesOf(root: RootDatabase): Tables {
  const table = <V, K extends Key>(name: TableName): Table<V, K> => {
    const db = root.openDB<V, K>({ name, compression: compressionOf(name) });
    return hasStoredForm(name) ? storedFormTable(db, name) : (db as unknown as Table<V, K>);
  };
  return {
    agents: table('agents'),
    sessions: table('sessions'),
    commits: table('commits'),
    communication: table('communication'),
    retrospectives: table('retrospectives'),
    activities: table('activities'),
    projects: table('projects'),
    migrations: table('migrations'),
    userGrades: table('userGrades'),
    events: table('events'),
    terms: table('terms'),
    meta: table('meta'),
  };
}

/** The documents a mutation writes, for the size bound: indexed records count their text twice. */
const DOCUMENT_TABLES: ReadonlySet<Mutation['table']> = new Set(['commits', 'activities']);

/** Every usage counter at zero: a usage record's start. */
export const ZERO_COUNTERS: Readonly<UsageCounters> = zeroCounters();

/** A fresh object of every usage counter at zero (an object literal: see `newUsageRecord`). */
function zeroCounters(): UsageCounters {
  return {
    toolCalls: 0,
    toolFailures: 0,
    commands: 0,
    commits: 0,
    pushes: 0,
    bugs: 0,
    gradedCommits: 0,
    gradeSum: 0,
    csDelta: 0,
    messages: 0,
    tokensInput: 0,
    tokensOutput: 0,
    tokensReasoning: 0,
    tokensCacheRead: 0,
    tokensCacheWrite: 0,
    cost: 0,
  };
}

/**
 * A session's first usage record: counters at zero, then what the session is, then its end time
 * (the key order records have always had). Built from a literal: V8 (Node 20) takes about 10 µs for
 * `{ ...ZERO_COUNTERS, ...init, lastAt }`, half a flush's time for a batch of new sessions.
 */
function newUsageRecord(init: Omit<UsageRecord, CounterName | 'lastAt'>, lastAt: string): UsageRecord {
  return Object.assign(zeroCounters(), init, { lastAt });
}

/** The meta key holding what setup provisioned into one config folder. */
function provisionedKey(configDir: string): string {
  return `provisioned:${configDir}`;
}

export class Store {
  readonly path: string;
  readonly maxDatabaseSize: number;
  readonly tables: Tables;
  private root: RootDatabase | undefined;
  private options: StoreOptions;
  private closed = false;
  /** Why writes are refused (still being checked, damaged, newer schema); undefined when writable. */
  private writeRefusal: string | undefined;
  /** Called inside the flush transaction with every document written, to keep indexes in step. */
  private readonly indexers: DocumentIndexer[] = [];

  private constructor(root: RootDatabase | undefined, options: StoreOptions) {
    this.root = root;
    this.options = options;
    this.path = options.path;
    this.maxDatabaseSize = options.maxDatabaseSize;
    this.tables = root ? tablesOf(root) : emptyTables();
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
    Object.assign(this.tables, tablesOf(this.root));
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

  /** Refuses further writes with `reason` (e.g. the check found damage); reads go on. */
  refuseWrites(reason: string): void {
    this.writeRefusal = reason;
  }

  private static openRoot(options: StoreOptions): RootDatabase {
    try {
      if (!options.readOnly) fs.mkdirSync(path.dirname(options.path), { recursive: true });
      return open({
        path: options.path,
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
    if ((stored === undefined || Number(stored) < SCHEMA_VERSION) && !this.options.readOnly) {
      this.transaction(() => this.tables.meta.putSync('schemaVersion', SCHEMA_VERSION));
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
   * One step of the indexers' deferred work (see DocumentIndexer.maintain), in its own
   * transaction; returns whether any is left. Nothing to do on a store not open for writing.
   */
  maintainIndexes(): boolean {
    if (!this.root || this.writeRefusal !== undefined || this.options.readOnly === true) return false;
    const steps = this.indexers.filter((indexer) => indexer.maintain !== undefined);
    if (steps.length === 0) return false;
    return this.transaction(() => steps.map((indexer) => indexer.maintain?.(this.tables) === true).includes(true));
  }

  /**
   * Runs the indexers on documents written outside `applyBatch`; call inside `transaction`. With no
   * indexer, throws (the transaction, documents included, is not written): an entry missing from
   * the index would never be found by prior-art.
   */
  indexDocuments(documents: WrittenDocument[]): void {
    if (documents.length === 0) return;
    if (this.indexers.length === 0) throw new StoreNotWritableError(NO_INDEXER);
    for (const indexer of this.indexers) indexer(this.tables, documents);
  }

  /**
   * The additive merge of migrations and imports: writes each record whose key is absent, keeps
   * every record already there, and indexes the documents written. Call inside `transaction`.
   */
  mergeAbsent(records: Iterable<MergeRecord>): MergeCounts {
    const counts: MergeCounts = { added: 0, skipped: 0, addedByTable: {} };
    const written: WrittenDocument[] = [];
    const added: MergeRecord[] = [];
    for (const record of records) {
      const table = this.tables[record.table] as unknown as Table<unknown, Key>;
      if (table.doesExist(record.key)) {
        counts.skipped += 1;
        continue;
      }
      table.putSync(record.key, record.value);
      counts.added += 1;
      counts.addedByTable[record.table] = (counts.addedByTable[record.table] ?? 0) + 1;
      const kind = DOCUMENT_KIND_OF[record.table];
      if (kind) written.push({ kind, key: record.key, value: record.value } as WrittenDocument);
      added.push(record);
    }
    openChainEntry(this.tables, chainedRefsOfRecords(added)).close(new Date().toISOString());
    this.indexDocuments(written);
    return counts;
  }

  /** Empties one sub-database, for a rebuild of derived data (the term index). Call inside `transaction`. */
  clearTable(name: TableName): void {
    (this.tables[name] as unknown as { clearSync(): void }).clearSync();
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
    const stored: unknown = this.tables.meta.get(provisionedKey(configDir));
    return Array.isArray(stored) ? stored.filter((item): item is string => typeof item === 'string') : [];
  }

  /** Runs `action` in one synchronous write transaction; a full map becomes a DatabaseFullError. */
  transaction<T>(action: () => T): T {
    if (!this.root || this.writeRefusal) throw new StoreNotWritableError(this.writeRefusal ?? 'the database is not open');
    try {
      // The chain of own writes (verify.ts): only a file changed by this process's commits alone stays verified.
      beforeOwnWrite(this.path);
      const result = this.root.transactionSync(action);
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
    }
  }

  /**
   * Applies a batch in ONE transaction: agent ops replayed on the stored agent, counter deltas added
   * to the stored counters, write-once records written only when absent, indexes updated.
   * All or nothing: on a throw, nothing of the batch is written. The size limit is hard, for the
   * last flush of a process too: what does not fit stays with the caller (spill.ts keeps it).
   */
  applyBatch(mutations: readonly Mutation[], rules: ScoringRules, now: string): FlushResult {
    const started = performance.now();
    if (!this.root || this.writeRefusal) throw new StoreNotWritableError(this.writeRefusal ?? 'the database is not open');
    this.ensureFits(mutations);
    const cache: BatchCache = { agents: new Map(), sessions: new Map(), counted: [], freshEventSessions: new Map() };
    this.transaction(() => {
      const chain = openChainEntry(this.tables, chainedRefsOf(mutations));
      const written: WrittenDocument[] = [];
      this.findFreshEventSessions(mutations, cache.freshEventSessions);
      for (const mutation of mutations) this.applyOne(mutation, rules, now, written, cache);
      // Records touched many times in one batch (a backfill) are read and written once each.
      for (const [agent, record] of cache.agents) this.tables.agents.putSync(agent, record);
      for (const { key, record } of cache.sessions.values()) this.tables.sessions.putSync(key, record);
      const meta = this.tables.meta;
      meta.putSync('flushes', Number(meta.get('flushes') ?? 0) + 1);
      meta.putSync('lastFlushAt', now);
      chain.close(now);
      this.indexDocuments(written);
    });
    return { mutations: mutations.length, durationMs: performance.now() - started, counted: cache.counted };
  }

  private applyOne(mutation: Mutation, rules: ScoringRules, now: string, written: WrittenDocument[], cache: BatchCache): void {
    const t = this.tables;
    switch (mutation.table) {
      case 'agents': {
        const agent = cache.agents.get(mutation.key) ?? t.agents.get(mutation.key) ?? newAgent(mutation.key, now, rules);
        for (const op of mutation.ops) {
          if (op.kind === 'grade' && 'retrospective' in op) {
            // A commit is graded once: when another process graded it first, this grade is dropped whole.
            const key: [string, string] = [mutation.key, op.retrospective.commit];
            if (t.retrospectives.doesExist(key)) continue;
            const before = agent.cs;
            applyAgentOp(agent, op, rules);
            const value: RetrospectiveEntry = { ...op.retrospective, score_before: before, score_after: agent.cs };
            t.retrospectives.putSync(key, value);
            written.push({ kind: 'retrospective', key, value });
          } else if (op.kind === 'grade' && 'userGrade' in op) {
            // The user grades a commit once: a second grade (another process, a retry) is dropped whole.
            const key: [string, string] = [op.userGrade.project, op.userGrade.commit];
            const stored = t.userGrades.get(key);
            if (stored && (op.replaces === undefined || stored.grade !== op.replaces)) continue;
            applyAgentOp(agent, op, rules);
            t.userGrades.putSync(key, op.userGrade);
          } else {
            applyAgentOp(agent, op, rules);
          }
        }
        agent.updatedAt = now;
        cache.agents.set(mutation.key, agent);
        break;
      }
      case 'sessions': {
        this.addSessionCounters(cache, mutation.key, mutation.init, mutation.counters, mutation.lastAt);
        break;
      }
      case 'events': {
        // Counted once per host event: only what the store does not hold yet is added.
        // A session that held no event before the batch holds only what the batch wrote: no read each.
        const fresh = cache.freshEventSessions.get(mutation.key[0]);
        const held = fresh && !fresh.has(mutation.key[1]) ? undefined : t.events.get(mutation.key);
        const { delta, totals, changed } = replayDelta(held, mutation.totals);
        if (held !== undefined && !changed) break;
        const { key, init, at } = mutation.session;
        if (changed || held === undefined) this.addSessionCounters(cache, key, init, delta, at);
        if (Object.keys(delta).length > 0) cache.counted.push({ table: 'sessions', key, init, counters: delta, lastAt: at });
        if (held === undefined) {
          for (const { agent, ops } of mutation.agentOps) this.applyOne({ table: 'agents', key: agent, ops }, rules, now, written, cache);
        }
        t.events.putSync(mutation.key, totals);
        fresh?.add(mutation.key[1]);
        break;
      }
      // Write-once records: a put that leaves a stored key alone, instead of a read and then a put.
      case 'commits':
        if (t.commits.putSync(mutation.key, mutation.value, WRITE_ONCE)) written.push({ kind: 'commit', key: mutation.key, value: mutation.value });
        break;
      case 'activities':
        if (t.activities.putSync(mutation.key, mutation.value, WRITE_ONCE)) written.push({ kind: 'activity', key: mutation.key, value: mutation.value });
        break;
      case 'communication':
        t.communication.putSync(mutation.key, mutation.value, WRITE_ONCE);
        break;
      case 'projects':
        t.projects.putSync(mutation.key, mutation.value);
        break;
      case 'provisioned': {
        const items = new Set([...this.provisionedItems(mutation.key), ...mutation.items]);
        t.meta.putSync(provisionedKey(mutation.key), [...items].sort());
        break;
      }
      case 'meta':
        t.meta.putSync(mutation.key, mutation.value);
        break;
    }
  }

  /** Adds to `fresh` the host sessions with many events in `mutations` and none held (one range read each). */
  private findFreshEventSessions(mutations: readonly Mutation[], fresh: Map<string, Set<string>>): void {
    const perSession = new Map<string, number>();
    for (const mutation of mutations) if (mutation.table === 'events') perSession.set(mutation.key[0], (perSession.get(mutation.key[0]) ?? 0) + 1);
    for (const [sessionId, events] of perSession) {
      if (events < PROBE_EVENTS_FROM) continue;
      let held = false;
      for (const { key } of this.tables.events.getRange({ start: [sessionId, ''], limit: 1 })) held = key[0] === sessionId;
      if (!held) fresh.set(sessionId, new Set());
    }
  }

  private addSessionCounters(cache: BatchCache, key: [string, string, string], init: Omit<UsageRecord, CounterName | 'lastAt'>, counters: CounterDeltas, lastAt: string): void {
    // Called once per replayed event: a joined key is cheaper than JSON (no part holds a NUL).
    const id = key.join('\u0000');
    const record: UsageRecord = cache.sessions.get(id)?.record ?? this.tables.sessions.get(key) ?? newUsageRecord(init, lastAt);
    addUsage(record, counters, lastAt);
    cache.sessions.set(id, { key, record });
  }

  /**
   * lmdb-js grows its map on demand, so the size limit is enforced here, hard: a batch is refused
   * unless the file plus an upper bound of what it can add stays within maxDatabaseSize, and the
   * disk has room for that bound (size-limit.ts says why the bound holds).
   */
  private ensureFits(mutations: readonly Mutation[]): void {
    let size = 0;
    try {
      size = fs.statSync(this.path).size;
    } catch {
      return;
    }
    const values = mutations.map((mutation) => ({
      bytes: encodedBytesBound(mutation),
      document: DOCUMENT_TABLES.has(mutation.table) || (mutation.table === 'agents' && mutation.ops.some((op) => 'retrospective' in op)),
    }));
    const growth = maxGrowthBytes({ values, fileBytes: size, pageSize: PAGE_SIZE });
    if (!fitsWithin(size, growth, this.maxDatabaseSize)) {
      throw new DatabaseFullError(
        `the agent-tracker database at ${this.path} is full (${size} bytes, maxDatabaseSize ${this.maxDatabaseSize}). ` +
          'Raise the "maxDatabaseSize" plugin option (at most 2 GiB); nothing is lost: what waits is kept in memory and, at the end of the session, in a spill file beside the database.',
      );
    }
    const free = freeBytes(path.dirname(this.path));
    if (free !== undefined && free < growth) throw diskFull(path.dirname(this.path), free, growth);
  }

  /** Entry counts per sub-database, for `doctor`. */
  counts(): Record<TableName, number> {
    const result = {} as Record<TableName, number>;
    for (const [name, table] of Object.entries(this.tables) as [TableName, Table<unknown>][]) {
      result[name] = table.getKeysCount();
    }
    return result;
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

/** One entry of a legacy (single root database) agent-tracker file. */
export interface LegacyEntry {
  key: string;
  value: unknown;
}

/**
 * Reads every entry of a legacy database read-only: the old layout kept all records in the root
 * database under string keys, msgpack values with compression on. Nothing is ever written there.
 * @throws StoreOpenError when the file cannot be opened.
 */
export function* readLegacyEntries(legacyPath: string): Generator<LegacyEntry> {
  // lmdb crashes the process on a malformed file (and this runs inside OpenCode, on a file in the
  // project): its header and every page its trees reference are checked with plain reads first.
  const problem = lmdbFileProblem(legacyPath) ?? lmdbTreeProblem(legacyPath);
  if (problem) throw new StoreOpenError(`cannot read the legacy database at ${legacyPath}: ${problem}`);
  let root: RootDatabase;
  try {
    root = open({ path: legacyPath, readOnly: true, compression: true });
  } catch (error) {
    throw new StoreOpenError(`cannot open the legacy database at ${legacyPath}: ${(error as Error).message}`);
  }
  try {
    for (const { key, value } of root.getRange()) {
      if (typeof key === 'string') yield { key, value: value as unknown };
    }
  } finally {
    void root.close();
  }
}

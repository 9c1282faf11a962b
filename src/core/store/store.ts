/**
 * The only module that imports lmdb. Opens the central database with its named sub-databases,
 * applies a batch of buffered mutations in ONE synchronous transaction, and offers typed reads.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open } from 'lmdb';
import type { Key, RootDatabase } from 'lmdb';
import { applyAgentOp, newAgent } from '../rules.js';
import type { ScoringRules } from '../rules.js';
import type {
  ActivityEntry,
  AgentRecord,
  CommitRecord,
  CommunicationEvent,
  CounterName,
  MigrationRecord,
  ProjectProfile,
  RetrospectiveEntry,
  UsageCounters,
  UsageRecord,
} from '../types.js';
import type { FlushResult, Mutation, TableName } from './mutations.js';
import { lmdbFileProblem } from './lmdb-file-check.js';
import { indexWrittenDocuments } from '../query/term-index.js';
import type { TermIndexKey } from '../query/term-index.js';

export const SCHEMA_VERSION = 1;
const MAX_NAMED_DATABASES = 16;

/** A read/write view of one named sub-database, free of lmdb's own types for callers. */
export interface Table<V, K extends Key = Key> {
  get(key: K): V | undefined;
  doesExist(key: K): boolean;
  getRange(options?: { start?: K; end?: K; limit?: number; reverse?: boolean }): Iterable<{ key: K; value: V }>;
  getKeysCount(options?: { start?: K; end?: K }): number;
  putSync(key: K, value: V): void;
}

export interface MetaValues {
  schemaVersion: number;
  flushes: number;
  lastFlushAt: string;
}

export interface Tables {
  agents: Table<AgentRecord, string>;
  sessions: Table<UsageRecord, [string, string, string]>;
  commits: Table<CommitRecord, [string, string]>;
  communication: Table<CommunicationEvent, [string, string, string]>;
  retrospectives: Table<RetrospectiveEntry, [string, string]>;
  activities: Table<ActivityEntry, [string, string, string]>;
  projects: Table<ProjectProfile, string>;
  migrations: Table<MigrationRecord, string>;
  /** The prior-art term index (postings, document frequencies, document refs); layout in query/term-index.ts. */
  terms: Table<unknown, TermIndexKey>;
  meta: Table<unknown, string>;
}

/** A document written in a flush, for indexes kept inside the same transaction. */
export type WrittenDocument =
  | { kind: 'commit'; key: [string, string]; value: CommitRecord }
  | { kind: 'activity'; key: [string, string, string]; value: ActivityEntry }
  | { kind: 'retrospective'; key: [string, string]; value: RetrospectiveEntry };

/** The sub-databases that hold history, and so can be merged from a migration or an import. */
export type HistoryTable = 'agents' | 'sessions' | 'commits' | 'communication' | 'retrospectives' | 'activities' | 'projects';

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

/** Raised when the database cannot take more data; the message says which setting to raise. */
export class DatabaseFullError extends Error {
  override name = 'DatabaseFullError';
}

/** Raised when the database cannot be opened; the message names the path and the cause. */
export class StoreOpenError extends Error {
  override name = 'StoreOpenError';
}

export interface StoreOptions {
  path: string;
  maxDatabaseSize: number;
  readOnly?: boolean;
}

const ZERO_COUNTERS: UsageCounters = {
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

/** The file's stats, or undefined when it cannot be looked at (opening then reports why). */
function statOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file);
  } catch {
    return undefined;
  }
}

export class Store {
  readonly path: string;
  readonly maxDatabaseSize: number;
  readonly tables: Tables;
  private readonly root: RootDatabase;
  private closed = false;
  /** Called inside the flush transaction with every document written, to keep indexes in step. */
  private readonly indexers: ((documents: WrittenDocument[]) => void)[] = [];

  private constructor(root: RootDatabase, options: StoreOptions) {
    this.root = root;
    this.path = options.path;
    this.maxDatabaseSize = options.maxDatabaseSize;
    const table = <V, K extends Key>(name: TableName): Table<V, K> =>
      // The term index holds packed binary postings: they do not compress, so it is stored as is.
      root.openDB<V, K>({ name, compression: name !== 'terms' }) as unknown as Table<V, K>;
    this.tables = {
      agents: table('agents'),
      sessions: table('sessions'),
      commits: table('commits'),
      communication: table('communication'),
      retrospectives: table('retrospectives'),
      activities: table('activities'),
      projects: table('projects'),
      migrations: table('migrations'),
      terms: table('terms'),
      meta: table('meta'),
    };
    // Every writer keeps the term index in step, inside its flush transaction (plugin, import, migrate).
    if (!options.readOnly) this.addIndexer((documents) => indexWrittenDocuments(this.tables.terms, documents));
  }

  /**
   * Opens (creating when needed) the database at `options.path`: the lmdb file plus its `-lock` file.
   * @throws StoreOpenError with the path and what to do.
   */
  static open(options: StoreOptions): Store {
    // lmdb crashes the whole process (and OpenCode with it) on a damaged file, so an existing file's
    // header is checked with plain reads first. An empty file is fine to write into.
    const existing = statOrUndefined(options.path);
    if (existing?.isFile() && (existing.size > 0 || options.readOnly)) {
      const problem = lmdbFileProblem(options.path);
      if (problem) {
        throw new StoreOpenError(
          `the agent-tracker database at ${options.path} cannot be used: ${problem}. ` +
            'Move the file aside (a new database is then created there), or set another path with the "databasePath" option or AGENT_TRACKER_DB_PATH.',
        );
      }
    }
    try {
      if (!options.readOnly) fs.mkdirSync(path.dirname(options.path), { recursive: true });
      const root = open({
        path: options.path,
        mapSize: options.maxDatabaseSize,
        maxDbs: MAX_NAMED_DATABASES,
        compression: true,
        readOnly: options.readOnly ?? false,
      });
      const store = new Store(root, options);
      if (!options.readOnly && store.tables.meta.get('schemaVersion') === undefined) {
        root.transactionSync(() => store.tables.meta.putSync('schemaVersion', SCHEMA_VERSION));
      }
      return store;
    } catch (error) {
      throw new StoreOpenError(
        `cannot open the agent-tracker database at ${options.path}: ${(error as Error).message}. ` +
          'Check that the folder is writable, or set another path with the "databasePath" option or AGENT_TRACKER_DB_PATH.',
      );
    }
  }

  /** Registers an index updater that runs inside every flush transaction. */
  addIndexer(indexer: (documents: WrittenDocument[]) => void): void {
    this.indexers.push(indexer);
  }

  /** Runs the indexers on documents written outside `applyBatch`; call inside `transaction`. */
  indexDocuments(documents: WrittenDocument[]): void {
    if (documents.length > 0) for (const indexer of this.indexers) indexer(documents);
  }

  /**
   * The additive merge of migrations and imports: writes each record whose key is absent, keeps
   * every record already there, and indexes the documents written. Call inside `transaction`.
   */
  mergeAbsent(records: Iterable<MergeRecord>): MergeCounts {
    const counts: MergeCounts = { added: 0, skipped: 0, addedByTable: {} };
    const written: WrittenDocument[] = [];
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
    }
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

  /** Runs `action` in one synchronous write transaction; a full map becomes a DatabaseFullError. */
  transaction<T>(action: () => T): T {
    try {
      return this.root.transactionSync(action);
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
   * All or nothing: on a throw, nothing of the batch is written. `pastSizeLimit` lets the last
   * flush of a process through a full database (lmdb still grows), so a shutdown loses nothing.
   */
  applyBatch(mutations: readonly Mutation[], rules: ScoringRules, now: string, options: { pastSizeLimit?: boolean } = {}): FlushResult {
    const started = performance.now();
    if (!options.pastSizeLimit) this.ensureFits();
    this.transaction(() => {
      const written: WrittenDocument[] = [];
      for (const mutation of mutations) this.applyOne(mutation, rules, now, written);
      const meta = this.tables.meta;
      meta.putSync('flushes', Number(meta.get('flushes') ?? 0) + 1);
      meta.putSync('lastFlushAt', now);
      if (written.length > 0) for (const indexer of this.indexers) indexer(written);
    });
    return { mutations: mutations.length, durationMs: performance.now() - started };
  }

  private applyOne(mutation: Mutation, rules: ScoringRules, now: string, written: WrittenDocument[]): void {
    const t = this.tables;
    switch (mutation.table) {
      case 'agents': {
        const agent = t.agents.get(mutation.key) ?? newAgent(mutation.key, now, rules);
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
          } else {
            applyAgentOp(agent, op, rules);
          }
        }
        agent.updatedAt = now;
        t.agents.putSync(mutation.key, agent);
        break;
      }
      case 'sessions': {
        const stored = t.sessions.get(mutation.key);
        const record: UsageRecord = stored ?? { ...ZERO_COUNTERS, ...mutation.init, lastAt: mutation.lastAt };
        for (const [name, delta] of Object.entries(mutation.counters) as [CounterName, number][]) {
          record[name] = (record[name] ?? 0) + delta;
        }
        if (mutation.lastAt > record.lastAt) record.lastAt = mutation.lastAt;
        t.sessions.putSync(mutation.key, record);
        break;
      }
      case 'commits':
        if (!t.commits.doesExist(mutation.key)) {
          t.commits.putSync(mutation.key, mutation.value);
          written.push({ kind: 'commit', key: mutation.key, value: mutation.value });
        }
        break;
      case 'activities':
        if (!t.activities.doesExist(mutation.key)) {
          t.activities.putSync(mutation.key, mutation.value);
          written.push({ kind: 'activity', key: mutation.key, value: mutation.value });
        }
        break;
      case 'communication':
        if (!t.communication.doesExist(mutation.key)) t.communication.putSync(mutation.key, mutation.value);
        break;
      case 'projects':
        t.projects.putSync(mutation.key, mutation.value);
        break;
    }
  }

  /**
   * lmdb-js grows its map on demand, so the size limit is enforced here, softly: a flush is refused
   * once the data file has reached maxDatabaseSize (one flush may overshoot it).
   */
  private ensureFits(): void {
    let size = 0;
    try {
      size = fs.statSync(this.path).size;
    } catch {
      return;
    }
    if (size >= this.maxDatabaseSize) {
      throw new DatabaseFullError(
        `the agent-tracker database at ${this.path} is full (${size} bytes, maxDatabaseSize ${this.maxDatabaseSize}). ` +
          'Raise the "maxDatabaseSize" plugin option (at most 2 GiB); nothing buffered was lost.',
      );
    }
  }

  /** Entry counts per sub-database, for `doctor`. */
  counts(): Record<TableName, number> {
    const result = {} as Record<TableName, number>;
    for (const [name, table] of Object.entries(this.tables) as [TableName, Table<unknown>][]) {
      result[name] = table.getKeysCount();
    }
    return result;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.root.close();
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
  // lmdb crashes the process on a malformed file, so the header is checked with plain reads first.
  const problem = lmdbFileProblem(legacyPath);
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

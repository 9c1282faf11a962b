/**
 * The shapes of the store's named sub-databases, apart from the code that opens them, so readers and
 * indexers can name a table's type without importing the store (and the store none of theirs).
 */
import type { Key } from 'lmdb';
import type {
  ActivityEntry,
  AgentRecord,
  CommitRecord,
  GradeEvent,
  CounterDeltas,
  MigrationRecord,
  ProjectProfile,
  RetrospectiveEntry,
  UsageRecord,
  UserGradeRecord,
} from '../types.js';
import type { ReplayKey, TableName } from './mutations.js';

/** Any key of a table: what lmdb sorts (text, numbers, and arrays of them). */
export type StoreKey = Key;

/** A key of the prior-art term index (layout in search/index/layout.ts). */
export type TermIndexKey = (string | number)[];

/**
 * A read view of one named sub-database, free of lmdb's own types for callers. What everyone outside
 * the store is given: writes go through `store.write` (WritableTable) and nowhere else.
 */
export interface Table<V, K extends Key = Key> {
  get(key: K): V | undefined;
  doesExist(key: K): boolean;
  getRange(options?: { start?: K; end?: K; limit?: number; reverse?: boolean }): Iterable<{ key: K; value: V }>;
  getKeysCount(options?: { start?: K; end?: K }): number;
  getKeys(options?: { start?: K; end?: K; limit?: number }): Iterable<K>;
}

/** One table as `store.write` hands it out, inside its transaction: reads plus writes. */
export interface WritableTable<V, K extends Key = Key> extends Table<V, K> {
  /** With `noOverwrite`, writes only when the key is absent (one B-tree descent): false when it was there. */
  putSync(key: K, value: V, options?: { noOverwrite: true }): boolean;
  removeSync(key: K): boolean;
}

export interface MetaValues {
  schemaVersion: number;
  flushes: number;
  lastFlushAt: string;
}

/** Every named sub-database, writable: what `store.write` hands its action (and the indexers) inside the transaction. */
export interface WritableTables {
  agents: WritableTable<AgentRecord, string>;
  /**
   * Usage per host session × agent × model (counters, tokens, cost), keyed [sessionId, agent, model].
   * Persisted as `sessions` (the LMDB sub-database and the export kind): STORED_NAMES.
   */
  usage: WritableTable<UsageRecord, [string, string, string]>;
  commits: WritableTable<CommitRecord, [string, string]>;
  /**
   * Grade events (self-grades, grades relayed by an agent, bug reports), keyed [agent, ISO time, suffix].
   * Persisted as `communication` (the LMDB sub-database and the export kind): STORED_NAMES.
   */
  gradeEvents: WritableTable<GradeEvent, [string, string, string]>;
  retrospectives: WritableTable<RetrospectiveEntry, [string, string]>;
  activities: WritableTable<ActivityEntry, [string, string, string]>;
  projects: WritableTable<ProjectProfile, string>;
  migrations: WritableTable<MigrationRecord, string>;
  /** The user's grades, keyed [project, commit hash]. */
  userGrades: WritableTable<UserGradeRecord, [string, string]>;
  /** Host events already counted, [hostSessionId, eventId] -> the totals counted for it (see ReplayMutation). */
  events: WritableTable<CounterDeltas, ReplayKey>;
  /** The prior-art term index (postings, document frequencies, document refs); layout in search/index/layout.ts. */
  terms: WritableTable<unknown, TermIndexKey>;
  meta: WritableTable<unknown, string>;
}

/** Every named sub-database, read-only: `store.tables`, for everyone. */
export type Tables = { readonly [Name in keyof WritableTables]: ReadOnlyTable<WritableTables[Name]> };

/** The read view of a writable table. */
type ReadOnlyTable<T> = T extends WritableTable<infer V, infer K> ? Table<V, K> : never;

/** A document written in a flush, for indexes kept inside the same transaction. */
export type WrittenDocument =
  | { kind: 'commit'; key: [string, string]; value: CommitRecord }
  | { kind: 'activity'; key: [string, string, string]; value: ActivityEntry }
  | { kind: 'retrospective'; key: [string, string]; value: RetrospectiveEntry };

/** The code name of each table; the persisted names (TableName) are kept for existing data and export files. */
export type TableKey = keyof WritableTables;

/** The persisted name of each table: the LMDB sub-database, and the export kind of those exported. */
export const STORED_NAMES = {
  agents: 'agents',
  usage: 'sessions',
  commits: 'commits',
  gradeEvents: 'communication',
  retrospectives: 'retrospectives',
  activities: 'activities',
  projects: 'projects',
  migrations: 'migrations',
  userGrades: 'userGrades',
  events: 'events',
  terms: 'terms',
  meta: 'meta',
} as const satisfies Record<TableKey, TableName>;

const KEY_OF_STORED = new Map<TableName, TableKey>(Object.entries(STORED_NAMES).map(([key, name]) => [name, key as TableKey]));

/** The code name of the table a persisted name (an LMDB sub-database, an export kind) stands for. */
export function tableKeyOf(name: TableName): TableKey {
  const key = KEY_OF_STORED.get(name);
  if (key === undefined) throw new Error(`no table is stored as "${name}"`);
  return key;
}

/** The table a persisted name stands for, to read. */
export function tableNamed(tables: Tables, name: TableName): Table<unknown, Key> {
  return tables[tableKeyOf(name)] as unknown as Table<unknown, Key>;
}

/** The sub-databases that hold history, by their persisted names: what a migration or an import merges. */
export type HistoryTable = 'agents' | 'sessions' | 'commits' | 'communication' | 'retrospectives' | 'activities' | 'projects' | 'userGrades';

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
import type { ReplayKey } from './mutations.js';

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
  getKeys(options?: { start?: K; end?: K }): Iterable<K>;
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
   * Usage per host session × agent × model (counters, tokens, cost), keyed [sessionId, agent, model]:
   * `sessions` is its persisted name (the LMDB sub-database and the export kind), kept for existing data.
   */
  sessions: WritableTable<UsageRecord, [string, string, string]>;
  commits: WritableTable<CommitRecord, [string, string]>;
  /**
   * Grade events (self-grades, grades relayed by an agent, bug reports), keyed [agent, ISO time, suffix]:
   * `communication` is its persisted name, kept for existing data and export files.
   */
  communication: WritableTable<GradeEvent, [string, string, string]>;
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

/** The sub-databases that hold history, and so can be merged from a migration or an import. */
export type HistoryTable = 'agents' | 'sessions' | 'commits' | 'communication' | 'retrospectives' | 'activities' | 'projects' | 'userGrades';

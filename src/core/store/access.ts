/**
 * What the recording side uses of a store: its tables to read, the batch and local-state writes, and
 * the deferred work. The plugin's main thread holds a RemoteStore (remote/client.ts) that forwards
 * these to a worker thread, so lmdb never loads on OpenCode's main thread; the CLI holds the Store
 * itself. Both are this.
 */
import type { ScoringRules } from '../rules.js';
import type { FlushResult, Mutation, StateMutation, TableName } from './mutations.js';
import type { MetaValues, Tables } from './tables.js';

/** How long a reader of the record waits for a store still opening (a check of the file first takes well under that). */
export const STORE_OPEN_WAIT_MS = 5_000;

export interface StoreAccess {
  readonly path: string;
  readonly maxDatabaseSize: number;
  /** Every table, read-only. */
  readonly tables: Tables;
  /** Whether the file is open (false while it is checked, or when it could not be opened). */
  readonly attached: boolean;
  /** Why writes are refused, or undefined when the store takes writes. */
  readonly refusal: string | undefined;
  applyBatch(mutations: readonly Mutation[], rules: ScoringRules, now: string): FlushResult;
  putRecords(records: readonly StateMutation[]): void;
  maintainIndexes(): boolean;
  meta(): MetaValues;
  provisionedItems(configDir: string): string[];
  counts(): Record<TableName, number>;
  bytesInUse(): number | undefined;
  backup(target: string): Promise<void>;
  /**
   * Keeps the file marked verified when only the tracker's own recorded commits changed it (verify.ts),
   * where those commits were made: in this thread, or in the worker thread that holds the store.
   */
  keepVerifiedIfOwn(): void;
  /**
   * For a store that opens in the background (the plugin's): undefined once its open has ended, else
   * a promise that resolves when it has or after `timeoutMs`. A store without it is open when held.
   */
  opened?(timeoutMs: number): Promise<void> | undefined;
}

/**
 * For a reader of the record at a session's start: undefined once `store` is open, else a promise that
 * resolves when its open has ended or STORE_OPEN_WAIT_MS later (a store still opening reads empty).
 */
export function storeOpening(store: StoreAccess): Promise<void> | undefined {
  return store.opened?.(STORE_OPEN_WAIT_MS);
}

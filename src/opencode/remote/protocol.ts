/**
 * The messages between the plugin's main thread (client.ts) and the worker thread that holds the
 * store (host.ts). Synchronous calls travel on a MessagePort with a shared flag the main thread waits
 * on (bounded); everything else (opening, the snapshot, the prior-art search, the history import's
 * check, events) goes through
 * the worker's own message channel, asynchronously. All of it is plain data (structured clone).
 */
import type { Watermark } from '../../core/backfill/watermark.js';
import type { CrossProjectQuery } from '../../core/projects/cross-project-search.js';
import type { ScoringRules } from '../../core/rules.js';
import type { Mutation, StateMutation } from '../../core/store/mutations.js';
import type { MessagePort } from 'node:worker_threads';
import type { Tables } from '../../core/store/tables.js';

/** The read methods of a table a synchronous call may run; `getRange` and `getKeys` answer with an array. */
export type TableMethod = 'get' | 'doesExist' | 'getRange' | 'getKeysCount' | 'getKeys';

export type SyncRequest =
  | { op: 'table'; path: string; table: keyof Tables; method: TableMethod; arg: unknown }
  /** `spillId`: what the caller spills the batch under once it stops waiting; `markMarginMs`: how near its deadline the commit marks it merged (spill.ts). */
  | { op: 'applyBatch'; path: string; mutations: readonly Mutation[]; rules: ScoringRules; now: string; spillId: string; markMarginMs: number }
  | { op: 'putRecords'; path: string; records: readonly StateMutation[] }
  | { op: 'maintainIndexes' | 'counts' | 'bytesInUse' | 'meta' | 'keepVerifiedIfOwn'; path: string }
  | { op: 'provisionedItems'; path: string; configDir: string };

/** A synchronous call as it travels: `deadline` (epoch ms) is when the caller stops waiting for it. */
export interface SyncEnvelope {
  id: number;
  request: SyncRequest;
  deadline: number;
}

/** The calls that write: refused once past their deadline, since the caller has kept what they carry. */
export const WRITE_OPS: ReadonlySet<SyncRequest['op']> = new Set(['applyBatch', 'putRecords', 'maintainIndexes', 'keepVerifiedIfOwn']);

/** The cells of HostData's `flag`. */
export const REPLIED = 0;
export const ABANDONED = 1;
export const FLAG_BYTES = 2 * Int32Array.BYTES_PER_ELEMENT;

/** Whether the file is open and why writes are refused, as the worker sees it now. */
export interface StoreState {
  attached: boolean;
  refusal: string | undefined;
}

/** An error as it crosses the thread: its class name (StoreNotWritableError, DatabaseFullError, ...) and message. */
export interface SentError {
  name: string;
  message: string;
}

export type SyncReply = { id: number; state: StoreState } & ({ ok: true; value: unknown } | { ok: false; error: SentError });

export type AsyncRequest =
  | { op: 'open'; path: string; maxDatabaseSize: number; directory: string; rules: ScoringRules }
  | { op: 'release'; path: string }
  | { op: 'backup'; path: string; target: string }
  | { op: 'priorArt'; path: string; query: CrossProjectQuery; project: string }
  | { op: 'importNeeded'; path: string; location: string; mark: Watermark | undefined; createdBefore: number };

export type HostEvent =
  | { kind: 'reply'; id: number; ok: true; value: unknown }
  | { kind: 'reply'; id: number; ok: false; error: SentError }
  | { kind: 'state'; path: string; state: StoreState }
  /** The store is open for writing and what waited at its start (spills, migrations) is merged. */
  | { kind: 'ready'; path: string }
  | { kind: 'problem'; path: string; line: string }
  | { kind: 'log'; level: 'info' | 'warn' | 'error'; line: string };

/** What the worker is started with. */
export interface HostData {
  /** The port synchronous calls come on. */
  port: MessagePort;
  /**
   * Two Int32s. [REPLIED]: the worker sets it to 1 (and notifies) after each synchronous reply.
   * [ABANDONED]: the main thread sets it to the id of a call it stopped waiting for (ids only grow).
   */
  flag: SharedArrayBuffer;
}

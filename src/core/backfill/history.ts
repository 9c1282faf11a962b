/**
 * The host-agnostic shape of a past session as a host's own history store keeps it: what a backfill
 * replays through TrackingService. Adapters (src/opencode/history) translate their store into this.
 */
import type { TokenCounts } from '../types.js';

/** A finished or unfinished tool call of an assistant message. */
export interface HostToolCall {
  /** The host's own id of the call (OpenCode: the tool part id). */
  callId: string;
  /** The model provider's id of the call, which older versions of the tracker keyed calls by. */
  providerCallId?: string;
  tool: string;
  /** `completed` and `error` are finished; anything else (pending, running) is not counted. */
  status: string;
  /** The bash command, when the tool ran one. */
  command?: string;
  /** What a bash call printed, kept only where the replay reads it: a command that says `commit`. */
  output?: string;
  /** The file an editing tool (edit, write, …) changed, as its arguments named it. */
  editedFile?: string;
  /** Exit code of a bash call, when the host kept it. */
  exit?: number;
  /** Epoch milliseconds the call ended (or started), when known. */
  endedAt?: number;
  /** Epoch milliseconds the call started, kept only for a command that can make a commit (the commit must fall between the two). */
  startedAt?: number;
}

export interface HostMessage {
  id: string;
  role: 'user' | 'assistant';
  agent?: string;
  /** `providerID/modelID`, undefined when the message does not name both. */
  model?: string;
  tokens: TokenCounts;
  cost: number;
  createdAt: number;
  completedAt?: number;
  /** A user message's own text (its text parts the host did not add, joined by a space). */
  prompt?: string;
  tools: HostToolCall[];
}

export interface HostSession {
  id: string;
  parentId?: string;
  directory: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  messages: HostMessage[];
}

/** A session the source could not read, with the reason counted in the summary. */
export interface UnreadableSession {
  unreadable: string;
  id?: string;
}

export interface HistoryQuery {
  /** Only sessions updated after this epoch millisecond (the watermark of an incremental import). */
  updatedAfter?: number;
  /** Only sessions created at or after this epoch millisecond (`--since`). */
  createdSince?: number;
  /** Only sessions created before this epoch millisecond (the plugin leaves sessions begun since its start to live tracking). */
  createdBefore?: number;
  /** Only sessions whose directory is this folder or inside it. */
  directory?: string;
}

/** A host's history store, read-only. Sessions come one at a time, oldest update first. */
export interface HistorySource {
  /** What was opened, for messages: the layout and the path. */
  readonly description: string;
  /**
   * True when the store itself holds each message id once (a primary key): then no two sessions read
   * from it share a message id, and a run need not remember the ids it replayed to tell a copy.
   */
  readonly uniqueMessageIds?: boolean;
  sessions(query: HistoryQuery): AsyncIterable<HostSession | UnreadableSession>;
  /** How many sessions `sessions(query)` will go through (before a `directory` filter), for progress. */
  count(query: HistoryQuery): number;
  /**
   * When the oldest session `sessions(query)` will go through was created (epoch ms; before a
   * `directory` filter), undefined when there is none. No call of those sessions is older.
   */
  earliestCreated(query: HistoryQuery): number | undefined;
  close(): void;
}

/** Raised when a store exists but its layout is not one this version understands; nothing is written. */
export class UnknownHistoryLayoutError extends Error {
  override name = 'UnknownHistoryLayoutError';
}

/**
 * The recording vocabulary: what every SOURCE of evidence calls — OpenCode's live hooks (version 1
 * and 2), the backfill of OpenCode's own history, repair's refill. Sources translate their host's
 * facts into these calls and decide nothing; the recorder decides what they mean, buffers them in
 * memory and writes them in one transaction. Keyed by the host's own ids (`HostEvent`), so the same
 * event reported twice, live and replayed, counts once.
 */
import type { GitCommit, HostEvent, ReplayedTurn } from './host-events.js';
import type { CommitRecord, TokenCounts, UsageSource } from './records.js';

export type FlushOutcome = { ok: true; mutations: number; durationMs: number } | { ok: false; error: Error };

export interface Recorder {
  /** A session began or changed (its parent for a subagent, its project folder, where it came from). */
  noteSession(sessionId: string, details: { parentId?: string; project?: string; source?: UsageSource }): void;
  /** A model request of the session: the agent and model (`provider/model`) doing its work from now on. */
  noteModelRequest(sessionId: string, agent: string, model: string): void;
  /** The user's prompt that opens a turn (with the host's message id when known). */
  noteTurnTask(sessionId: string, prompt: string, messageId?: string): void;
  /** A finished tool call, keyed by the host's own id of the call (OpenCode: the tool part id); `command` for a shell call. */
  recordToolCall(sessionId: string, callId: string, tool: string, ok: boolean, event?: HostEvent & { command?: string }): void;
  /** A shell command and its exit code (test runs are recognised from it), with the host's id of the call when known. */
  recordShellCommand(sessionId: string, command: string, exitCode: number | undefined, event?: HostEvent): void;
  /** A slash command run in the session (`command`: its name, so the tracker's own earns nothing); `whileToolCallsRan`: it came while an agent's tool call ran (it may have sent it). */
  recordCommand(sessionId: string, event?: HostEvent & { command?: string; whileToolCallsRan?: boolean }): void;
  /** New commits made by the session's agent; returns the ones recorded. */
  recordCommits(sessionId: string, commits: readonly GitCommit[], event?: HostEvent & { count?: number }): CommitRecord[];
  /** A git push that succeeded; flushes unless `deferFlush`. */
  recordPush(sessionId: string, event?: HostEvent & { deferFlush?: boolean }): FlushOutcome;
  /** An assistant message's tokens and cost (totals so far: a later report of the same message replaces them). */
  recordAssistantMessage(sessionId: string, messageId: string, setup: { agent: string; model: string }, tokens: TokenCounts, cost: number, event?: HostEvent): void;
  /** The user undid messages back to `messageId` (undefined: the undo was taken back). */
  recordRevert(sessionId: string, messageId: string | undefined): void;
  /** The undo is final. */
  confirmRevert(sessionId: string): void;
  /** A file the session's tools edited. */
  noteFileEdited(sessionId: string, file: string): void;
  /** A tool call edited what configures the tracker. */
  noteTrackerFileEdit(sessionId: string): void;
  /** A finished turn of replayed history (live sources end turns with endTurn). */
  recordTurn(sessionId: string, turn: ReplayedTurn): void;
  /** The session's turn ended: its journal entry is written and the buffer flushed. */
  endTurn(sessionId: string): FlushOutcome;
  /** Writes what is buffered, in one transaction. */
  flush(reason: string, options?: { final?: boolean }): FlushOutcome;
}

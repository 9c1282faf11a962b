/**
 * The ids host events are held under in their session's events and the totals each holds: live
 * hooks, a replay of history and the plugin's check of "anything new to import?" build them here,
 * so the three agree on what "already held" means.
 */
import { TASK_KIND_COUNTERS } from '../outcomes/task-kind.js';
import type { TaskKind } from '../outcomes/task-kind.js';
import type { CounterDeltas, TokenCounts } from '../types.js';

/** An assistant message, by the host's message id. */
export function messageEventId(messageId: string): string {
  return `message:${messageId}`;
}

/** What a message's event holds: its latest totals, counted once per message. */
export function messageTotals(tokens: TokenCounts, cost: number): CounterDeltas {
  return {
    messages: 1,
    tokensInput: tokens.input,
    tokensOutput: tokens.output,
    tokensReasoning: tokens.reasoning,
    tokensCacheRead: tokens.cacheRead,
    tokensCacheWrite: tokens.cacheWrite,
    cost,
  };
}

/** A finished tool call, by the host's call id (OpenCode's tool part id). */
export function toolEventId(callId: string): string {
  return `tool:${callId}`;
}

/** What a finished tool call's event holds. */
export function toolCallTotals(ok: boolean): CounterDeltas {
  return ok ? { toolCalls: 1 } : { toolCalls: 1, toolFailures: 1 };
}

/** The commits a call made, by the call's id. */
export function commitsEventId(callId: string): string {
  return `commits:${callId}`;
}

/** A push, by the id of the call that pushed. */
export function pushEventId(callId: string): string {
  return `push:${callId}`;
}

/** A test run, by the id of the bash call that ran it. */
export function testRunEventId(callId: string): string {
  return `test:${callId}`;
}

/** What a test run's event holds: the run, a pass when it exited 0, and the change it made to the session's recovery. */
export function testRunTotals(passed: boolean, recoveryDelta: number): CounterDeltas {
  const totals: CounterDeltas = { testRuns: 1, testPasses: passed ? 1 : 0 };
  if (recoveryDelta !== 0) totals.testRecoveries = recoveryDelta;
  return totals;
}

/** A turn, by the id of the user's message that opened it. */
export function turnEventId(userMessageId: string): string {
  return `turn:${userMessageId}`;
}

/** What a turn's event holds: one turn, and one of its kind. */
export function turnTotals(kind: TaskKind): CounterDeltas {
  return { turns: 1, [TASK_KIND_COUNTERS[kind]]: 1 };
}

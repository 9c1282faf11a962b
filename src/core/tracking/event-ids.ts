/**
 * The ids host events are held under in their session's events and the totals each holds: live
 * hooks, a replay of history and the plugin's check of "anything new to import?" build them here,
 * so the three agree on what "already held" means.
 */
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

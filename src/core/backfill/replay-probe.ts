/**
 * What replaying a past session adds to the store, known before it is written: each event the replay
 * reports is compared with what the store holds for it under the session's id, with the arithmetic the
 * store's write applies (replayDelta). A dry backfill's summary counts what a run would add from it (a
 * real run counts what its flushes report), and the plugin's check "would an import add anything?" asks
 * it the same question.
 */
import type { StoreAccess } from '../store/access.js';
import { replayDelta } from '../store/replay.js';
import { commitsEventId, messageEventId, messageTotals, pushEventId, toolCallTotals, toolEventId } from '../tracking/event-ids.js';
import type { CounterDeltas, CounterName } from '../types.js';
import type { ReplayTarget } from './replay-session.js';

/** What replaying one session adds. */
export interface ReplayAdditions {
  /** Per counter, how much the session's events grow it beyond what the store holds. */
  counters: CounterDeltas;
  /** Commits the project holds no record of yet (by hash). */
  newCommits: number;
  /** An event reported without its host id: nothing to match it with, so it counts as new. */
  unkeyed: boolean;
}

export function noAdditions(): ReplayAdditions {
  return { counters: {}, newCommits: 0, unkeyed: false };
}

/** Whether the replay adds anything at all. */
export function addsAnything(additions: ReplayAdditions): boolean {
  return additions.unkeyed || additions.newCommits > 0 || Object.values(additions.counters).some((value) => value !== 0);
}

/** The events the store holds for one session, by event id. */
export function heldEvents(store: Pick<StoreAccess, 'tables'>, sessionId: string): Map<string, CounterDeltas> {
  const held = new Map<string, CounterDeltas>();
  for (const { key, value } of store.tables.events.getRange({ start: [sessionId, ''] })) {
    if (key[0] !== sessionId) break;
    held.set(key[1], value);
  }
  return held;
}

/**
 * A replay target that records nothing and adds to `additions` what each reported event grows beyond
 * `held` (the session's held events, see heldEvents); an event reported twice adds only its growth.
 * Test runs ride on their tool call and turns on the messages that answered them, so they are not
 * looked at (a session an older backfill imported gets them from the next full backfill).
 */
export function replayProbe(held: Map<string, CounterDeltas>, additions: ReplayAdditions): ReplayTarget {
  const add = (delta: CounterDeltas): void => {
    for (const name in delta) {
      const counter = name as CounterName;
      additions.counters[counter] = (additions.counters[counter] ?? 0) + (delta[counter] ?? 0);
    }
  };
  const replayed = (eventId: string, totals: CounterDeltas, legacyEventId?: string): void => {
    const holding = held.has(eventId) || legacyEventId === undefined ? eventId : legacyEventId;
    const { delta, totals: after, changed } = replayDelta(held.get(holding), totals);
    if (!changed) return;
    held.set(holding, after);
    add(delta);
  };
  // Without the host's id an event is counted as it comes, as the service counts it.
  const unkeyed = (delta: CounterDeltas): void => {
    additions.unkeyed = true;
    add(delta);
  };
  return {
    noteSession: () => undefined,
    noteModelRequest: () => undefined,
    forgetSession: () => undefined,
    recordShellCommand: () => undefined,
    recordTurn: () => undefined,
    recordAssistantMessage: (_session, messageId, _setup, tokens, cost) => replayed(messageEventId(messageId), messageTotals(tokens, cost)),
    recordToolCall: (_session, callId, _tool, ok, event = {}) =>
      replayed(toolEventId(callId), toolCallTotals(ok), event.legacyEventId === undefined ? undefined : toolEventId(event.legacyEventId)),
    recordCommits: (_session, commits, event = {}) => {
      additions.newCommits += commits.length;
      // As the service: the call's commits are the larger of those named and the count it says it made.
      const made = Math.max(event.count ?? 0, commits.length);
      if (event.eventId === undefined) unkeyed({ commits: commits.length });
      else if (made > 0) replayed(commitsEventId(event.eventId), { commits: made });
      return [];
    },
    recordPush: (_session, event = {}) => {
      if (event.eventId === undefined) unkeyed({ pushes: 1 });
      else replayed(pushEventId(event.eventId), { pushes: 1 });
      return { ok: true, mutations: 0, durationMs: 0 };
    },
  };
}

/**
 * The arithmetic of replayable recording, kept pure so the store only persists: what a host event
 * adds given the totals already counted for it, and how counter deltas land on a usage record.
 */
import type { CounterDeltas, CounterName, UsageRecord } from '../types.js';
import type { ReplayMutation } from './mutations.js';

export interface ReplayDelta {
  /** What to add to the usage record: the growth of each counter beyond what was held. */
  delta: CounterDeltas;
  /** What to hold for the event from now on: the larger of held and reported, per counter. */
  totals: CounterDeltas;
  /** Whether anything grew. */
  changed: boolean;
}

/**
 * The part of an event's reported totals not yet counted. A counter never shrinks: a report lower
 * than what is held (an older copy of the same message) adds nothing and keeps the held value.
 */
export function replayDelta(held: CounterDeltas | undefined, reported: CounterDeltas): ReplayDelta {
  const delta: CounterDeltas = {};
  const totals: CounterDeltas = { ...held };
  let changed = false;
  for (const [name, value] of Object.entries(reported) as [CounterName, number][]) {
    const before = held?.[name] ?? 0;
    if (value > before) {
      delta[name] = value - before;
      totals[name] = value;
      changed = true;
    } else if (totals[name] === undefined) {
      totals[name] = before;
    }
  }
  return { delta, totals, changed };
}

/** Adds counter deltas to a usage record and widens its time span to include `at`. */
export function addUsage(record: UsageRecord, counters: CounterDeltas, at: string): void {
  // for-in rather than Object.entries: called once per replayed event, it allocates nothing.
  for (const name in counters) {
    const counter = name as CounterName;
    record[counter] = (record[counter] ?? 0) + (counters[counter] ?? 0);
  }
  if (at > record.lastAt) record.lastAt = at;
  if (at < record.firstAt) record.firstAt = at;
}

/** JSON characters of a replayed event's fixed parts (braces, field names) and of one counter (name and number), at most. */
const REPLAY_JSON_FIXED = 256;
const REPLAY_JSON_PER_COUNTER = 48;
/** JSON escapes a character as at most six (`\u001f`). */
const JSON_ESCAPE_FACTOR = 6;

/**
 * An upper bound of `JSON.stringify(mutation).length` for a replayed event, from its string lengths:
 * the size limit's estimate without serializing every event of a large batch (a backfill).
 */
export function replayJsonBound(mutation: ReplayMutation): number {
  const { key, totals, session, agentOps } = mutation;
  const { init } = session;
  let chars = key[0].length + key[1].length + session.key[0].length + session.key[1].length + session.key[2].length + session.at.length;
  chars += init.sessionId.length + (init.source?.length ?? 0) + init.agent.length + init.model.length + init.project.length + init.firstAt.length + (init.parentSessionId?.length ?? 0);
  const ops = agentOps.length > 0 ? JSON.stringify(agentOps).length : 2;
  return REPLAY_JSON_FIXED + JSON_ESCAPE_FACTOR * chars + REPLAY_JSON_PER_COUNTER * Object.keys(totals).length + ops;
}

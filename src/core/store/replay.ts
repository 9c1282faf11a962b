/**
 * The arithmetic of replayable recording, kept pure so the store only persists: what a host event
 * adds given the totals already counted for it, and how counter deltas land on a usage record.
 */
import type { CounterDeltas, CounterName, UsageRecord } from '../types.js';

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
 * than what is held (an older copy of the same message) adds nothing and keeps the held value. An
 * event not held yet adds what it reports as it is, a negative value too (a test run that takes a
 * session's recovery back holds `testRecoveries: -1`); its later reports add nothing more.
 */
export function replayDelta(held: CounterDeltas | undefined, reported: CounterDeltas): ReplayDelta {
  const delta: CounterDeltas = {};
  const totals: CounterDeltas = { ...held };
  let changed = false;
  for (const [name, value] of Object.entries(reported) as [CounterName, number][]) {
    const before = held?.[name] ?? 0;
    if (value > before || (held === undefined && value < 0)) {
      delta[name] = value - before;
      totals[name] = value;
      changed = true;
    } else if (totals[name] === undefined) {
      totals[name] = before;
    }
  }
  return { delta, totals, changed };
}

/** Adds counter deltas to a usage record, leaving its time span as it is. */
export function addCounters(record: UsageRecord, counters: CounterDeltas): void {
  // for-in rather than Object.entries: called once per replayed event, it allocates nothing.
  for (const name in counters) {
    const counter = name as CounterName;
    record[counter] = (record[counter] ?? 0) + (counters[counter] ?? 0);
  }
}

/** Adds counter deltas to a usage record and widens its time span to include `at`. */
export function addUsage(record: UsageRecord, counters: CounterDeltas, at: string): void {
  addCounters(record, counters);
  if (at > record.lastAt) record.lastAt = at;
  if (at < record.firstAt) record.firstAt = at;
}

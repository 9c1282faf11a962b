/**
 * One session both sides of an import hold, from different sources: tracked live on one, backfilled from
 * OpenCode's history on the other (two databases of one machine). Its record keeps the work the host's
 * history shows once (the larger count of each: both counted the same events) and the judgements
 * (grades, bugs, reverts, undo) of the live side, where they were made; a backfill makes none of them.
 */
import { JUDGEMENT_COUNTER_NAMES, OUTCOME_COUNTER_NAMES, WORK_COUNTER_NAMES } from '../../contract/counters.js';
import type { CounterName } from '../../contract/counters.js';
import type { UsageRecord } from '../types.js';

const JUDGEMENTS: ReadonlySet<CounterName> = new Set(JUDGEMENT_COUNTER_NAMES);
const HOST_COUNTERS: readonly CounterName[] = [...WORK_COUNTER_NAMES, ...OUTCOME_COUNTER_NAMES].filter((name) => !JUDGEMENTS.has(name));

const sourceOf = (record: UsageRecord) => record.source ?? 'live';

/**
 * The record to store for a session the database holds as `stored` and the file brings as `incoming`;
 * undefined keeps `stored` as it is (same source: the usual additive merge; or nothing would change).
 */
export function mergeSessionRecord(stored: UsageRecord, incoming: UsageRecord): UsageRecord | undefined {
  if (sourceOf(stored) === sourceOf(incoming)) return undefined;
  const live = sourceOf(stored) === 'live' ? stored : incoming;
  const merged: UsageRecord = { ...live };
  for (const name of HOST_COUNTERS) {
    const most = Math.max(stored[name] ?? 0, incoming[name] ?? 0);
    if (most !== 0 || merged[name] !== undefined) merged[name] = most;
  }
  merged.firstAt = stored.firstAt < incoming.firstAt ? stored.firstAt : incoming.firstAt;
  merged.lastAt = stored.lastAt > incoming.lastAt ? stored.lastAt : incoming.lastAt;
  const same = (Object.keys(merged) as (keyof UsageRecord)[]).every((key) => merged[key] === stored[key]) && Object.keys(stored).length === Object.keys(merged).length;
  return same ? undefined : merged;
}

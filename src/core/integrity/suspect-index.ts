/**
 * The suspect records as their index lists them (written with the record chain: record-chain.ts),
 * so `report`, `status`, `doctor` and `review` read the few suspect records instead of the whole
 * journal and the whole chain. A database from before the index answers undefined: scan instead.
 * Writes around the tracker's door are not indexed; the chain check (doctor) is what finds those.
 */
import { chainEntryAt, isSuspectActivity, SUSPECT_ACTIVITY_PREFIX, SUSPECT_CHAIN_PREFIX, SUSPECT_INDEX_MARK } from './record-chain.js';
import type { ChainEntry } from './record-chain.js';
import type { JournalKey } from '../store/mutations.js';
import type { Tables } from '../store/tables.js';
import type { ActivityEntry } from '../types.js';

/** Sorts after every key of a prefix (the keys hold JSON and digits only). */
const RANGE_END = '\uffff';

/** The suspect journal entries (in the journal's key order) and suspect chain entries (oldest first). */
export interface IndexedSuspects {
  activities: { key: JournalKey; value: ActivityEntry }[];
  chain: ChainEntry[];
}

/** Compares journal keys as the journal orders them: part by part, each by its UTF-8 bytes. */
function compareKeys(a: JournalKey, b: JournalKey): number {
  for (let i = 0; i < a.length; i += 1) {
    const order = Buffer.compare(Buffer.from(a[i] as string), Buffer.from(b[i] as string));
    if (order !== 0) return order;
  }
  return 0;
}

function isJournalKey(value: unknown): value is JournalKey {
  return Array.isArray(value) && value.length === 3 && value.every((part) => typeof part === 'string');
}

/** The suspect records the index holds, or undefined when the database has no index yet. */
export function indexedSuspects(tables: Tables): IndexedSuspects | undefined {
  if (tables.meta.get(SUSPECT_INDEX_MARK) === undefined) return undefined;
  const activities: IndexedSuspects['activities'] = [];
  for (const { value: key } of tables.meta.getRange({ start: SUSPECT_ACTIVITY_PREFIX, end: `${SUSPECT_ACTIVITY_PREFIX}${RANGE_END}` })) {
    if (!isJournalKey(key)) continue;
    const value = tables.activities.get(key);
    // Only what is still suspect as stored: a change around the tracker is the chain check's to name.
    if (isSuspectActivity(value)) activities.push({ key, value });
  }
  activities.sort((a, b) => compareKeys(a.key, b.key));
  const chain: ChainEntry[] = [];
  for (const { value: seq } of tables.meta.getRange({ start: SUSPECT_CHAIN_PREFIX, end: `${SUSPECT_CHAIN_PREFIX}${RANGE_END}` })) {
    const entry = typeof seq === 'number' ? chainEntryAt(tables, seq) : undefined;
    if (entry?.writer.suspect) chain.push(entry);
  }
  return { activities, chain };
}

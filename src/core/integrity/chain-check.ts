/**
 * Checks the chained digest of record-chain.ts: `doctor` walks the whole chain and compares every
 * chained record with its last digest; the plugin checks only the tail at start (one entry, its
 * link and its records), which a write around the tracker since the last flush already breaks.
 */
import type { StoreKey, Tables } from '../store/tables.js';
import { canonicalJson } from './option-pins.js';
import { CHAIN_GENESIS, chainEntries, chainEntryKey, chainHead, linkDigest, recordDigest, storedRecord } from './record-chain.js';
import type { ChainEntry, ChainedTable } from './record-chain.js';
import type { ChainCheck } from '../../contract/answers.js';
export type { ChainCheck } from '../../contract/answers.js';

function describe(table: ChainedTable, key: StoreKey): string {
  return `${table} record ${JSON.stringify(key)}`;
}

/** A record of `table` written after `since` that the chain should hold (undefined for tables without a time). */
function writtenAt(table: ChainedTable, value: unknown): string | undefined {
  const record = value as Record<string, unknown>;
  const at = table === 'agents' ? record.updatedAt : table === 'userGrades' || table === 'activities' ? record.timestamp : record.at;
  return typeof at === 'string' ? at : undefined;
}

/** Chained records written after the chain began that no entry names: written around the tracker. */
function firstUnchained(tables: Tables, since: string, chained: ReadonlySet<string>): string | undefined {
  const missing = (table: ChainedTable, key: StoreKey, value: unknown) => {
    const at = writtenAt(table, value);
    return at !== undefined && at >= since && !chained.has(`${table} ${canonicalJson(key)}`);
  };
  for (const { key, value } of tables.agents.getRange({})) if (missing('agents', key, value)) return describe('agents', key);
  for (const { key, value } of tables.userGrades.getRange({})) if (missing('userGrades', key, value)) return describe('userGrades', key);
  for (const { key, value } of tables.activities.getRange({})) if (value.userAction && missing('activities', key, value)) return describe('activities', key);
  return undefined;
}

/** Walks the whole chain: links, head, every chained record as stored now, and records left out. */
export function verifyChain(tables: Tables): ChainCheck {
  let previous = CHAIN_GENESIS;
  let entries = 0;
  let suspectWrites = 0;
  const last = new Map<string, { table: ChainedTable; key: string; digest: string; seq: number }>();
  const fail = (broken: string): ChainCheck => ({ entries, suspectWrites, broken });
  for (const entry of chainEntries(tables)) {
    if (entry.seq !== entries + 1) return fail(`chain entry ${entries + 1} is missing (the next one found is ${entry.seq}): entries were removed around the tracker`);
    const { digest, ...body } = entry;
    if (linkDigest(previous, body) !== digest) return fail(`chain entry ${entry.seq} (${entry.at}) was changed around the tracker: its digest does not follow from the entry before`);
    if (entry.changedAround?.length) return fail(`${entry.changedAround[0]} was changed around the tracker before chain entry ${entry.seq} (${entry.at})`);
    for (const [table, key, recorded] of entry.records) last.set(`${table} ${key}`, { table, key, digest: recorded, seq: entry.seq });
    if (entry.writer.suspect) suspectWrites += 1;
    previous = digest;
    entries += 1;
  }
  const head = chainHead(tables);
  if (!head) return entries === 0 ? { entries, suspectWrites } : fail('the chain head is missing while the chain has entries');
  if (head.seq !== entries || head.digest !== previous) return fail(`the chain head (entry ${head.seq}) does not match the last entry (${entries})`);
  const changed = [...last.values()]
    .filter((ref) => recordDigest(storedRecord(tables, ref.table, JSON.parse(ref.key) as StoreKey)) !== ref.digest)
    .sort((a, b) => a.seq - b.seq)[0];
  if (changed) return fail(`${describe(changed.table, JSON.parse(changed.key) as StoreKey)} was changed around the tracker after chain entry ${changed.seq}`);
  const unchained = firstUnchained(tables, head.startedAt, new Set(last.keys()));
  if (unchained) return fail(`${unchained} was written around the tracker: no chain entry holds it`);
  return { entries, suspectWrites };
}

/**
 * The cheap check for the plugin's start: the head, the last entry's link to the one before and
 * the records it names as stored now. Returns the break in one sentence, or undefined.
 */
export function checkChainTail(tables: Tables): string | undefined {
  const head = chainHead(tables);
  if (!head) return undefined;
  const tail = tables.meta.get(chainEntryKey(head.seq)) as ChainEntry | undefined;
  if (!tail || tail.digest !== head.digest) return `the record chain's last entry (${head.seq}) does not match its head`;
  const before = head.seq > 1 ? (tables.meta.get(chainEntryKey(head.seq - 1)) as ChainEntry | undefined)?.digest : CHAIN_GENESIS;
  const { digest, ...body } = tail;
  if (before === undefined || linkDigest(before, body) !== digest) return `the record chain's last entry (${head.seq}) does not follow from the one before`;
  for (const [table, key, recorded] of tail.records) {
    if (recordDigest(storedRecord(tables, table, JSON.parse(key) as StoreKey)) !== recorded) return `${describe(table, JSON.parse(key) as StoreKey)} was changed around the tracker`;
  }
  return undefined;
}

/** One line for `doctor`. */
export function describeChainCheck(check: ChainCheck): string {
  if (check.broken) return `BROKEN: ${check.broken}. Records may have been changed without the tracker; run "agent-tracker review" and compare with a snapshot.`;
  const suspect = check.suspectWrites > 0 ? `; ${check.suspectWrites} written from inside an agent session (see "agent-tracker review")` : '';
  return `holds (${check.entries} entries)${suspect}`;
}

/** The start-of-session notice when the chain's tail is broken (never throws: a check must not stop a session). */
export function chainTailNotice(tables: Tables): string | undefined {
  try {
    const broken = checkChainTail(tables);
    return broken ? `agent-tracker: ${broken}; the agents' records may have been edited around the tracker. Run "agent-tracker doctor" to see the first break.` : undefined;
  } catch (error) {
    return `agent-tracker: the record chain could not be checked (${(error as Error).message}); run "agent-tracker doctor".`;
  }
}

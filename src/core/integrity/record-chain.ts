/**
 * A chained digest over the records that restrain or credit agents: every agent record (XP, SP,
 * CS, halt), the user's grades, the journal records of user-only actions and the user's reviews.
 * Each write of such records through the tracker appends one entry to the meta table: the
 * digest of each record as stored, who wrote it (the writer's provenance), and the digest of the
 * previous entry's digest plus this entry. `doctor` recomputes the chain and names the first
 * record that breaks it; the plugin checks the tail at start.
 *
 * What it is not: a seal. The agent runs as the same OS user and can read this file; a model that
 * knows the scheme can recompute the chain after editing the database. The point is that a write
 * around the tracker's door (lmdb opened directly, a copied file, a restored backup) leaves
 * evidence unless it is done with this scheme in mind, and that a write through the tracker's own
 * modules from a process inside an agent session is stored with that provenance, as suspect.
 */
import { createHash } from 'node:crypto';
import type { JournalKey, Mutation } from '../store/mutations.js';
import type { StoreKey, Tables, WritableTables } from '../store/tables.js';
import type { ActivityEntry } from '../types.js';
import { canonicalJson } from './option-pins.js';
import { nestedHostSigns, readAncestry } from './provenance.js';

/** The tables whose records the chain covers (meta: only the user's reviews). */
export type ChainedTable = 'agents' | 'userGrades' | 'activities' | 'meta';
export interface ChainedRef {
  table: ChainedTable;
  key: StoreKey;
}

/** Who wrote a chain entry: the process, and whether its ancestry leads into an agent session. */
export interface ChainWriter {
  pid: number;
  suspect: boolean;
  signs?: string[];
}

/** [table, key as canonical JSON, digest of the stored record ('' when absent)]. */
export type ChainedRecordDigest = [ChainedTable, string, string];

export interface ChainEntry {
  seq: number;
  at: string;
  writer: ChainWriter;
  records: ChainedRecordDigest[];
  /** Records ("table key") found changed since their last entry when this write began. */
  changedAround?: string[];
  digest: string;
}

export interface ChainHead {
  seq: number;
  digest: string;
  /** When the first entry was written: records written after it must be in the chain. */
  startedAt: string;
}

const CHAIN_HEAD_KEY = 'chain:head';
const CHAIN_ENTRY_PREFIX = 'chain:entry:';
/** The last digest of each chained record, so a write can tell whether the record changed around it. */
const LAST_DIGEST_PREFIX = 'chain:last:';
/** Sequence numbers are zero-padded so the entries sort in order as meta keys. */
const SEQ_DIGITS = 12;
/** The digest the first entry links to. */
export const CHAIN_GENESIS = createHash('sha256').update('agent-tracker record chain 1').digest('hex');

/** The meta key of entry `seq`. */
export function chainEntryKey(seq: number): string {
  return `${CHAIN_ENTRY_PREFIX}${String(seq).padStart(SEQ_DIGITS, '0')}`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The digest of a record as stored ('' for a missing one: a deletion is a change too). */
export function recordDigest(value: unknown): string {
  return value === undefined ? '' : sha256(canonicalJson(value));
}

/** The digest linking an entry to the one before it. */
export function linkDigest(previous: string, entry: Omit<ChainEntry, 'digest'>): string {
  return sha256(`${previous}\n${canonicalJson(entry)}`);
}

/** A chained record as stored now (undefined when absent). */
export function storedRecord(tables: Tables, table: ChainedTable, key: StoreKey): unknown {
  return (tables[table] as unknown as { get(key: StoreKey): unknown }).get(key);
}

let writerOfThisProcess: ChainWriter | undefined;

/** This process as a writer, judged once: its ancestry does not change while it runs. */
function currentWriter(): ChainWriter {
  if (!writerOfThisProcess) {
    const signs = nestedHostSigns(readAncestry(process.pid));
    writerOfThisProcess = { pid: process.pid, suspect: signs.length > 0, ...(signs.length > 0 ? { signs } : {}) };
  }
  return writerOfThisProcess;
}

/** The meta key prefix of the user's reviews of suspect records (suspect-actions.ts): chained like the records they settle. */
export const REVIEW_KEY_PREFIX = 'review:';

/** The chained records a batch of mutations writes (each agent once: a flush holds an event per tool call, of a few agents). */
export function chainedRefsOf(mutations: readonly Mutation[]): ChainedRef[] {
  const refs: ChainedRef[] = [];
  const agents = new Set<string>();
  const agent = (name: string): void => {
    if (agents.has(name)) return;
    agents.add(name);
    refs.push({ table: 'agents', key: name });
  };
  for (const mutation of mutations) {
    if (mutation.table === 'agents') {
      agent(mutation.key);
      for (const op of mutation.ops) if ('userGrade' in op) refs.push({ table: 'userGrades', key: [op.userGrade.project, op.userGrade.commit] });
    } else if (mutation.table === 'events') {
      for (const op of mutation.agentOps) agent(op.agent);
      if (mutation.activity?.value.userAction) refs.push({ table: 'activities', key: mutation.activity.key });
    } else if (mutation.table === 'activities' && mutation.value.userAction) {
      refs.push({ table: 'activities', key: mutation.key });
    }
  }
  return refs;
}

/** The chain's head, or undefined before the first entry (or when it is not a head). */
export function chainHead(tables: Tables): ChainHead | undefined {
  const head = tables.meta.get(CHAIN_HEAD_KEY) as ChainHead | undefined;
  return head && Number.isSafeInteger(head.seq) && typeof head.digest === 'string' ? head : undefined;
}

interface LastDigest {
  digest: string;
  seq: number;
}

function lastDigestKey(table: ChainedTable, keyJson: string): string {
  return `${LAST_DIGEST_PREFIX}${table} ${keyJson}`;
}

/** An entry being written: the records as they were before the write, then `close` after it. */
export interface PendingChainEntry {
  close(at: string, writer?: ChainWriter): void;
}

/**
 * Starts the entry for a write of `refs`: call inside the write transaction BEFORE the records are
 * written. A record that differs from its last chained digest was changed around the tracker
 * since; the entry says so, so a later write through the tracker does not launder the change.
 * `close` (after the records are written, in the same transaction) appends the entry.
 */
export function openChainEntry(tables: WritableTables, refs: readonly ChainedRef[]): PendingChainEntry {
  const unique = new Map<string, ChainedRef & { keyJson: string }>();
  for (const ref of refs) {
    const keyJson = canonicalJson(ref.key);
    unique.set(`${ref.table} ${keyJson}`, { ...ref, keyJson });
  }
  const changedAround: string[] = [];
  for (const ref of unique.values()) {
    const last = tables.meta.get(lastDigestKey(ref.table, ref.keyJson)) as LastDigest | undefined;
    if (last && last.digest !== recordDigest(storedRecord(tables, ref.table, ref.key))) changedAround.push(`${ref.table} ${ref.keyJson}`);
  }
  return {
    close(at, writer = currentWriter()) {
      if (unique.size === 0) return;
      const records: ChainedRecordDigest[] = [...unique.values()].map((ref) => [ref.table, ref.keyJson, recordDigest(storedRecord(tables, ref.table, ref.key))]);
      const head = chainHead(tables);
      const body = { seq: (head?.seq ?? 0) + 1, at, writer, records, ...(changedAround.length > 0 ? { changedAround } : {}) };
      const digest = linkDigest(head?.digest ?? CHAIN_GENESIS, body);
      tables.meta.putSync(chainEntryKey(body.seq), { ...body, digest });
      tables.meta.putSync(CHAIN_HEAD_KEY, { seq: body.seq, digest, startedAt: head?.startedAt ?? at } satisfies ChainHead);
      for (const [table, keyJson, recorded] of records) tables.meta.putSync(lastDigestKey(table, keyJson), { digest: recorded, seq: body.seq } satisfies LastDigest);
      // Every suspect record is written with a chain entry: indexed here, readers skip the rest.
      indexSuspects(tables, body);
    },
  };
}

/** The chain entry `seq`, if stored. */
export function chainEntryAt(tables: Tables, seq: number): ChainEntry | undefined {
  return tables.meta.get(chainEntryKey(seq)) as ChainEntry | undefined;
}

// ---- the index of suspect records (read by suspect-index.ts) ------------------------------------
// One meta key per suspect user-only journal entry and one per chain entry a suspect process wrote,
// written with the entry, so readers need not scan the journal and the chain (both grow with every
// turn and flush). A database from before the index has no mark: readers scan whole, and the first
// entry written builds the index and sets the mark in the same transaction.

/** Set once the index holds every suspect record. */
export const SUSPECT_INDEX_MARK = 'suspect-index';
const SUSPECT_INDEX_BUILT = { version: 1 };
export const SUSPECT_ACTIVITY_PREFIX = 'suspect-index:activities ';
export const SUSPECT_CHAIN_PREFIX = 'suspect-index:chain ';

/** Whether a journal entry is a user-only record stored as suspect. */
export function isSuspectActivity(value: ActivityEntry | undefined): value is ActivityEntry {
  return value?.userAction?.suspect === true;
}

function suspectChainKey(seq: number): string {
  return `${SUSPECT_CHAIN_PREFIX}${String(seq).padStart(SEQ_DIGITS, '0')}`;
}

function suspectActivityKey(key: JournalKey): string {
  return `${SUSPECT_ACTIVITY_PREFIX}${JSON.stringify(key)}`;
}

/** Indexes what one entry wrote (after it and its records are written); without the mark, builds the whole index. */
function indexSuspects(tables: WritableTables, entry: Pick<ChainEntry, 'seq' | 'writer' | 'records'>): void {
  if (tables.meta.get(SUSPECT_INDEX_MARK) === undefined) {
    for (const { key, value } of tables.activities.getRange({})) if (isSuspectActivity(value)) tables.meta.putSync(suspectActivityKey(key), key);
    // Read first, then written: the entries and the index share the meta table.
    const suspectSeqs: number[] = [];
    for (const chained of chainEntries(tables)) if (chained.writer.suspect) suspectSeqs.push(chained.seq);
    for (const seq of suspectSeqs) tables.meta.putSync(suspectChainKey(seq), seq);
    tables.meta.putSync(SUSPECT_INDEX_MARK, SUSPECT_INDEX_BUILT);
    return;
  }
  if (entry.writer.suspect) tables.meta.putSync(suspectChainKey(entry.seq), entry.seq);
  for (const [table, keyJson] of entry.records) {
    if (table !== 'activities') continue;
    const key = JSON.parse(keyJson) as JournalKey;
    if (isSuspectActivity(tables.activities.get(key))) tables.meta.putSync(suspectActivityKey(key), key);
  }
}

/** A new database has no suspect record yet: its index is complete from the start, so no write scans for one. */
export function markSuspectIndexBuilt(tables: WritableTables): void {
  tables.meta.putSync(SUSPECT_INDEX_MARK, SUSPECT_INDEX_BUILT);
}

/** Every chain entry, oldest first (a read of the meta table's chain range). */
export function* chainEntries(tables: Tables): Generator<ChainEntry> {
  for (const { value } of tables.meta.getRange({ start: CHAIN_ENTRY_PREFIX, end: `${CHAIN_ENTRY_PREFIX}~` })) yield value as ChainEntry;
}

/** The chained records among records merged as they are (an import, a migration). */
export function chainedRefsOfRecords(records: readonly { table: string; key: unknown; value: unknown }[]): ChainedRef[] {
  const refs: ChainedRef[] = [];
  for (const { table, key, value } of records) {
    if (table === 'agents' || table === 'userGrades') refs.push({ table, key: key as StoreKey });
    else if (table === 'activities' && (value as { userAction?: unknown }).userAction) refs.push({ table, key: key as StoreKey });
    else if (table === 'meta' && typeof key === 'string' && key.startsWith(REVIEW_KEY_PREFIX)) refs.push({ table, key });
  }
  return refs;
}

/**
 * The agent sheets an import pools: for every agent that both the file and the database hold a sheet
 * of, the work each side holds (its records of the agent, and which of them the other side lacks), so
 * the merge writes one sheet decided by src/core/pooled-sheet.ts instead of keeping whichever came first.
 *
 * Used in three steps by transfer.ts: `noteFileRecord` for every checked line (first pass), `countHeld`
 * inside the import's transaction before anything is written, then `noteMerged` for every record the
 * merge writes or leaves, and `pooled` for each agent sheet (the merge hands agent records last).
 */
import { poolSheets } from '../pooled-sheet.js';
import { mergeSessionRecord } from './import-usage.js';
import type { SheetSide, SheetWork } from '../pooled-sheet.js';
import type { ScoringRules } from '../rules.js';
import type { AgentRecord, CommitRecord, UsageRecord } from '../types.js';
import type { HistoryTable, Tables } from './tables.js';
import { tableNamed } from './tables.js';

/** A record as the import reads it: its table, key and value. */
export interface SheetRecord {
  table: HistoryTable;
  key: unknown;
  value: unknown;
}

/** Tables whose keys start with the agent's name. */
const KEYED_BY_AGENT: readonly HistoryTable[] = ['communication', 'retrospectives', 'activities'];

function emptyWork(): SheetWork {
  return { records: 0, bugs: 0, creditedCommits: 0, csDelta: 0 };
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

/** The agent a history record is about, or undefined (projects, agent sheets themselves). */
export function agentOfRecord(record: SheetRecord): string | undefined {
  const { table, key, value } = record;
  switch (table) {
    case 'sessions':
      return Array.isArray(key) && typeof key[1] === 'string' ? key[1] : undefined;
    case 'communication':
    case 'retrospectives':
    case 'activities':
      return Array.isArray(key) && typeof key[0] === 'string' ? key[0] : undefined;
    case 'commits':
    case 'userGrades': {
      const agent = field(value, 'agent');
      return typeof agent === 'string' ? agent : undefined;
    }
    default:
      return undefined;
  }
}

/** Adds what one record of the agent brings to a sheet: a usage record's bugs and CS moves, a credited commit. */
function addWork(work: SheetWork, table: HistoryTable, value: unknown, sign = 1): void {
  work.records += sign;
  if (table === 'sessions') {
    const usage = value as Partial<UsageRecord>;
    work.bugs += sign * (usage.bugs ?? 0);
    work.csDelta += sign * (usage.csDelta ?? 0);
  } else if (table === 'commits' && (value as Partial<CommitRecord>).noCredit === undefined) {
    work.creditedCommits += sign;
  }
}

export class ImportSheets {
  /** The file's agent sheets, by id. */
  private readonly fileSheets = new Map<string, AgentRecord>();
  /** Records of each agent in the file. */
  private readonly fileRecords = new Map<string, number>();
  /** Agents with a sheet on both sides: the work the database held before the import, then less what the file holds too. */
  private readonly held = new Map<string, SheetWork>();
  /** Agents with a sheet on both sides: their records the import added (the file's own work). */
  private readonly added = new Map<string, SheetWork>();
  /** Records of each agent the database held before the import. */
  private readonly heldRecords = new Map<string, number>();
  /** Keys of the records the import added for those agents: a line repeated in the file is not work the database held. */
  private readonly addedKeys = new Set<string>();

  /** First pass: one checked record of the file. */
  noteFileRecord(record: SheetRecord): void {
    if (record.table === 'agents') {
      this.fileSheets.set(record.key as string, record.value as AgentRecord);
      return;
    }
    const agent = agentOfRecord(record);
    if (agent !== undefined) this.fileRecords.set(agent, (this.fileRecords.get(agent) ?? 0) + 1);
  }

  /** Inside the import's transaction, before it writes: what the database holds of every agent both sides have a sheet of. */
  countHeld(tables: Tables): void {
    for (const agent of this.fileSheets.keys()) {
      if (!tables.agents.doesExist(agent)) continue;
      this.held.set(agent, emptyWork());
      this.added.set(agent, emptyWork());
    }
    if (this.held.size === 0) return;
    const note = (table: HistoryTable, key: unknown, value: unknown): void => {
      const agent = agentOfRecord({ table, key, value });
      const work = agent === undefined ? undefined : this.held.get(agent);
      if (work) addWork(work, table, value);
    };
    for (const { key, value } of tables.usage.getRange()) note('sessions', key, value);
    for (const { key, value } of tables.commits.getRange()) note('commits', key, value);
    for (const { key, value } of tables.userGrades.getRange()) note('userGrades', key, value);
    for (const agent of this.held.keys()) {
      for (const table of KEYED_BY_AGENT) {
        for (const key of tableNamed(tables, table).getKeys({ start: [agent] })) {
          if (!Array.isArray(key) || key[0] !== agent) break;
          note(table, key, undefined);
        }
      }
    }
    for (const [agent, work] of this.held) this.heldRecords.set(agent, work.records);
  }

  /**
   * During the merge: a record of the file, written (`added`) or left because the database held its key.
   * A record both hold is taken off the database's own work, as the database holds it (`tables`).
   */
  noteMerged(record: SheetRecord, added: boolean, tables: Tables): void {
    const agent = agentOfRecord(record);
    if (agent === undefined || !this.held.has(agent)) return;
    const key = `${record.table}\u0000${JSON.stringify(record.key)}`;
    if (added) {
      this.addedKeys.add(key);
      addWork(this.added.get(agent) as SheetWork, record.table, record.value);
      return;
    }
    if (this.addedKeys.has(key)) return;
    const stored = record.table === 'sessions' || record.table === 'commits' ? tableNamed(tables, record.table).get(record.key as never) : undefined;
    addWork(this.held.get(agent) as SheetWork, record.table, stored, -1);
    // A session live in the file and backfilled here: the grades and bugs only the live side holds are the file's own work.
    const merged = record.table === 'sessions' && stored !== undefined ? mergeSessionRecord(stored as UsageRecord, record.value as UsageRecord) : undefined;
    if (merged) {
      const before = stored as UsageRecord;
      addWork(this.added.get(agent) as SheetWork, 'sessions', { bugs: (merged.bugs ?? 0) - (before.bugs ?? 0), csDelta: (merged.csDelta ?? 0) - (before.csDelta ?? 0) });
    }
  }

  /**
   * The sheet to write over the database's `stored` sheet of the file's agent `incoming`, or undefined
   * when the pooled sheet is the stored one.
   */
  pooled(stored: AgentRecord, incoming: AgentRecord, rules: ScoringRules): AgentRecord | undefined {
    const held = this.held.get(incoming.id);
    const added = this.added.get(incoming.id);
    if (!held || !added) return undefined;
    const local: SheetSide = { sheet: stored, records: this.heldRecords.get(incoming.id) ?? 0, own: held };
    const file: SheetSide = { sheet: incoming, records: this.fileRecords.get(incoming.id) ?? 0, own: added };
    const pooled = poolSheets(local, file, rules);
    return sameSheet(pooled, stored) ? undefined : pooled;
  }
}

/** Whether two sheets hold the same values (field order aside). */
function sameSheet(a: AgentRecord, b: AgentRecord): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) if ((a as unknown as Record<string, unknown>)[key] !== (b as unknown as Record<string, unknown>)[key]) return false;
  return true;
}

/**
 * Reads every readable record of a (possibly damaged) database file, crash-isolated, in a child
 * process (verify-child.js salvage): the child walks the file's trees with plain reads and keeps the
 * records of every intact leaf, on both sides of a damaged page and under every sound branch (not
 * only what a cursor reaches from either end before the damage), so lmdb never maps the damaged
 * file. Each damaged page met is counted; the records it held are what repair reports lost.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Key } from 'lmdb';
import { childRuntime, childScript } from './child-runtime.js';
import { tableNamed } from './tables.js';
import type { Tables } from './tables.js';
import { VERIFY_TIMEOUT_MS } from './verify.js';

/** The tables that hold history (the term index is rebuilt from documents, meta is written anew). */
export const SALVAGED_TABLES = ['agents', 'sessions', 'commits', 'communication', 'retrospectives', 'activities', 'projects', 'migrations', 'userGrades', 'events'] as const;
export type SalvagedTable = (typeof SALVAGED_TABLES)[number];

/** What lmdb's own table object tells of itself (the Table view does not carry it). */
interface LmdbCounted {
  getStats(): { entryCount: number };
}

/**
 * Entries per salvaged table: what a `.verified` sidecar records beside the file's fingerprint
 * (verify.ts). Each is the count lmdb keeps in the table's own record, which a file written cleanly
 * holds exactly (no table has duplicate keys): counting the keys instead read every page of the file
 * at the end of each writer (39 ms at 3,000 backfilled sessions) and left all of it in the process's
 * resident memory.
 */
export function salvagedCounts(tables: Tables): Record<SalvagedTable, number> {
  return Object.fromEntries(SALVAGED_TABLES.map((table) => [table, (tableNamed(tables, table) as unknown as LmdbCounted).getStats().entryCount])) as Record<SalvagedTable, number>;
}

export interface SalvagedRecord {
  key: Key;
  value: unknown;
}

export interface TableSalvage {
  records: Map<string, SalvagedRecord>;
  /** How many records the table says it holds (its entry count), when that could be read. */
  expected: number | undefined;
  /** Damaged pages (and undecodable records) met in the table: each hid records. */
  skippedRanges: number;
}

interface Pass {
  records: SalvagedRecord[];
  expected: number | undefined;
  /** Damaged pages (or undecodable records) met in the table: 0 when it was read whole. */
  faults: number;
  complete: boolean;
}

/** One child reading `tables`; a table it never reached comes back absent. */
function readPass(file: string, tables: readonly SalvagedTable[]): Map<SalvagedTable, Pass> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-salvage-'));
  const out = path.join(folder, 'records.ndjson');
  const runtime = childRuntime();
  const passes = new Map<SalvagedTable, Pass>();
  try {
    spawnSync(runtime.command, [childScript(), 'salvage', file, out, tables.join(',')], { env: runtime.env, stdio: 'ignore', timeout: VERIFY_TIMEOUT_MS });
    let text = '';
    try {
      text = fs.readFileSync(out, 'utf8');
    } catch {
      return passes;
    }
    for (const line of text.split('\n')) {
      if (!line) continue;
      let parsed: { t?: SalvagedTable; k?: Key; v?: unknown; expected?: number | null; faults?: number; done?: boolean };
      try {
        parsed = JSON.parse(line) as typeof parsed;
      } catch {
        break; // the last line was cut short
      }
      if (!parsed.t) continue;
      let pass = passes.get(parsed.t);
      if (!pass) passes.set(parsed.t, (pass = { records: [], expected: undefined, faults: 0, complete: false }));
      if (parsed.done) pass.complete = true;
      else if ('expected' in parsed) pass.expected = typeof parsed.expected === 'number' ? parsed.expected : undefined;
      else if (typeof parsed.faults === 'number') pass.faults = parsed.faults;
      else if (parsed.k !== undefined && parsed.v !== undefined) pass.records.push({ key: parsed.k, value: parsed.v });
    }
    return passes;
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/** Every readable record of every history table of `file`, in one child. */
export function salvageFile(file: string): Record<SalvagedTable, TableSalvage> {
  const result = {} as Record<SalvagedTable, TableSalvage>;
  const pass = readPass(file, SALVAGED_TABLES);
  for (const table of SALVAGED_TABLES) {
    const read = pass.get(table) ?? { records: [], expected: undefined, faults: 1, complete: false };
    const records = new Map<string, SalvagedRecord>();
    for (const record of read.records) records.set(JSON.stringify(record.key), record);
    const skippedRanges = read.complete ? read.faults : Math.max(1, read.faults);
    result[table] = { records, expected: read.expected, skippedRanges };
  }
  return result;
}

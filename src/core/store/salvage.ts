/**
 * Reads every readable record of a (possibly damaged) database file, crash-isolated: each table is
 * read in a child process (verify-child.js salvage). When the child dies on a damaged page, the
 * records it wrote before dying are kept and the table is read again from its END backwards, which
 * reaches the records past the damaged range; what lies between the two is skipped and counted.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Key } from 'lmdb';
import { childRuntime, childScript } from './child-runtime.js';
import { VERIFY_TIMEOUT_MS } from './verify.js';

/** The tables that hold history (the term index is rebuilt from documents, meta is written anew). */
export const SALVAGED_TABLES = ['agents', 'sessions', 'commits', 'communication', 'retrospectives', 'activities', 'projects', 'migrations'] as const;
export type SalvagedTable = (typeof SALVAGED_TABLES)[number];

export interface SalvagedRecord {
  key: Key;
  value: unknown;
}

export interface TableSalvage {
  records: Map<string, SalvagedRecord>;
  /** How many records the table says it holds (its entry count), when that could be read. */
  expected: number | undefined;
  /** Ranges of records that could not be read in either direction. */
  skippedRanges: number;
}

interface Pass {
  records: SalvagedRecord[];
  expected: number | undefined;
  complete: boolean;
}

/** One child reading one table in one direction; what it wrote before dying still counts. */
function readPass(file: string, table: string, direction: 'forward' | 'reverse'): Pass {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-salvage-'));
  const out = path.join(folder, 'records.ndjson');
  const runtime = childRuntime();
  try {
    spawnSync(runtime.command, [childScript(), 'salvage', file, out, table, direction], { env: runtime.env, stdio: 'ignore', timeout: VERIFY_TIMEOUT_MS });
    let text = '';
    try {
      text = fs.readFileSync(out, 'utf8');
    } catch {
      return { records: [], expected: undefined, complete: false };
    }
    const pass: Pass = { records: [], expected: undefined, complete: false };
    for (const line of text.split('\n')) {
      if (!line) continue;
      let parsed: { k?: Key; v?: unknown; expected?: number | null; done?: boolean; ok?: boolean };
      try {
        parsed = JSON.parse(line) as typeof parsed;
      } catch {
        break; // the last line was cut by the crash
      }
      if (parsed.done) pass.complete = true;
      else if ('expected' in parsed) pass.expected = typeof parsed.expected === 'number' ? parsed.expected : undefined;
      else if (parsed.k !== undefined && parsed.v !== undefined) pass.records.push({ key: parsed.k, value: parsed.v });
    }
    return pass;
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/** Every readable record of one table of `file`. */
export function salvageTable(file: string, table: SalvagedTable): TableSalvage {
  const records = new Map<string, SalvagedRecord>();
  const forward = readPass(file, table, 'forward');
  for (const record of forward.records) records.set(JSON.stringify(record.key), record);
  let expected = forward.expected;
  let skippedRanges = 0;
  if (!forward.complete) {
    const reverse = readPass(file, table, 'reverse');
    expected ??= reverse.expected;
    for (const record of reverse.records) records.set(JSON.stringify(record.key), record);
    const unread = expected === undefined ? !reverse.complete : records.size < expected;
    if (unread) skippedRanges = 1;
  }
  return { records, expected, skippedRanges };
}

/** Every readable record of every history table of `file`. */
export function salvageFile(file: string): Record<SalvagedTable, TableSalvage> {
  const result = {} as Record<SalvagedTable, TableSalvage>;
  for (const table of SALVAGED_TABLES) result[table] = salvageTable(file, table);
  return result;
}

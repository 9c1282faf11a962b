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
export const SALVAGED_TABLES = ['agents', 'sessions', 'commits', 'communication', 'retrospectives', 'activities', 'projects', 'migrations', 'userGrades', 'events'] as const;
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

/**
 * One child reading `tables` in order, in one direction; what it wrote before dying still counts.
 * Tables it never reached come back absent.
 */
function readPass(file: string, tables: readonly SalvagedTable[], direction: 'forward' | 'reverse'): Map<SalvagedTable, Pass> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-salvage-'));
  const out = path.join(folder, 'records.ndjson');
  const runtime = childRuntime();
  const passes = new Map<SalvagedTable, Pass>();
  try {
    spawnSync(runtime.command, [childScript(), 'salvage', file, out, tables.join(','), direction], { env: runtime.env, stdio: 'ignore', timeout: VERIFY_TIMEOUT_MS });
    let text = '';
    try {
      text = fs.readFileSync(out, 'utf8');
    } catch {
      return passes;
    }
    for (const line of text.split('\n')) {
      if (!line) continue;
      let parsed: { t?: SalvagedTable; k?: Key; v?: unknown; expected?: number | null; done?: boolean };
      try {
        parsed = JSON.parse(line) as typeof parsed;
      } catch {
        break; // the last line was cut by the crash
      }
      if (!parsed.t) continue;
      let pass = passes.get(parsed.t);
      if (!pass) passes.set(parsed.t, (pass = { records: [], expected: undefined, complete: false }));
      if (parsed.done) pass.complete = true;
      else if ('expected' in parsed) pass.expected = typeof parsed.expected === 'number' ? parsed.expected : undefined;
      else if (parsed.k !== undefined && parsed.v !== undefined) pass.records.push({ key: parsed.k, value: parsed.v });
    }
    return passes;
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * Every readable record of every history table of `file`. A healthy file takes one child; each
 * table a child died in is read again backwards, and the tables after it get a child each.
 */
export function salvageFile(file: string): Record<SalvagedTable, TableSalvage> {
  const result = {} as Record<SalvagedTable, TableSalvage>;
  const first = readPass(file, SALVAGED_TABLES, 'forward');
  for (const table of SALVAGED_TABLES) {
    const forward = first.get(table) ?? readPass(file, [table], 'forward').get(table) ?? { records: [], expected: undefined, complete: false };
    const records = new Map<string, SalvagedRecord>();
    for (const record of forward.records) records.set(JSON.stringify(record.key), record);
    let expected = forward.expected;
    let skippedRanges = 0;
    if (!forward.complete) {
      const reverse = readPass(file, [table], 'reverse').get(table);
      expected ??= reverse?.expected;
      for (const record of reverse?.records ?? []) records.set(JSON.stringify(record.key), record);
      const unread = expected === undefined ? !reverse?.complete : records.size < expected;
      if (unread) skippedRanges = 1;
    }
    result[table] = { records, expected, skippedRanges };
  }
  return result;
}

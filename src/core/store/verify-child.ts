/**
 * The crash-isolated reader: run as a child process (node, or the host's Bun with BUN_BE_BUN=1) by
 * verify.ts and salvage.ts. lmdb maps the file into THIS process, so a damaged page kills only this
 * process; the parent reads what it wrote to the output file before it died.
 *
 *   verify-child.js verify  DB OUT          read every record of every table (every leaf, branch and
 *                                            overflow page the tracker reads); write one JSON line
 *   verify-child.js salvage DB OUT TABLES DIRECTION
 *                                            write each readable record of the comma-separated
 *                                            TABLES as a JSON line, in key order ("forward") or
 *                                            reverse, one table after the other
 *
 * Every line is written with a synchronous write, so what was read before a crash is on disk.
 */
import fs from 'node:fs';
import { open } from 'lmdb';
import type { Key, RootDatabase } from 'lmdb';
import { compressionOf } from './compression.js';
import { restoredValue } from './stored-form.js';
import { TABLE_NAMES } from './table-names.js';

const MAX_NAMED_DATABASES = 16;

function openReadOnly(file: string): RootDatabase {
  return open({ path: file, readOnly: true, maxDbs: MAX_NAMED_DATABASES, compression: true });
}

/** A named table, or undefined when the file has none of that name (written before it existed): read-only cannot create it. */
function tableOf(root: RootDatabase, name: string) {
  return root.openDB<unknown, Key>({ name, compression: compressionOf(name) }) as ReturnType<RootDatabase['openDB']> | undefined;
}

function writeLine(fd: number, value: unknown): void {
  fs.writeSync(fd, `${JSON.stringify(value)}\n`);
}

function verify(file: string, fd: number): void {
  const root = openReadOnly(file);
  const entries: Record<string, number> = {};
  for (const name of TABLE_NAMES) {
    let count = 0;
    // Reading each value reads the leaf and overflow pages; the descent reads the branch pages.
    for (const { value } of tableOf(root, name)?.getRange() ?? []) {
      if (value === undefined) throw new Error(`a record of ${name} has no value`);
      count += 1;
    }
    entries[name] = count;
  }
  const schemaVersion = Number(tableOf(root, 'meta')?.get('schemaVersion') ?? 0);
  writeLine(fd, { ok: true, schemaVersion, entries });
}

function salvage(file: string, fd: number, tables: string, direction: string): void {
  const root = openReadOnly(file);
  for (const table of tables.split(',')) {
    const db = tableOf(root, table);
    if (!db) {
      writeLine(fd, { t: table, expected: 0 });
      writeLine(fd, { t: table, done: true });
      continue;
    }
    // The entry count lives in the sub-database's record in the main tree: cheap, and known even
    // when pages of the table itself are damaged.
    writeLine(fd, { t: table, expected: (db.getStats() as { entryCount?: number }).entryCount ?? null });
    // Whole records, as the store reads them: fields kept only in the key are filled back in.
    for (const { key, value } of db.getRange(direction === 'reverse' ? { reverse: true } : {})) writeLine(fd, { t: table, k: key, v: restoredValue(table, key, value) });
    writeLine(fd, { t: table, done: true });
  }
}

function main(argv: string[]): void {
  const [mode, file, out, table, direction] = argv;
  if (!mode || !file || !out) throw new Error('usage: verify-child.js verify|salvage DB OUT [TABLES DIRECTION]');
  const fd = fs.openSync(out, 'w');
  try {
    if (mode === 'verify') verify(file, fd);
    else if (mode === 'salvage' && table && direction) salvage(file, fd, table, direction);
    else throw new Error(`unknown mode ${mode}`);
  } catch (error) {
    writeLine(fd, { ok: false, error: (error as Error).message ?? String(error) });
  } finally {
    fs.closeSync(fd);
  }
}

main(process.argv.slice(2));
// lmdb keeps worker handles open; the answer is written, so end at once.
process.exit(0);

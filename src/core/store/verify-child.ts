/**
 * The crash-isolated reader: run as a child process (node, or the host's Bun with BUN_BE_BUN=1) by
 * verify.ts and salvage.ts. lmdb maps the file into THIS process, so a damaged page kills only this
 * process; the parent reads what it wrote to the output file before it died.
 *
 *   verify-child.js verify  DB OUT          walk every page the trees reference with plain reads
 *                                            (lmdb-walk.ts), then read and decode every record of
 *                                            every table with lmdb; write one JSON line
 *   verify-child.js salvage DB OUT TABLES   write each readable record of the comma-separated
 *                                            TABLES as a JSON line, one table after the other: the
 *                                            records of every intact leaf are copied byte for byte
 *                                            (plain reads) into a fresh file, which lmdb then
 *                                            decodes; lmdb never maps the damaged file
 *
 * Every line is written with a synchronous write, so what was read before a crash is on disk.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { open } from 'lmdb';
import type { Key, RootDatabase } from 'lmdb';
import { compressionOf } from './compression.js';
import { lmdbTreeProblem, readableRecords } from './lmdb-walk.js';
import { restoredValue } from './stored-form.js';
import { TABLE_NAMES } from './table-names.js';

const MAX_NAMED_DATABASES = 16;

function openReadOnly(file: string): RootDatabase {
  return open({ path: file, noSubdir: true, readOnly: true, maxDbs: MAX_NAMED_DATABASES, compression: true });
}

/** A named table, or undefined when the file has none of that name (written before it existed): read-only cannot create it. */
function tableOf(root: RootDatabase, name: string) {
  return root.openDB<unknown, Key>({ name, compression: compressionOf(name) }) as ReturnType<RootDatabase['openDB']> | undefined;
}

function writeLine(fd: number, value: unknown): void {
  fs.writeSync(fd, `${JSON.stringify(value)}\n`);
}

function verify(file: string, fd: number): void {
  // lmdb trusts every page it reads: no page reaches it that the plain-read walk did not clear.
  const fault = lmdbTreeProblem(file);
  if (fault) throw new Error(fault);
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

/** Copies the raw records of `tables` that read on intact pages into a fresh file; answers that file. */
function copyReadable(file: string, tables: string[], folder: string): { copy: RootDatabase; expected: Map<string, number | undefined>; faults: Map<string, number> } {
  const readable = readableRecords(file);
  const copy = path.join(folder, 'copy.lmdb');
  const root = open({ path: copy, noSubdir: true, maxDbs: MAX_NAMED_DATABASES, compression: true });
  const expected = new Map<string, number | undefined>();
  const faults = new Map<string, number>();
  // A fault in the table of tables hides tables whole: every table counts it.
  const hidden = readable.get('')?.faults.length ?? 0;
  for (const table of tables) {
    const found = readable.get(table);
    expected.set(table, found ? found.expected : hidden > 0 ? undefined : 0);
    faults.set(table, (found?.faults.length ?? 0) + hidden);
    if (!found || found.records.length === 0) continue;
    // Byte for byte: the stored form (compression included) is decoded by lmdb from the copy below.
    const db = root.openDB<Buffer, Buffer>({ name: table, encoding: 'binary', keyEncoding: 'binary', compression: false });
    root.transactionSync(() => {
      for (const record of found.records) db.putSync(record.key, record.value);
    });
  }
  return { copy: root, expected, faults };
}

function salvage(file: string, fd: number, tables: string): void {
  const names = tables.split(',');
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-salvage-copy-'));
  try {
    // The same environment reads the copy back with the store's own decoding (tableOf).
    const { copy: root, expected, faults } = copyReadable(file, names, folder);
    for (const table of names) {
      writeLine(fd, { t: table, expected: expected.get(table) ?? null });
      const db = tableOf(root, table);
      let undecodable = 0;
      for (const key of db?.getKeys() ?? []) {
        if (typeof key === 'symbol') continue;
        try {
          const value = db?.get(key);
          // Whole records, as the store reads them: fields kept only in the key are filled back in.
          if (value !== undefined) writeLine(fd, { t: table, k: key, v: restoredValue(table, key, value) });
        } catch {
          undecodable += 1;
        }
      }
      writeLine(fd, { t: table, faults: (faults.get(table) ?? 0) + undecodable });
      writeLine(fd, { t: table, done: true });
    }
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

function main(argv: string[]): void {
  const [mode, file, out, tables] = argv;
  if (!mode || !file || !out) throw new Error('usage: verify-child.js verify|salvage DB OUT [TABLES]');
  const fd = fs.openSync(out, 'w');
  try {
    if (mode === 'verify') verify(file, fd);
    else if (mode === 'salvage' && tables) salvage(file, fd, tables);
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

/**
 * The crash-isolated reader: run as a child process (node, or the host's Bun with BUN_BE_BUN=1) by
 * verify.ts and salvage.ts. lmdb maps the file into THIS process, so a damaged page kills only this
 * process; the parent reads what it wrote to the output file before it died.
 *
 *   verify-child.js verify  DB OUT          read every record of every table (every leaf, branch and
 *                                            overflow page the tracker reads); write one JSON line
 *   verify-child.js salvage DB OUT TABLE DIRECTION [START_KEY_JSON]
 *                                            write each readable record of TABLE as a JSON line, in
 *                                            key order ("forward") or reverse, from START_KEY
 *
 * Every line is written with a synchronous write, so what was read before a crash is on disk.
 */
import fs from 'node:fs';
import { open } from 'lmdb';
import type { Key, RootDatabase } from 'lmdb';
import { TABLE_NAMES } from './table-names.js';

const MAX_NAMED_DATABASES = 16;

function openReadOnly(file: string): RootDatabase {
  return open({ path: file, readOnly: true, maxDbs: MAX_NAMED_DATABASES, compression: true });
}

function tableOf(root: RootDatabase, name: string) {
  return root.openDB<unknown, Key>({ name, compression: name !== 'terms' });
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
    for (const { value } of tableOf(root, name).getRange()) {
      if (value === undefined) throw new Error(`a record of ${name} has no value`);
      count += 1;
    }
    entries[name] = count;
  }
  const schemaVersion = Number(tableOf(root, 'meta').get('schemaVersion') ?? 0);
  writeLine(fd, { ok: true, schemaVersion, entries });
}

function salvage(file: string, fd: number, table: string, direction: string, startJson: string | undefined): void {
  const root = openReadOnly(file);
  const db = tableOf(root, table);
  const options: { reverse?: boolean; start?: Key } = {};
  if (direction === 'reverse') options.reverse = true;
  if (startJson) options.start = JSON.parse(startJson) as Key;
  // The entry count lives in the sub-database's record in the main tree: cheap, and known even when
  // pages of the table itself are damaged.
  writeLine(fd, { expected: (db.getStats() as { entryCount?: number }).entryCount ?? null });
  for (const { key, value } of db.getRange(options)) writeLine(fd, { k: key, v: value });
  writeLine(fd, { done: true });
}

function main(argv: string[]): void {
  const [mode, file, out, table, direction, start] = argv;
  if (!mode || !file || !out) throw new Error('usage: verify-child.js verify|salvage DB OUT [TABLE DIRECTION [START]]');
  const fd = fs.openSync(out, 'w');
  try {
    if (mode === 'verify') verify(file, fd);
    else if (mode === 'salvage' && table && direction) salvage(file, fd, table, direction, start);
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

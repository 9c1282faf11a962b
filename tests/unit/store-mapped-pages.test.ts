/**
 * What a long writer keeps of the database file in its resident memory. lmdb maps the whole file and
 * every page read stays resident until the map is closed, so a backfill's RSS grew by the size of the
 * file it wrote. Store.releaseMappedPages closes the map between transactions and maps the file again;
 * the counts a writer records in the `.verified` sidecar (salvagedCounts) are read without walking
 * the tables. Resident pages are read from /proc/self/smaps, the kernel's own account.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { SALVAGED_TABLES, salvagedCounts } from '../../src/core/store/salvage.js';
import { Store, tableNamed } from '../../src/core/store/store.js';
import type { ProjectProfile } from '../../src/core/types.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const SIZE = 256 * 1024 * 1024;
const PROFILES = 2_000;
const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});
const tempDir = useTempDirs('agent-tracker-mapped-pages-');

/** KiB of `file` resident in this process through its memory maps, as the kernel counts them. */
function residentKiB(file: string): number {
  let total = 0;
  let inFile = false;
  for (const line of fs.readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inFile = line.endsWith(` ${file}`);
    else if (inFile && line.startsWith('Rss:')) total += Number(/(\d+)/.exec(line)?.[1] ?? 0);
  }
  return total;
}

/** A profile of about 4 KB of incompressible text (lmdb compresses values): a page of its own. */
function profile(index: number): ProjectProfile {
  return { path: `/work/p${index}`, language: 'go', framework: 'none', scope: 'service', dependencies: [randomBytes(2_000).toString('hex')], manifestType: 'go.mod', classifiedAt: '2026-11-27T00:00:00.000Z', agentsmdHash: '' };
}

function openWith(profiles: number): { store: Store; file: string; written: Map<string, ProjectProfile> } {
  const file = path.join(tempDir(), 'db.lmdb');
  const store = Store.open({ path: file, maxDatabaseSize: SIZE });
  stores.push(store);
  const written = new Map<string, ProjectProfile>();
  for (let i = 0; i < profiles; i += 1) written.set(`/work/p${i}`, profile(i));
  const records = [...written].map(([key, value]) => ({ table: 'projects' as const, key, value }));
  for (let i = 0; i < records.length; i += 250) store.putRecords(records.slice(i, i + 250));
  return { store, file, written };
}

/** Reads every profile back: the pages of the whole table become resident. */
function readAll(store: Store): Map<string, ProjectProfile> {
  return new Map([...store.tables.projects.getRange()].map(({ key, value }) => [key, value]));
}

describe('the pages of the file a store keeps resident', () => {
  it('are given back by releaseMappedPages, and the store reads and writes as before on the new map', () => {
    const { store, file, written } = openWith(PROFILES);
    expect(readAll(store)).toEqual(written);
    const fileKiB = fs.statSync(file).size / 1024;
    // 2,000 pages of 4 KiB written and read: most of the file is resident (the kernel maps neighbours too).
    expect(fileKiB).toBeGreaterThan(PROFILES * 4);
    const before = residentKiB(file);
    expect(before).toBeGreaterThan(fileKiB / 2);

    store.releaseMappedPages();
    // Only the pages of the open itself (meta pages, the table of tables) are mapped again.
    expect(residentKiB(file)).toBeLessThan(before / 20);

    expect(store.tables.projects.get('/work/p7')).toEqual(written.get('/work/p7'));
    const extra = profile(PROFILES);
    store.putRecords([{ table: 'projects', key: extra.path, value: extra }]);
    written.set(extra.path, extra);
    expect(readAll(store)).toEqual(written);
    store.close();
    const reopened = Store.open({ path: file, maxDatabaseSize: SIZE, readOnly: true });
    stores.push(reopened);
    expect(readAll(reopened)).toEqual(written);
  });

  it('stay mapped when asked inside a transaction, which commits whole', () => {
    const { store, written } = openWith(10);
    const extra = profile(10);
    store.write((tables) => {
      tables.projects.putSync(extra.path, extra);
      store.releaseMappedPages();
      tables.projects.putSync(`${extra.path}-again`, extra);
    });
    written.set(extra.path, extra);
    written.set(`${extra.path}-again`, extra);
    expect(readAll(store)).toEqual(written);
  });

  it('refuses writes with the reason, and reads nothing, when the file cannot be mapped again', () => {
    const { store, file } = openWith(5);
    // The file moved away and a folder in its place: lmdb cannot open that path any more.
    fs.renameSync(file, `${file}.moved`);
    fs.mkdirSync(file);
    expect(() => store.releaseMappedPages()).toThrow(/cannot open the agent-tracker database at/);
    expect(store.refusal).toMatch(/cannot open the agent-tracker database at/);
    expect(store.tables.projects.get('/work/p1')).toBeUndefined();
    expect(() => store.putRecords([{ table: 'projects', key: '/work/late', value: profile(99) }])).toThrow(/cannot open the agent-tracker database at/);
    expect(() => store.close()).not.toThrow();
  });

  it('is nothing to give back on a closed store', () => {
    const { store } = openWith(1);
    store.close();
    expect(() => store.releaseMappedPages()).not.toThrow();
  });
});

describe('the counts a writer records beside the verified file', () => {
  it('are the entries each table holds, after overwrites and removals, and leave its pages unread', () => {
    const { store, file } = openWith(300);
    store.write((tables) => {
      for (let i = 0; i < 40; i += 1) tables.projects.removeSync(`/work/p${i}`);
      // Overwrites add no entry.
      for (let i = 100; i < 120; i += 1) tables.projects.putSync(`/work/p${i}`, profile(i));
    });
    store.releaseMappedPages();
    const counts = salvagedCounts(store.tables);
    // Counted with the file's pages unread: nothing beyond the open's own pages became resident.
    expect(residentKiB(file)).toBeLessThan(fs.statSync(file).size / 1024 / 20);
    expect(counts.projects).toBe(300 - 40);
    // Every table against its records read one by one.
    for (const table of SALVAGED_TABLES) expect([table, [...tableNamed(store.tables, table).getRange()].length]).toEqual([table, counts[table]]);
  });
});

/**
 * `repair` of a file with one page of noise keeps every record it can read and counts what it lost
 * truthfully: a damaged meta page costs at most the last write, a damaged leaf costs that leaf's
 * records and no others (the records on both sides of it are kept), a damaged branch costs nothing
 * (the leaves under it are intact), and kept + lost always adds up to what the file held.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { termIndexer } from '../../src/core/search/indexer.js';
import { lmdbTreeProblem } from '../../src/core/store/lmdb-walk.js';
import { repairDatabase } from '../../src/core/store/repair.js';
import type { RepairReport } from '../../src/core/store/repair.js';
import { SALVAGED_TABLES } from '../../src/core/store/salvage.js';
import { Store, tableNamed } from '../../src/core/store/store.js';
import { recordVerified } from '../../src/core/store/verify.js';
import { buildSweepDatabase, PAGE_SIZE, SWEEP_MAX_SIZE, writeNoisyCopy } from '../helpers/damage-sweep.js';

let folder: string;
let pristine: Buffer;
/** Each history table's records in the undamaged file, as JSON of key and value. */
let records: Record<string, Map<string, string>>;

beforeAll(() => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-repair-page-'));
  const file = buildSweepDatabase(path.join(folder, 'built'));
  const store = Store.open({ path: file, maxDatabaseSize: SWEEP_MAX_SIZE, indexer: termIndexer });
  records = {};
  for (const table of SALVAGED_TABLES) {
    records[table] = new Map([...tableNamed(store.tables, table).getRange()].map(({ key, value }) => [JSON.stringify(key), JSON.stringify(value)]));
  }
  store.close();
  pristine = fs.readFileSync(file);
});

afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

/** A damaged copy of the file whose last verified state (the sidecar the tracker keeps) is the undamaged one. */
function damagedCopy(page: number, name: string): string {
  const file = path.join(folder, name, 'agent-tracker.lmdb');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, pristine);
  recordVerified(file, Object.fromEntries(SALVAGED_TABLES.map((table) => [table, records[table]?.size ?? 0])));
  writeNoisyCopy(pristine, page, file);
  return file;
}

/** The first page whose noise the check names with `pattern`. */
function pageOf(pattern: RegExp): number {
  for (let page = 2; page < pristine.length / PAGE_SIZE; page += 1) {
    const file = path.join(folder, 'probe.lmdb');
    writeNoisyCopy(pristine, page, file);
    if (pattern.test(lmdbTreeProblem(file) ?? '')) return page;
  }
  throw new Error(`no page matches ${pattern}`);
}

async function repaired(page: number, name: string): Promise<{ report: RepairReport; file: string }> {
  const file = damagedCopy(page, name);
  const report = await repairDatabase({ path: file, maxDatabaseSize: SWEEP_MAX_SIZE, indexer: termIndexer });
  return { report, file };
}

/** Every table: kept + lost is what the file held, lost is a number, and what was kept is exactly as it was. */
function expectTruthful(report: RepairReport, file: string): void {
  const store = Store.open({ path: file, maxDatabaseSize: SWEEP_MAX_SIZE, readOnly: true, indexer: termIndexer });
  try {
    for (const table of SALVAGED_TABLES) {
      const counts = report.tables[table];
      const held = records[table]?.size ?? 0;
      expect({ table, sum: counts.kept + counts.recovered + (counts.lost ?? NaN) }).toEqual({ table, sum: held });
      for (const { key, value } of tableNamed(store.tables, table).getRange()) {
        expect({ table, value: JSON.stringify(value) }).toEqual({ table, value: records[table]?.get(JSON.stringify(key)) });
      }
    }
  } finally {
    store.close();
  }
}

describe('repair of one damaged page', () => {
  it('a damaged meta page: the other meta page leads to the records, and the last write is counted lost', async () => {
    const { report, file } = await repaired(1, 'meta');
    const kept = SALVAGED_TABLES.reduce((sum, table) => sum + report.tables[table].kept, 0);
    const held = SALVAGED_TABLES.reduce((sum, table) => sum + (records[table]?.size ?? 0), 0);
    expect(kept).toBeGreaterThan(held * 0.9);
    expectTruthful(report, file);
  });

  it('a damaged leaf: only its records are lost, those on both sides are kept', async () => {
    const page = pageOf(/\(a leaf of table "events"\)/);
    const { report, file } = await repaired(page, 'leaf');
    const events = report.tables.events;
    expect(events.lost).toBeGreaterThan(0);
    // One 4 KiB page holds far fewer than half of the table's records.
    expect(events.kept).toBeGreaterThan((records.events?.size ?? 0) / 2);
    expect(events.skippedRanges).toBe(1);
    expectTruthful(report, file);
  });

  it('a damaged branch: the leaves under it are intact, so nothing is lost', async () => {
    const page = pageOf(/\(a branch of table "events"\)/);
    const { report, file } = await repaired(page, 'branch');
    expect(report.tables.events).toMatchObject({ kept: records.events?.size, lost: 0 });
    expectTruthful(report, file);
  });
});

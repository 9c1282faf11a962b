/**
 * What an import writes and records, told by the store afterwards: an import past maxDatabaseSize is
 * refused before anything is written; a second import of the same file adds nothing; the git-signal
 * bookkeeping of a project the database never saw is taken as it is.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { gitSignalCacheKey } from '../../src/contract/git-signal-cache.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { Store } from '../../src/core/store/store.js';
import { exportRecords, importExport } from '../../src/core/store/transfer.js';
import { InputError } from '../../src/core/validation.js';

const MIB = 1024 * 1024;
const HEADER = JSON.stringify({ kind: 'header', format: 'agent-tracker-export', version: 3, exportedAt: '2026-11-26T10:00:00.000Z' });

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function openTemp(maxDatabaseSize = 64 * MIB): Store {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-import-'));
  dirs.push(dir);
  const store = Store.open({ path: path.join(dir, 'db.lmdb'), maxDatabaseSize, indexer: termIndexer });
  stores.push(store);
  return store;
}

/** A journal entry line of a current export, at second `n` of the day. */
function activityLine(n: number, task: string): string {
  const timestamp = new Date(Date.UTC(2026, 10, 26, 0, 0, n)).toISOString();
  const value = { timestamp, task, actions: '', outcome: 'done', decisions: '', agent: 'build', model: 'fake/a', project: '/p/big', automatic: false };
  return JSON.stringify({ kind: 'activities', key: ['build', timestamp, `x${n}`], value });
}

function fileOf(lines: readonly string[]): string {
  return `${[HEADER, ...lines, JSON.stringify({ kind: 'end', records: lines.length })].join('\n')}\n`;
}

describe('an import and maxDatabaseSize', () => {
  it('refuses a file whose new records would take the database past maxDatabaseSize, writing none of them', () => {
    const store = openTemp(MIB);
    const task = `a long description of the work ${'x'.repeat(1500)}`;
    const lines = Array.from({ length: 800 }, (_v, n) => activityLine(n, task));
    const text = fileOf(lines);
    expect(text.length).toBeGreaterThan(MIB);
    let refusal: unknown;
    try {
      importExport(store, text, 'big.ndjson');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(InputError);
    expect((refusal as Error).message).toMatch(/^importing 800 new records could take the database at .* past maxDatabaseSize \(1048576 bytes\)\. .*Nothing was imported\.$/);
    expect(store.tables.activities.getKeysCount()).toBe(0);
    expect(store.tables.migrations.getKeysCount()).toBe(0);
    // A file that fits is written to the same database.
    expect(importExport(store, fileOf([activityLine(900, 'small')]), 'small.ndjson').added).toBe(1);
    expect(store.tables.activities.getKeysCount()).toBe(1);
  });
});

describe('importing the same file twice', () => {
  it('adds nothing the second time, says when it came first, and records only the first run', () => {
    const store = openTemp();
    const text = fileOf([activityLine(1, 'first'), activityLine(2, 'second')]);
    const first = importExport(store, text, 'team.ndjson', () => new Date('2026-11-26T11:00:00.000Z'));
    expect([first.added, first.skipped, first.importedBefore, first.addedByKind.activities]).toEqual([2, 0, undefined, 2]);
    const second = importExport(store, text, 'team.ndjson', () => new Date('2026-11-26T12:00:00.000Z'));
    expect([second.added, second.skipped, second.importedBefore, second.addedByKind.activities]).toEqual([0, 2, '2026-11-26T11:00:00.000Z', 0]);
    expect(store.tables.activities.getKeysCount()).toBe(2);
    expect([...store.tables.migrations.getRange()].map(({ value }) => (value as { at: string }).at)).toEqual(['2026-11-26T11:00:00.000Z']);
    // Another file that brings one new entry is a new run, recorded beside the first.
    const third = importExport(store, fileOf([activityLine(1, 'first'), activityLine(3, 'third')]), 'more.ndjson', () => new Date('2026-11-26T13:00:00.000Z'));
    expect([third.added, third.skipped, third.importedBefore]).toEqual([1, 1, undefined]);
    expect(store.tables.migrations.getKeysCount()).toBe(2);
  });
});

describe("a project's git-signal bookkeeping", () => {
  it('is taken as it is when the database has none for the project, and kept per project', () => {
    const store = openTemp();
    const mine = { head: 'h1', counted: { aaa: { reverted: true, followUpFix: false } } };
    const theirs = { head: 'h2', counted: { bbb: { reverted: false, followUpFix: true } } };
    store.write((tables) => tables.meta.putSync(gitSignalCacheKey('/work/mine'), mine));
    const text = fileOf([JSON.stringify({ kind: 'gitSignals', key: '/work/theirs', value: theirs })]);
    expect(importExport(store, text, 'signals.ndjson')).toMatchObject({ added: 0, skipped: 0, gitSignals: 1 });
    expect(store.tables.meta.get(gitSignalCacheKey('/work/theirs'))).toEqual(theirs);
    expect(store.tables.meta.get(gitSignalCacheKey('/work/mine'))).toEqual(mine);
  });

  it('is counted apart in the export summary, so the kinds and the git signals add up to the records', () => {
    const store = openTemp();
    store.write((tables) => tables.meta.putSync(gitSignalCacheKey('/work/mine'), { head: 'h1', counted: {} }));
    importExport(store, fileOf([activityLine(1, 'first'), activityLine(2, 'second')]), 'two.ndjson');
    const summary = exportRecords(store, () => undefined);
    expect(summary).toMatchObject({ records: 3, gitSignals: 1 });
    expect(summary.byKind.activities).toBe(2);
    expect(Object.values(summary.byKind).reduce((sum, count) => sum + count, 0) + summary.gitSignals).toBe(summary.records);
  });
});

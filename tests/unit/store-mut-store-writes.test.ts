/**
 * The store's write door as a user meets it (store.ts): a write nested in another still lets the
 * outer one go on, a store opened read-only leaves the file as it was, opening an up-to-date file
 * changes nothing in it, a flush reports a duration it really took, a review written through
 * `putRecords` is chained, so a later change to it around the tracker is what `doctor` names, and a
 * record a merge resolves over the stored one (an import pooling agent sheets) is chained as well.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { resolveConfig } from '../../src/core/config.js';
import { verifyChain } from '../../src/core/integrity/chain-check.js';
import { Store, StoreNotWritableError } from '../../src/core/store/store.js';
import type { ProjectProfile } from '../../src/core/types.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const SIZE = 64 * 1024 * 1024;
const rules = resolveConfig({ options: {}, env: {}, home: '/tmp' }).rules;
const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});
const tempDir = useTempDirs('agent-tracker-mut-writes-');

function tempFile(): string {
  return path.join(tempDir(), 'db.lmdb');
}

function open(file: string, readOnly = false): Store {
  const store = Store.open({ path: file, maxDatabaseSize: SIZE, ...(readOnly ? { readOnly } : {}) });
  stores.push(store);
  return store;
}

function profile(projectPath: string): ProjectProfile {
  return { path: projectPath, language: 'go', framework: 'none', scope: 'service', dependencies: [], manifestType: 'go.mod', classifiedAt: '2026-11-26T00:00:00.000Z', agentsmdHash: '' };
}

describe('the write door', () => {
  it('after a write nested in another, the outer write goes on with the store helpers and keeps everything', () => {
    const store = open(tempFile());
    const counts = store.write((tables) => {
      store.write((inner) => inner.meta.putSync('inner', 1));
      tables.meta.putSync('outer', 2);
      // Still inside the outer write: the merge helper must not be refused as "outside store.write".
      return store.mergeAbsent([{ table: 'projects', key: '/work/a', value: profile('/work/a') }]);
    });
    expect(counts).toEqual({ added: 1, skipped: 0, addedByTable: { projects: 1 } });
    expect([store.tables.meta.get('inner'), store.tables.meta.get('outer'), store.tables.projects.get('/work/a')]).toEqual([1, 2, profile('/work/a')]);
  });

  it('a store opened read-only writes nothing: its write fails and the file does not hold the record afterwards', () => {
    const file = tempFile();
    open(file).close();
    const reader = open(file, true);
    expect(() => reader.write((tables) => tables.meta.putSync('from-reader', 1))).toThrow(StoreNotWritableError);
    expect(() => reader.write((tables) => tables.meta.putSync('from-reader', 1))).toThrow(/opened read-only/);
    reader.close();
    expect(open(file).tables.meta.get('from-reader')).toBeUndefined();
  });

  it('opening an up-to-date file for writing leaves its bytes unchanged until something is written', () => {
    const file = tempFile();
    const first = open(file);
    first.putRecords([{ table: 'projects', key: '/work/a', value: profile('/work/a') }]);
    first.close();
    const before = fs.readFileSync(file);
    open(file).close();
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it('a flush reports how long it took: no less than nothing and no more than the call around it', () => {
    const store = open(tempFile());
    const started = performance.now();
    const result = store.applyBatch([{ table: 'meta', key: 'note', value: 1 }], rules, '2026-11-26T10:00:00.000Z');
    const elapsed = performance.now() - started;
    expect(result.mutations).toBe(1);
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(result.durationMs).toBeLessThanOrEqual(elapsed);
  });
});

describe('a review written through putRecords', () => {
  it('is chained: changed around the tracker afterwards, the chain check names it', () => {
    const store = open(tempFile());
    const key = 'review:0badc0de';
    store.putRecords([{ table: 'meta', key, value: { decision: 'dropped', at: '2026-11-26T10:00:00.000Z' } }]);
    expect(verifyChain(store.tables).broken).toBeUndefined();
    // A plain write: store.write opens no chain entry, as a write around the tracker would not.
    store.write((tables) => tables.meta.putSync(key, { decision: 'confirmed', at: '2026-11-26T10:00:00.000Z' }));
    expect(verifyChain(store.tables).broken).toBe(`meta record "${key}" was changed around the tracker after chain entry 1`);
  });
});

describe('a merge whose caller resolves a record the store already holds', () => {
  const sheet = (sp: number) => ({ id: 'build', sp, xp: 0, cs: 60, commits: 0, bugs: 0, halted: false, createdAt: '2026-11-26T10:00:00.000Z', updatedAt: '2026-11-26T10:00:00.000Z' });

  it('writes the resolved value over the stored one, tells each record, and keeps the record chain whole', () => {
    const store = open(tempFile());
    store.write(() => store.mergeAbsent([{ table: 'agents', key: 'build', value: sheet(1) }]));
    const told: [string, boolean][] = [];
    const counts = store.write(() =>
      store.mergeAbsent([{ table: 'projects', key: '/work/a', value: profile('/work/a') }, { table: 'agents', key: 'build', value: sheet(3) }], undefined, {
        observe: (record, added) => told.push([String(record.key), added]),
        resolve: (record, stored) => (record.table === 'agents' ? { ...(stored as object), sp: 2 } : undefined),
      }),
    );
    expect(counts).toEqual({ added: 1, skipped: 1, addedByTable: { projects: 1 }, resolved: 1 });
    expect(told).toEqual([
      ['/work/a', true],
      ['build', false],
    ]);
    expect(store.tables.agents.get('build')).toEqual(sheet(2));
    // The chain entry was opened before the write: the stored sheet matched its last digest then.
    expect(verifyChain(store.tables)).toEqual({ entries: 2, suspectWrites: 0 });
  });

  it('keeps the stored record, and counts it skipped, when the caller gives no resolve hook', () => {
    const store = open(tempFile());
    store.write(() => store.mergeAbsent([{ table: 'agents', key: 'build', value: sheet(1) }]));
    const told: boolean[] = [];
    const counts = store.write(() => store.mergeAbsent([{ table: 'agents', key: 'build', value: sheet(3) }], undefined, { observe: (_record, added) => told.push(added) }));
    expect(counts).toEqual({ added: 0, skipped: 1, addedByTable: {} });
    expect(told).toEqual([false]);
    expect(store.tables.agents.get('build')).toEqual(sheet(1));
    // A merge with no hooks at all, as a migration runs it.
    expect(store.write(() => store.mergeAbsent([{ table: 'agents', key: 'build', value: sheet(3) }]))).toEqual({ added: 0, skipped: 1, addedByTable: {} });
    expect(store.tables.agents.get('build')).toEqual(sheet(1));
  });

  it('leaves the stored record when the caller resolves to nothing', () => {
    const store = open(tempFile());
    store.write(() => store.mergeAbsent([{ table: 'agents', key: 'build', value: sheet(1) }]));
    const counts = store.write(() => store.mergeAbsent([{ table: 'agents', key: 'build', value: sheet(3) }], undefined, { resolve: () => undefined }));
    expect(counts).toEqual({ added: 0, skipped: 1, addedByTable: {} });
    expect(store.tables.agents.get('build')).toEqual(sheet(1));
  });
});

describe('a merge of more documents than its indexing batch', () => {
  it('hands the indexer the documents it wrote a batch at a time, and none of the records that are not documents', () => {
    const batches: string[][] = [];
    const store = Store.open({ path: tempFile(), maxDatabaseSize: SIZE, indexer: (_tables, documents) => void batches.push(documents.map((document) => String((document.key as string[])[2]))) });
    stores.push(store);
    const entry = (n: number) => {
      const timestamp = `2026-11-26T10:00:0${n}.000Z`;
      const value = { timestamp, task: `task ${n}`, actions: '', outcome: 'done', decisions: '', agent: 'build', model: 'p/m', project: '/work/a', automatic: false };
      return { table: 'activities' as const, key: ['build', timestamp, `e${n}`], value };
    };
    const records = [entry(1), { table: 'projects' as const, key: '/work/a', value: profile('/work/a') }, entry(2), entry(3), entry(4), entry(5)];
    const counts = store.write(() => store.mergeAbsent(records, 2));
    expect(counts.added).toBe(6);
    expect(batches).toEqual([['e1', 'e2'], ['e3', 'e4'], ['e5']]);
  });
});

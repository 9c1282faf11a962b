/**
 * The store's life on a temporary LMDB file: one file whatever its name, the schema stamp (and the refusal to write a newer
 * file), a pending store that records nothing until the file is attached, the copy `backup` makes,
 * the merge of imports, the indexers a write runs, and the figures `doctor` reads (counts, pages in use).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { NO_INDEXER, SCHEMA_VERSION, Store, StoreNotWritableError } from '../../src/core/store/store.js';
import type { DocumentIndexer, WrittenDocument } from '../../src/core/store/store.js';
import { PAGE_SIZE } from '../../src/core/store/batch-room.js';
import type { ProjectProfile } from '../../src/core/types.js';

const SIZE = 64 * 1024 * 1024;
const dirs: string[] = [];
const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-life-'));
  dirs.push(dir);
  return dir;
}

function open(file: string, options: { readOnly?: boolean; indexer?: DocumentIndexer } = {}): Store {
  const store = Store.open({ path: file, maxDatabaseSize: SIZE, ...options });
  stores.push(store);
  return store;
}

function profile(projectPath: string): ProjectProfile {
  return { path: projectPath, language: 'typescript', framework: 'none', scope: 'library', dependencies: [], manifestType: 'package.json', classifiedAt: '2026-11-26T00:00:00.000Z', agentsmdHash: '' };
}

const COMMIT = { hash: 'c'.repeat(40), agent: 'build', model: 'fake/a', sessionId: 's1', message: 'add coupons', files: ['a.ts'], insertions: 1, deletions: 0, timestamp: '2026-11-26T00:00:00.000Z' };

/** An indexer that remembers the documents it was handed, and whose deferred work takes `steps` calls. */
function recordingIndexer(steps = 0): DocumentIndexer & { seen: WrittenDocument[][]; maintained: number } {
  const seen: WrittenDocument[][] = [];
  let left = steps;
  const indexer = Object.assign((_tables: unknown, documents: WrittenDocument[]) => void seen.push(documents), {
    seen,
    maintained: 0,
    maintain: (): boolean => {
      indexer.maintained += 1;
      left = Math.max(0, left - 1);
      return left > 0;
    },
  });
  return indexer;
}

describe('the file', () => {
  it('is one file at a path without an extension, which a reader then opens, and gives its mapped pages back there too', () => {
    const folder = tempDir();
    const file = path.join(folder, 'tracker');
    const store = open(file);
    store.write((tables) => tables.meta.putSync('kept', 'yes'));
    store.releaseMappedPages();
    store.write((tables) => tables.meta.putSync('after', 'yes'));
    store.close();
    expect(fs.statSync(file).isFile()).toBe(true);
    expect(fs.readdirSync(folder).sort()).toEqual(['tracker', 'tracker-lock']);
    const reader = open(file, { readOnly: true });
    expect([reader.tables.meta.get('kept'), reader.tables.meta.get('after')]).toEqual(['yes', 'yes']);
  });
});

describe('the schema stamp', () => {
  it('stamps a new file with the schema version, and keeps a newer file unwritten, saying why', () => {
    const file = path.join(tempDir(), 'db.lmdb');
    const store = open(file);
    expect(store.meta().schemaVersion).toBe(SCHEMA_VERSION);
    expect(store.refusal).toBeUndefined();
    store.write((tables) => tables.meta.putSync('schemaVersion', SCHEMA_VERSION + 1));
    store.close();
    const newer = open(file);
    expect(newer.refusal).toContain(`schema ${SCHEMA_VERSION + 1}, this one knows up to ${SCHEMA_VERSION}`);
    expect(() => newer.write((tables) => tables.meta.putSync('x', 1))).toThrow(StoreNotWritableError);
    expect(newer.meta().schemaVersion).toBe(SCHEMA_VERSION + 1);
  });

  it('stamps an older file at its first writable open, but not when opened read-only', () => {
    const file = path.join(tempDir(), 'db.lmdb');
    const store = open(file);
    store.write((tables) => tables.meta.putSync('schemaVersion', SCHEMA_VERSION - 1));
    store.close();
    const reader = open(file, { readOnly: true });
    expect(reader.meta().schemaVersion).toBe(SCHEMA_VERSION - 1);
    reader.close();
    expect(open(file).meta().schemaVersion).toBe(SCHEMA_VERSION);
  });
});

describe('a pending store', () => {
  it('reads as empty and refuses writes until attached, then reads and writes the file', () => {
    const dir = tempDir();
    const file = path.join(dir, 'db.lmdb');
    const first = open(file);
    first.putRecords([{ table: 'projects', key: '/work/a', value: profile('/work/a') }]);
    first.close();
    const pending = Store.pending({ path: file, maxDatabaseSize: SIZE }, 'still being checked');
    stores.push(pending);
    expect([pending.attached, pending.refusal, pending.tables.projects.getKeysCount(), pending.bytesInUse()]).toEqual([false, 'still being checked', 0, undefined]);
    expect(() => pending.putRecords([{ table: 'meta', key: 'x', value: 1 }])).toThrow('still being checked');
    expect(pending.maintainIndexes()).toBe(false);
    pending.attach();
    expect([pending.attached, pending.refusal, pending.tables.projects.get('/work/a')]).toEqual([true, undefined, profile('/work/a')]);
    pending.putRecords([{ table: 'meta', key: 'x', value: 1 }]);
    expect(pending.tables.meta.get('x')).toBe(1);
    // A second attach changes nothing.
    pending.attach();
    expect(pending.tables.meta.get('x')).toBe(1);
  });

  it('stays closed when attached after it was closed', () => {
    const file = path.join(tempDir(), 'db.lmdb');
    const pending = Store.pending({ path: file, maxDatabaseSize: SIZE }, 'still being checked');
    pending.close();
    pending.attach();
    expect([pending.attached, fs.existsSync(file)]).toEqual([false, false]);
    pending.close();
  });
});

describe('backup', () => {
  it('copies the open database to a file that opens with the same records', async () => {
    const dir = tempDir();
    const store = open(path.join(dir, 'db.lmdb'));
    store.putRecords([{ table: 'projects', key: '/work/a', value: profile('/work/a') }]);
    await store.backup(path.join(dir, 'copy.lmdb'));
    const copy = open(path.join(dir, 'copy.lmdb'));
    expect(copy.tables.projects.get('/work/a')).toEqual(profile('/work/a'));
  });

  it('refuses a store whose file is not open, with its reason', async () => {
    const pending = Store.pending({ path: path.join(tempDir(), 'db.lmdb'), maxDatabaseSize: SIZE }, 'still being checked');
    await expect(pending.backup(path.join(tempDir(), 'copy.lmdb'))).rejects.toThrow('still being checked');
  });
});

describe('merging records (imports, migrations)', () => {
  it('writes only absent keys, counts added and skipped per table, and indexes the documents written', () => {
    const indexer = recordingIndexer();
    const store = open(path.join(tempDir(), 'db.lmdb'), { indexer });
    store.putRecords([{ table: 'projects', key: '/work/a', value: profile('/work/a') }]);
    const counts = store.write(() =>
      store.mergeAbsent([
        { table: 'projects', key: '/work/a', value: profile('/elsewhere') },
        { table: 'projects', key: '/work/b', value: profile('/work/b') },
        { table: 'commits', key: ['/work/b', COMMIT.hash], value: COMMIT },
      ]),
    );
    expect(counts).toEqual({ added: 2, skipped: 1, addedByTable: { projects: 1, commits: 1 } });
    expect(store.tables.projects.get('/work/a')).toEqual(profile('/work/a'));
    expect(indexer.seen).toEqual([[{ kind: 'commit', key: ['/work/b', COMMIT.hash], value: COMMIT }]]);
  });

  it('refuses documents when no indexer was given, writing none of the merge', () => {
    const store = open(path.join(tempDir(), 'db.lmdb'));
    expect(() => store.write(() => store.mergeAbsent([{ table: 'commits', key: ['/work/b', COMMIT.hash], value: COMMIT }]))).toThrow(NO_INDEXER);
    expect(store.tables.commits.getKeysCount()).toBe(0);
    // Records that are not documents need no indexer.
    expect(store.write(() => store.mergeAbsent([{ table: 'projects', key: '/work/b', value: profile('/work/b') }])).added).toBe(1);
  });
});

describe('indexers', () => {
  it('runs an indexer added twice once per write', () => {
    const indexer = recordingIndexer();
    const store = open(path.join(tempDir(), 'db.lmdb'), { indexer });
    store.addIndexer(indexer);
    store.write(() => store.indexDocuments([{ kind: 'commit', key: ['/p', COMMIT.hash], value: COMMIT } as WrittenDocument]));
    expect(indexer.seen).toHaveLength(1);
    // No documents: no call.
    store.write(() => store.indexDocuments([]));
    expect(indexer.seen).toHaveLength(1);
  });

  it('maintainIndexes runs one step of every indexer and says whether work is left', () => {
    const twoSteps = recordingIndexer(2);
    const oneStep = recordingIndexer(1);
    const store = open(path.join(tempDir(), 'db.lmdb'), { indexer: twoSteps });
    store.addIndexer(oneStep);
    expect(store.maintainIndexes()).toBe(true);
    expect([twoSteps.maintained, oneStep.maintained]).toEqual([1, 1]);
    expect(store.maintainIndexes()).toBe(false);
    expect([twoSteps.maintained, oneStep.maintained]).toEqual([2, 2]);
  });

  it('maintainIndexes does nothing on a store that refuses writes or is read-only, or without deferred work', () => {
    const file = path.join(tempDir(), 'db.lmdb');
    const plain = Object.assign((() => undefined) as DocumentIndexer, {});
    const store = open(file, { indexer: plain });
    expect(store.maintainIndexes()).toBe(false);
    const steps = recordingIndexer(5);
    store.addIndexer(steps);
    store.refuseWrites('damaged');
    expect(store.maintainIndexes()).toBe(false);
    store.close();
    const reader = open(file, { readOnly: true, indexer: steps });
    expect(reader.maintainIndexes()).toBe(false);
    expect(steps.maintained).toBe(0);
  });
});

describe("the figures doctor reads", () => {
  it('counts the entries of each table and the pages in use, which grow with the data and stay within the file', () => {
    const file = path.join(tempDir(), 'db.lmdb');
    const store = open(file);
    const before = store.bytesInUse() as number;
    expect(before % PAGE_SIZE).toBe(0);
    // The two meta pages, and at least a page for each of meta's tree and the free list.
    expect(before).toBeGreaterThanOrEqual(3 * PAGE_SIZE);
    store.putRecords(Array.from({ length: 300 }, (_v, i) => ({ table: 'projects' as const, key: `/work/p${i}`, value: { ...profile(`/work/p${i}`), dependencies: ['x'.repeat(200)] } })));
    const after = store.bytesInUse() as number;
    expect(after).toBeGreaterThan(before + 10 * PAGE_SIZE);
    expect(after).toBeLessThanOrEqual(fs.statSync(file).size);
    const counts = store.counts();
    expect([counts.projects, counts.commits, counts.meta]).toEqual([300, 0, store.tables.meta.getKeysCount()]);
    expect(counts.meta).toBeGreaterThan(0);
  });

  it('closes once: a second close does nothing', () => {
    const store = open(path.join(tempDir(), 'db.lmdb'));
    store.close();
    expect(() => store.close()).not.toThrow();
  });
});

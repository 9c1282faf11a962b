/**
 * The store's side of a write whose caller waits a bounded time (spill.ts): with the write lock held
 * it writes nothing once the caller stopped waiting, and marks the batch merged under its spill id
 * when the commit comes near the caller's deadline, so the spill the caller wrote is merged once.
 * Markers whose spill never came are removed by a later merge, after a week. A temporary LMDB.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { DEFAULT_RULES } from '../../src/core/rules.js';
import type { Mutation } from '../../src/core/store/mutations.js';
import { mergeSpills, newSpillId, spillFilesOf, writeSpill } from '../../src/core/store/spill.js';
import type { LateWriteGuard } from '../../src/core/store/late-write.js';
import { Store, StoreNotWritableError } from '../../src/core/store/store.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('agent-tracker-late-marker-');
const SIZE = 64 * 1024 * 1024;
const XP = 4;
const TEST_RUNS = 3;
const NOW = new Date('2026-03-01T12:00:00.000Z');
const DAY_MS = 24 * 3_600_000;

function opened(): Store {
  return Store.open({ path: path.join(tempDir(), 'db.lmdb'), maxDatabaseSize: SIZE, indexer: termIndexer });
}

/** A batch of deltas: counted twice if it were applied twice. */
function batch(): Mutation[] {
  return [
    { table: 'agents', key: 'build', ops: [{ kind: 'xp', amount: XP }] },
    {
      table: 'usage',
      key: ['ses-1', 'build', 'm'],
      init: { sessionId: 'ses-1', source: 'live', agent: 'build', model: 'm', project: '/p', firstAt: NOW.toISOString() },
      counters: { testRuns: TEST_RUNS },
      lastAt: NOW.toISOString(),
    },
  ];
}

function guard(spillId: string, checks: { abandoned: boolean[]; near: boolean }): LateWriteGuard {
  let asked = 0;
  return {
    spillId,
    abandoned: () => checks.abandoned[Math.min(asked++, checks.abandoned.length - 1)] ?? false,
    nearDeadline: () => checks.near,
  };
}

function counted(store: Store): { xp: number; testRuns: number } {
  return { xp: store.tables.agents.get('build')?.xp ?? 0, testRuns: store.tables.usage.get(['ses-1', 'build', 'm'])?.testRuns ?? 0 };
}

function spillMarkers(store: Store): string[] {
  return [...store.tables.meta.getKeys({ start: 'spill:', end: 'spill;' })];
}

describe('a write whose caller waits a bounded time', () => {
  it('commits near its deadline marked merged, so the spill its caller wrote on giving up counts nothing more', () => {
    const store = opened();
    const id = newSpillId(NOW);
    store.applyBatch(batch(), DEFAULT_RULES, NOW.toISOString(), guard(id, { abandoned: [false], near: true }));
    // The caller stopped waiting while the commit ran: it spilled the batch under the id the write carried.
    writeSpill(store.path, batch(), NOW, id);
    expect(mergeSpills(store, DEFAULT_RULES, NOW)).toMatchObject({ merged: 0, alreadyMerged: 1 });
    expect(counted(store)).toEqual({ xp: XP, testRuns: TEST_RUNS });
    expect(spillFilesOf(store.path)).toEqual([]);
    store.close();
  });

  it('writes nothing once its caller stopped waiting, before or after its puts; the spill then counts it once', () => {
    for (const abandoned of [[true], [false, true]]) {
      const store = opened();
      const id = newSpillId(NOW);
      expect(() => store.applyBatch(batch(), DEFAULT_RULES, NOW.toISOString(), guard(id, { abandoned, near: true }))).toThrow(StoreNotWritableError);
      expect(counted(store)).toEqual({ xp: 0, testRuns: 0 });
      expect(spillMarkers(store)).toEqual([]);
      writeSpill(store.path, batch(), NOW, id);
      expect(mergeSpills(store, DEFAULT_RULES, NOW)).toMatchObject({ merged: 1, alreadyMerged: 0 });
      expect(counted(store)).toEqual({ xp: XP, testRuns: TEST_RUNS });
      store.close();
    }
  });

  it('far from its deadline writes no marker', () => {
    const store = opened();
    store.applyBatch(batch(), DEFAULT_RULES, NOW.toISOString(), guard(newSpillId(NOW), { abandoned: [false], near: false }));
    expect(spillMarkers(store)).toEqual([]);
    expect(counted(store)).toEqual({ xp: XP, testRuns: TEST_RUNS });
    store.close();
  });

  it('leaves a marker no spill came for only a week: a later merge removes it, and keeps the markers of merged spills', () => {
    const store = opened();
    const lateId = newSpillId(NOW);
    store.applyBatch(batch(), DEFAULT_RULES, NOW.toISOString(), guard(lateId, { abandoned: [false], near: true }));
    const mergedFile = writeSpill(store.path, batch(), NOW);
    expect(mergeSpills(store, DEFAULT_RULES, NOW)).toMatchObject({ merged: 1 });
    expect(fs.existsSync(mergedFile)).toBe(false);
    expect(spillMarkers(store)).toHaveLength(2);

    mergeSpills(store, DEFAULT_RULES, new Date(NOW.getTime() + DAY_MS));
    expect(spillMarkers(store)).toHaveLength(2);
    mergeSpills(store, DEFAULT_RULES, new Date(NOW.getTime() + 8 * DAY_MS));
    expect(spillMarkers(store)).toHaveLength(1);
    expect(spillMarkers(store)).not.toContain(`spill:${lateId}`);
    store.close();
  });

  it('keeps an old marker while its spill file is still waiting', () => {
    const store = opened();
    const id = newSpillId(NOW);
    store.applyBatch(batch(), DEFAULT_RULES, NOW.toISOString(), guard(id, { abandoned: [false], near: true }));
    const spilled = writeSpill(store.path, batch(), NOW, id);
    // A spill that cannot be read now stays for a later start, and so does its marker.
    fs.writeFileSync(spilled, '{"format":999}');
    const result = mergeSpills(store, DEFAULT_RULES, new Date(NOW.getTime() + 8 * DAY_MS));
    expect(result.left).toHaveLength(1);
    expect(spillMarkers(store)).toEqual([`spill:${id}`]);
    store.close();
  });
});

/**
 * The bytes in use `doctor` shows (Store.bytesInUse) against a figure lmdb gives without the
 * store's arithmetic: a compacted copy of a database holds exactly its pages in use (the two meta
 * pages, every tree's branch, leaf and overflow pages) and no free pages, so its file size is what
 * the copy's bytes in use must be; the original holds those pages plus its free-page list, never fewer.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { open } from 'lmdb';
import { Store } from '../../src/core/store/store.js';
import type { ProjectProfile } from '../../src/core/types.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const SIZE = 64 * 1024 * 1024;
const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});
const tempDir = useTempDirs('agent-tracker-mut-pages-');

/** A profile whose dependency list is 6,000 random hex characters: past a page, so lmdb keeps it in overflow pages. */
function bigProfile(projectPath: string): ProjectProfile {
  return { path: projectPath, language: 'go', framework: 'none', scope: 'service', dependencies: [randomBytes(3_000).toString('hex')], manifestType: 'go.mod', classifiedAt: '2026-11-26T00:00:00.000Z', agentsmdHash: '' };
}

describe('the bytes in use doctor shows', () => {
  it('equal a compacted copy file size for that copy, and are no fewer than it for the original with its free pages', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'db.lmdb');
    const store = Store.open({ path: file, maxDatabaseSize: SIZE });
    stores.push(store);
    store.putRecords(Array.from({ length: 40 }, (_v, i) => ({ table: 'projects' as const, key: `/work/p${i}`, value: bigProfile(`/work/p${i}`) })));
    // Freed pages: the original now has a free-page list the compacted copy leaves out.
    store.write((tables) => {
      for (let i = 0; i < 20; i += 1) tables.projects.removeSync(`/work/p${i}`);
    });

    const copy = path.join(dir, 'compact.lmdb');
    const root = open({ path: file, readOnly: true, maxDbs: 16 });
    try {
      await root.backup(copy, true);
    } finally {
      await root.close();
    }
    const copied = Store.open({ path: copy, maxDatabaseSize: SIZE, readOnly: true });
    stores.push(copied);
    expect(copied.tables.projects.getKeysCount()).toBe(20);
    const copySize = fs.statSync(copy).size;
    // 20 values of over 6,000 bytes each: the copy is well past 20 pages.
    expect(copySize).toBeGreaterThan(20 * 2 * 4096);
    expect(copied.bytesInUse()).toBe(copySize);
    expect(store.bytesInUse()).toBeGreaterThanOrEqual(copySize);
    expect(store.bytesInUse()).toBeLessThanOrEqual(fs.statSync(file).size);
  });
});

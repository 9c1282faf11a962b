/**
 * Opening the database (store.ts): a place lmdb must not map is refused with one line before
 * lmdb sees it, when a store is opened and when a pending one is attached; and a file of an older
 * tracker (no suspect index yet) still lists its suspect records after its first writable open
 * stamps it: only a new, empty file may be marked as having a complete (empty) suspect index.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { openChainEntry } from '../../src/core/integrity/record-chain.js';
import { suspectUserActions } from '../../src/core/integrity/suspect-actions.js';
import { StoreProblem } from '../../src/core/store/problems.js';
import { Store } from '../../src/core/store/store.js';
import type { ActivityEntry } from '../../src/core/types.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const SIZE = 64 * 1024 * 1024;
const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});
const tempDir = useTempDirs('agent-tracker-mut-open-');

/** The error a call throws, or undefined. */
function thrown(call: () => unknown): unknown {
  try {
    call();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('a place lmdb must not map', () => {
  it('a folder where the database file should be is refused on open with one line naming it', () => {
    const file = path.join(tempDir(), 'db.lmdb');
    fs.mkdirSync(file);
    const error = thrown(() => stores.push(Store.open({ path: file, maxDatabaseSize: SIZE })));
    expect(error).toBeInstanceOf(StoreProblem);
    expect((error as StoreProblem).message.startsWith(`the agent-tracker database at ${file} cannot be used: a folder is in its place.`)).toBe(true);
    expect(fs.readdirSync(file)).toEqual([]);
  });

  it('a folder put where the file should be while the store was pending is refused on attach, and the store stays unattached', () => {
    const file = path.join(tempDir(), 'db.lmdb');
    const pending = Store.pending({ path: file, maxDatabaseSize: SIZE }, 'still being checked');
    stores.push(pending);
    fs.mkdirSync(file);
    const error = thrown(() => pending.attach());
    expect(error).toBeInstanceOf(StoreProblem);
    expect((error as StoreProblem).message).toContain('a folder is in its place');
    expect([pending.attached, pending.refusal]).toEqual([false, 'still being checked']);
    expect(fs.readdirSync(file)).toEqual([]);
  });
});

describe('a file from an older tracker, without the suspect index', () => {
  const key: [string, string, string] = ['build', '2026-11-20T09:00:00.000Z', 'r1'];
  const revive: ActivityEntry = {
    timestamp: '2026-11-20T09:00:00.000Z',
    task: 'Revive of build',
    actions: 'revived',
    outcome: 'done',
    decisions: '',
    agent: 'build',
    model: 'p/m',
    project: '/work/old',
    automatic: false,
    userAction: { action: 'revive', via: 'terminal-no-tty', suspect: true },
  };

  /** Removes the schema version (or sets `version`) and every suspect-index key, as a tracker from before the index left the file. */
  function withoutIndex(tables: Parameters<Parameters<Store['write']>[0]>[0], version?: number): void {
    for (const metaKey of [...tables.meta.getKeys({})]) if (String(metaKey).startsWith('suspect-index')) tables.meta.removeSync(metaKey);
    if (version === undefined) tables.meta.removeSync('schemaVersion');
    else tables.meta.putSync('schemaVersion', version);
  }

  /** A file with the suspect revive in its journal and neither a schema version nor a suspect index, as older trackers left it. */
  function olderFile(): string {
    const file = path.join(tempDir(), 'db.lmdb');
    const store = Store.open({ path: file, maxDatabaseSize: SIZE });
    store.write((tables) => {
      tables.activities.putSync(key, revive);
      withoutIndex(tables);
    });
    store.close();
    return file;
  }

  it('without a schema version: still lists the suspect user-only record of its journal after the first writable open stamps it', () => {
    const file = olderFile();
    const store = Store.open({ path: file, maxDatabaseSize: SIZE });
    stores.push(store);
    expect(store.meta().schemaVersion).toBeGreaterThan(0);
    const revives = suspectUserActions(store).filter((action) => action.action === 'revive');
    expect(revives.map((action) => [action.agent, action.at, action.project])).toEqual([['build', '2026-11-20T09:00:00.000Z', '/work/old']]);
    // And after a later write through the tracker (which builds the index then), still once.
    store.putRecords([{ table: 'meta', key: 'note', value: 1 }]);
    expect(suspectUserActions(store).filter((action) => action.action === 'revive')).toHaveLength(1);
  });

  it('of schema 3 with an empty journal: still lists a direct write its chain holds from a suspect process', () => {
    const file = path.join(tempDir(), 'db.lmdb');
    const store = Store.open({ path: file, maxDatabaseSize: SIZE });
    store.write((tables) => {
      const entry = openChainEntry(tables, [{ table: 'agents', key: 'build' }]);
      tables.agents.putSync('build', { name: 'build' } as never);
      entry.close('2026-11-20T10:00:00.000Z', { pid: 424242, suspect: true, signs: ['an OpenCode parent'] });
      withoutIndex(tables, 3);
    });
    store.close();
    const reopened = Store.open({ path: file, maxDatabaseSize: SIZE });
    stores.push(reopened);
    expect(reopened.meta().schemaVersion).toBeGreaterThan(3);
    const writes = suspectUserActions(reopened).filter((action) => action.action === 'direct write' && action.at === '2026-11-20T10:00:00.000Z');
    expect(writes.map((action) => [action.agent, action.signs])).toEqual([['build', ['an OpenCode parent']]]);
  });
});

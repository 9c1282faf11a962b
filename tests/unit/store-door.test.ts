/**
 * One door for writes: `store.tables` is read-only to everyone, and the only way to write is
 * `store.write` (one transaction handing out the writable tables), which the flush (`applyBatch`),
 * local state (`putRecords`), imports, migrations, repair and the index rebuild all go through.
 * Checked three ways: by type (a write around the door does not compile), by the source (no module
 * outside the store writes a table), and by behaviour (all or nothing, refused when not writable).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { resolveConfig } from '../../src/core/config.js';
import { Store, StoreNotWritableError } from '../../src/core/store/store.js';
import type { ProjectProfile } from '../../src/core/types.js';

const SIZE = 64 * 1024 * 1024;
const rules = resolveConfig({ options: {}, env: {}, home: '/tmp' }).rules;
const SRC = path.resolve('src');
const PROFILE: ProjectProfile = {
  path: '/work/a',
  language: 'typescript',
  framework: 'none',
  scope: 'library',
  dependencies: ['lmdb'],
  manifestType: 'package.json',
  classifiedAt: '2026-11-26T00:00:00.000Z',
  agentsmdHash: '',
};
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function openTemp(): Store {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-door-'));
  dirs.push(dir);
  return Store.open({ path: path.join(dir, 'db.lmdb'), maxDatabaseSize: SIZE });
}

/** Never called: it only has to compile, each write around the door being a type error. */
export function writesAroundTheDoor(store: Store): void {
  // @ts-expect-error store.tables is read-only: no putSync
  store.tables.meta.putSync('k', 1);
  // @ts-expect-error store.tables is read-only: no removeSync
  store.tables.projects.removeSync('/p');
  // @ts-expect-error no clearSync either
  store.tables.terms.clearSync();
  // @ts-expect-error the old open transaction is gone: writes go through store.write
  store.transaction(() => undefined);
  // @ts-expect-error a table cannot be swapped for another
  store.tables.projects = store.tables.projects as never;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/**
 * The modules outside the store that are handed writable tables, and why: the term index (the
 * indexer callback, inside the store's transaction) and the grade-provenance migration (it rewrites
 * records in place, inside `store.write`).
 */
/** Code the store hands writable tables inside its write: the term index, the record chain (each write's chained digest), legacy grades. */
const HANDED_WRITABLE_TABLES = [/^core\/search\/index\//, /^core\/integrity\/record-chain\.ts$/, /^core\/outcomes\/legacy-grades\.ts$/];

describe('one door for writes', () => {
  it('no module outside src/core/store opens lmdb, runs its own transaction or empties a table', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const relative = path.relative(SRC, file).split(path.sep).join('/');
      if (relative.startsWith('core/store/')) continue;
      const text = fs.readFileSync(file, 'utf8');
      if (/from 'lmdb'|transactionSync|clearSync/.test(text)) offenders.push(relative);
    }
    expect(offenders).toEqual([]);
  });

  it('outside src/core/store only the modules handed writable tables put or remove, and nothing writes through store.tables', () => {
    const offenders: string[] = [];
    const aroundTheDoor: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const relative = path.relative(SRC, file).split(path.sep).join('/');
      const text = fs.readFileSync(file, 'utf8');
      if (/\b(store|this)\.tables(\.\w+|\[[^\]]+\])\.(putSync|removeSync)\(/.test(text)) aroundTheDoor.push(relative);
      if (relative.startsWith('core/store/')) continue;
      if (/\b(putSync|removeSync)\(/.test(text) && !HANDED_WRITABLE_TABLES.some((allowed) => allowed.test(relative))) offenders.push(relative);
    }
    expect(offenders).toEqual([]);
    expect(aroundTheDoor).toEqual([]);
  });

  it('a write outside store.write is refused at run time too', () => {
    const store = openTemp();
    try {
      expect(() => store.mergeAbsent([{ table: 'projects', key: '/p', value: {} }])).toThrow(StoreNotWritableError);
      expect(() => store.indexDocuments([])).toThrow(StoreNotWritableError);
      expect(() => store.clearTable('terms')).toThrow(StoreNotWritableError);
      expect(store.tables.projects.getKeysCount()).toBe(0);
    } finally {
      store.close();
    }
  });

  it('store.write is all or nothing, and a write inside another joins its transaction', () => {
    const store = openTemp();
    try {
      expect(() =>
        store.write((outer) => {
          outer.meta.putSync('outer', 1);
          store.write((inner) => inner.meta.putSync('inner', 2));
          throw new Error('stop');
        }),
      ).toThrow('stop');
      expect(store.tables.meta.get('outer')).toBeUndefined();
      expect(store.tables.meta.get('inner')).toBeUndefined();
      expect(store.write((tables) => (tables.meta.putSync('kept', 3), 'done'))).toBe('done');
      expect(store.tables.meta.get('kept')).toBe(3);
      // After a failed write the store is not stuck "inside" one: helpers are refused again.
      expect(() => store.mergeAbsent([])).toThrow(StoreNotWritableError);
    } finally {
      store.close();
    }
  });

  it('store.write is refused, with the reason, while the store refuses writes', () => {
    const store = openTemp();
    try {
      store.refuseWrites('the check found damage');
      expect(() => store.write((tables) => tables.meta.putSync('x', 1))).toThrow('the check found damage');
      expect(() => store.putRecords([{ table: 'meta', key: 'x', value: 1 }])).toThrow(StoreNotWritableError);
      expect(() => store.applyBatch([{ table: 'meta', key: 'x', value: 1 }], rules, '2026-11-26T00:00:00.000Z')).toThrow(StoreNotWritableError);
      expect(store.tables.meta.get('x')).toBeUndefined();
    } finally {
      store.close();
    }
    const pending = Store.pending({ path: path.join(dirs[0]!, 'other.lmdb'), maxDatabaseSize: SIZE }, 'still being checked');
    expect(() => pending.write(() => 1)).toThrow('still being checked');
  });

  it('putRecords writes local state at once without counting a flush; applyBatch counts one', () => {
    const store = openTemp();
    try {
      store.putRecords([
        { table: 'projects', key: '/work/a', value: PROFILE },
        { table: 'provisioned', key: '/cfg', items: ['b', 'a'] },
        { table: 'meta', key: 'note', value: { n: 1 } },
      ]);
      store.putRecords([{ table: 'provisioned', key: '/cfg', items: ['c', 'a'] }]);
      expect(store.tables.projects.get('/work/a')).toEqual(PROFILE);
      expect(store.provisionedItems('/cfg')).toEqual(['a', 'b', 'c']);
      expect(store.tables.meta.get('note')).toEqual({ n: 1 });
      expect(store.meta()).toMatchObject({ flushes: 0, lastFlushAt: '' });

      store.applyBatch([{ table: 'meta', key: 'note', value: { n: 2 } }], rules, '2026-11-26T01:00:00.000Z');
      store.applyBatch([], rules, '2026-11-26T02:00:00.000Z');
      expect(store.meta()).toMatchObject({ flushes: 2, lastFlushAt: '2026-11-26T02:00:00.000Z' });
      expect(store.tables.meta.get('note')).toEqual({ n: 2 });
    } finally {
      store.close();
    }
  });
});

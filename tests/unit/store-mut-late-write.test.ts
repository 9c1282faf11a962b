/**
 * The rules of a write whose caller waits a bounded time (late-write.ts), asked directly: from when
 * before its deadline a write marks its batch merged, which meta values are markers a late write
 * left (the only ones a later merge removes after a week), and the one line a refused write gives.
 * A temporary LMDB for the refusal.
 */
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { DEFAULT_RULES } from '../../src/core/rules.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { lateMarkerTime, lateMarkMarginMs, spillMarker } from '../../src/core/store/late-write.js';
import { Store, StoreNotWritableError } from '../../src/core/store/store.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('agent-tracker-mut-late-write-');

describe('the margin before a deadline from which a write marks its batch merged', () => {
  it('is a third of the wait: a 15 s flush marks from 10 s on', () => {
    const waitMs = 15_000;
    expect(waitMs - lateMarkMarginMs(waitMs)).toBe(10_000);
    expect(lateMarkMarginMs(4_500)).toBe(1_500);
  });

  it('is never less than a second: a 2 s exit flush marks from 1 s on, a shorter one from its start', () => {
    expect(lateMarkMarginMs(2_000)).toBe(1_000);
    expect(lateMarkMarginMs(3_000)).toBe(1_000);
    expect(lateMarkMarginMs(600)).toBe(1_000);
  });
});

describe('a marker a late write left', () => {
  it('holds the time of the write', () => {
    const at = '2026-03-01T12:00:00.000Z';
    expect(lateMarkerTime({ lateWriteAt: at })).toBe(new Date(at).getTime());
  });

  it("is told from a merge's marker (its time as text) and from any value that is no marker", () => {
    for (const value of ['2026-03-01T12:00:00.000Z', 1_700_000_000_000, null, undefined, {}, { lateWriteAt: 'never' }]) {
      expect([value, lateMarkerTime(value)]).toEqual([value, undefined]);
    }
  });

  it('is kept under the spill id it names', () => {
    expect(spillMarker('20260301T120000000Z-42-abcd')).toBe('spill:20260301T120000000Z-42-abcd');
  });
});

describe('a write whose caller stopped waiting', () => {
  it('is refused with one line saying nothing was written', () => {
    const store = Store.open({ path: path.join(tempDir(), 'db.lmdb'), maxDatabaseSize: 64 * 1024 * 1024, indexer: termIndexer });
    const guard = { spillId: 'late', abandoned: () => true, nearDeadline: () => false };
    const write = (): unknown => store.applyBatch([{ table: 'agents', key: 'build', ops: [{ kind: 'xp', amount: 1 }] }], DEFAULT_RULES, '2026-03-01T12:00:00.000Z', guard);
    expect(write).toThrow(StoreNotWritableError);
    expect(write).toThrow('a write got the database after its caller stopped waiting; nothing was written');
    expect(store.tables.agents.get('build')).toBeUndefined();
    store.close();
  });
});

/**
 * Usage records of a file upgraded in place (msgpack maps, from before schema version 5) are
 * rewritten in the stored form a step at a time by the store's deferred work, reading the same
 * before and after; a new file has nothing to rewrite.
 */
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { open } from 'lmdb';
import { termIndexer } from '../../src/core/search/indexer.js';
import { loadHistory } from '../../src/core/report/history.js';
import { buildReport } from '../../src/core/report/report.js';
import { compressionOf } from '../../src/core/store/compression.js';
import { Store } from '../../src/core/store/store.js';
import { USAGE_REWRITE_STEP } from '../../src/core/store/usage-rewrite.js';
import type { UsageRecord } from '../../src/core/types.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const SIZE = 64 * 1024 * 1024;
const tempDir = useTempDirs('agent-tracker-usage-rewrite-');

function usage(n: number): UsageRecord {
  return {
    toolCalls: n % 7, toolFailures: n % 2, commands: 0, commits: n % 3, pushes: 0, bugs: 0, gradedCommits: 1, gradeSum: 2, csDelta: 1,
    messages: 4, tokensInput: 1000 + n, tokensOutput: 200, tokensReasoning: 0, tokensCacheRead: 50, tokensCacheWrite: 5, cost: n / 100,
    sessionId: `ses_${String(n).padStart(5, '0')}`, agent: n % 2 === 0 ? 'build' : 'plan', model: 'anthropic/claude', project: '/work/shop',
    firstAt: new Date(Date.UTC(2026, 10, 1) + n * 60_000).toISOString(), lastAt: new Date(Date.UTC(2026, 10, 1) + n * 60_000 + 30_000).toISOString(),
    turns: 2, userGradedCommits: n % 2, userGradeSum: n % 2 === 0 ? 0 : 5,
  };
}

/** A file as a schema-4 tracker left it: `count` usage records stored as maps. */
function schema4File(count: number): string {
  const file = path.join(tempDir(), 'db.lmdb');
  const root = open({ path: file, maxDbs: 16, compression: true });
  root.transactionSync(() => {
    const sessions = root.openDB({ name: 'sessions', compression: compressionOf('sessions') });
    for (let n = 0; n < count; n += 1) {
      const record = usage(n);
      sessions.putSync([record.sessionId, record.agent, record.model], record);
    }
    root.openDB({ name: 'meta', compression: compressionOf('meta') }).putSync('schemaVersion', 4);
  });
  void root.close();
  return file;
}

/** How many usage records lmdb holds as maps (the old form) and as arrays (the stored form). */
function forms(file: string): { maps: number; arrays: number } {
  const root = open({ path: file, maxDbs: 16, compression: true, readOnly: true });
  try {
    let maps = 0;
    let arrays = 0;
    for (const { value } of root.openDB({ name: 'sessions', compression: compressionOf('sessions') }).getRange()) {
      if (Array.isArray(value)) arrays += 1;
      else maps += 1;
    }
    return { maps, arrays };
  } finally {
    void root.close();
  }
}

function withoutUndefined(value: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined));
}

describe('usage records of an upgraded file', () => {
  it(`are rewritten ${USAGE_REWRITE_STEP} a step, each step its own transaction, and read the same after`, () => {
    const count = 2 * USAGE_REWRITE_STEP;
    const file = schema4File(count);
    const store = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
    const reportBefore = JSON.stringify(buildReport(loadHistory(store)));
    const steps: boolean[] = [];
    for (let step = 0; step < 10 && (steps.length === 0 || steps.at(-1) === true); step += 1) steps.push(store.maintainIndexes());
    // Two full steps leave work as far as they can tell; the third finds the end.
    expect(steps).toEqual([true, true, false]);
    expect(JSON.stringify(buildReport(loadHistory(store)))).toBe(reportBefore);
    const read = [...store.tables.usage.getRange()].map(({ value }) => withoutUndefined(value));
    store.close();
    expect(read).toEqual(Array.from({ length: count }, (_, n) => usage(n)));
    expect(forms(file)).toEqual({ maps: 0, arrays: count });
  });

  it('stops half way where it was told, and the next open goes on from there', () => {
    const count = USAGE_REWRITE_STEP + 3;
    const file = schema4File(count);
    const first = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
    expect(first.maintainIndexes()).toBe(true);
    first.close();
    expect(forms(file)).toEqual({ maps: 3, arrays: USAGE_REWRITE_STEP });
    const second = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
    expect(second.maintainIndexes()).toBe(false);
    expect(second.maintainIndexes()).toBe(false);
    second.close();
    expect(forms(file)).toEqual({ maps: 0, arrays: count });
  });

  it('leaves a new file alone: its records are written in the stored form from the start', () => {
    const file = path.join(tempDir(), 'db.lmdb');
    const store = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
    // A map put around the store after creation stays a map: the new file is never swept.
    store.close();
    const root = open({ path: file, maxDbs: 16, compression: true });
    const record = usage(1);
    root.transactionSync(() => root.openDB({ name: 'sessions', compression: compressionOf('sessions') }).putSync([record.sessionId, record.agent, record.model], record));
    void root.close();
    const reopened = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
    expect(reopened.maintainIndexes()).toBe(false);
    reopened.close();
    expect(forms(file)).toEqual({ maps: 1, arrays: 0 });
  });
});

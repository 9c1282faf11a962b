import { describe, expect, it } from '@jest/globals';
import path from 'node:path';
import { open } from 'lmdb';
import fc from 'fast-check';
import { pack, unpack } from 'msgpackr';
import { termIndexer } from '../../src/core/search/indexer.js';
import { DEFAULT_RULES } from '../../src/core/rules.js';
import { loadHistory } from '../../src/core/report/history.js';
import { buildReport } from '../../src/core/report/report.js';
import { compressionOf } from '../../src/core/store/compression.js';
import { restoredValue, storedValue } from '../../src/core/store/stored-form.js';
import { Store } from '../../src/core/store/store.js';
import { exportRecords } from '../../src/core/store/transfer.js';
import type { UsageRecord } from '../../src/core/types.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const SIZE = 64 * 1024 * 1024;
const NOW = '2026-11-26T12:00:00.000Z';
const PROJECT = '/work/shop';
const KEY: [string, string, string] = ['ses_1', 'build', 'anthropic/claude'];

/** A usage record in the key order the tracker wrote them in before: counters, the session, outcomes as they came. */
const record: UsageRecord = {
  toolCalls: 12,
  toolFailures: 1,
  commands: 0,
  commits: 2,
  pushes: 1,
  bugs: 0,
  gradedCommits: 2,
  gradeSum: 7,
  csDelta: 3,
  messages: 9,
  tokensInput: 120000,
  tokensOutput: 5400,
  tokensReasoning: 0,
  tokensCacheRead: 88000,
  tokensCacheWrite: 1200,
  cost: 0.4125,
  sessionId: 'ses_1',
  agent: 'build',
  model: 'anthropic/claude',
  project: PROJECT,
  firstAt: '2026-11-26T09:00:00.000Z',
  lastAt: '2026-11-26T09:42:10.500Z',
  turns: 3,
  userGradedCommits: 1,
  userGradeSum: 5,
  turnsBugFix: 2,
  turnsFeature: 1,
};

const tempDir = useTempDirs('agent-tracker-stored-usage-');
function tempFile(): string {
  return path.join(tempDir(), 'db.lmdb');
}

/** Writes usage records with lmdb directly, as maps: how trackers before schema version 5 stored them. */
function writeMaps(file: string, entries: readonly { key: [string, string, string]; value: object }[]): void {
  const root = open({ path: file, maxDbs: 16, compression: true });
  root.transactionSync(() => {
    for (const { key, value } of entries) root.openDB({ name: 'sessions', compression: compressionOf('sessions') }).putSync(key, value);
    root.openDB({ name: 'meta', compression: compressionOf('meta') }).putSync('schemaVersion', 4);
  });
  void root.close();
}

function rawValue(file: string, key: [string, string, string], encoding?: 'binary'): unknown {
  const root = open({ path: file, maxDbs: 16, compression: true, readOnly: true });
  try {
    return root.openDB({ name: 'sessions', compression: compressionOf('sessions'), ...(encoding ? { encoding } : {}) }).get(key);
  } finally {
    void root.close();
  }
}

function withoutUndefined(value: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined));
}

function exportLines(store: Store): string[] {
  let text = '';
  exportRecords(store, (chunk) => (text += chunk), () => new Date(NOW));
  return text.trimEnd().split('\n').slice(1);
}

describe('how a usage record is stored', () => {
  it('without field names or the fields its key holds, its times as milliseconds, and read back whole', () => {
    const file = tempFile();
    const store = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
    store.write((tables) => tables.usage.putSync(KEY, record));
    try {
      expect(withoutUndefined(store.tables.usage.get(KEY) ?? {})).toEqual(record);
      expect([...store.tables.usage.getRange()].map(({ value }) => withoutUndefined(value))).toEqual([record]);
    } finally {
      store.close();
    }
    // The positions are the stored format: a field that moved would misread every stored record.
    const stored = rawValue(file, KEY) as unknown[];
    expect(stored.slice(0, 8)).toEqual([null, null, null, PROJECT, Date.parse(record.firstAt), Date.parse(record.lastAt), undefined, undefined]);
    expect(stored.slice(8, 24)).toEqual([12, 1, 0, 2, 1, 0, 2, 7, 3, 9, 120000, 5400, 0, 88000, 1200, 0.4125]);
    expect(stored.slice(24)).toEqual([1, 5, undefined, undefined, undefined, undefined, 3, undefined, undefined, undefined, undefined, undefined, undefined, undefined, 2, 1]);
  });

  it('takes under a third of the bytes of the msgpack map it stood for', () => {
    const file = tempFile();
    const store = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
    store.write((tables) => tables.usage.putSync(KEY, record));
    store.close();
    const stored = rawValue(file, KEY, 'binary') as Buffer;
    expect(stored.length).toBeLessThan(pack(record).length / 3);
  });

  it('reads a record of schema version 4 as written, and a report on it is the same as on the new layout', () => {
    const other: UsageRecord = { ...record, sessionId: 'ses_2', model: 'openai/gpt', firstAt: '2026-11-26T10:00:00.000Z', lastAt: '2026-11-26T10:30:00.000Z', cost: 1.5, turns: 1 };
    const otherKey: [string, string, string] = ['ses_2', 'build', 'openai/gpt'];
    const oldFile = tempFile();
    writeMaps(oldFile, [
      { key: KEY, value: record },
      { key: otherKey, value: other },
    ]);
    const old = Store.open({ path: oldFile, maxDatabaseSize: SIZE, indexer: termIndexer });
    const fresh = Store.open({ path: tempFile(), maxDatabaseSize: SIZE, indexer: termIndexer });
    fresh.write((tables) => {
      tables.usage.putSync(KEY, record);
      tables.usage.putSync(otherKey, other);
    });
    try {
      expect(withoutUndefined(old.tables.usage.get(KEY) ?? {})).toEqual(record);
      expect(JSON.stringify(buildReport(loadHistory(old)))).toBe(JSON.stringify(buildReport(loadHistory(fresh))));
      expect(exportLines(old)).toEqual(exportLines(fresh));
      const report = buildReport(loadHistory(old));
      expect(report.rows.map((row) => row.toolCalls)).toEqual([12, 12]);
    } finally {
      old.close();
      fresh.close();
    }
  });

  it('rewrites an old record in the new layout when the session goes on, adding to what it held', () => {
    const file = tempFile();
    writeMaps(file, [{ key: KEY, value: record }]);
    const store = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
    const init = { sessionId: KEY[0], agent: KEY[1], model: KEY[2], project: PROJECT, firstAt: record.firstAt };
    store.applyBatch([{ table: 'usage', key: KEY, init, counters: { toolCalls: 3, testRuns: 1 }, lastAt: '2026-11-26T11:00:00.000Z' }], DEFAULT_RULES, NOW);
    try {
      expect(withoutUndefined(store.tables.usage.get(KEY) ?? {})).toEqual({ ...record, toolCalls: 15, testRuns: 1, lastAt: '2026-11-26T11:00:00.000Z' });
    } finally {
      store.close();
    }
    expect(Array.isArray(rawValue(file, KEY))).toBe(true);
  });

  it('keeps a record with a field it does not know (a newer tracker\'s) in the map form, losing nothing', () => {
    const file = tempFile();
    const newer = { ...record, reviewMinutes: 14 };
    const store = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
    store.write((tables) => tables.usage.putSync(KEY, newer));
    try {
      expect(withoutUndefined(store.tables.usage.get(KEY) ?? {})).toEqual(newer);
    } finally {
      store.close();
    }
    expect(rawValue(file, KEY)).toEqual({ ...newer, sessionId: null, agent: null, model: null });
  });
});

describe('the usage stored form, for any record', () => {
  const count = fc.option(fc.nat({ max: 1_000_000 }), { nil: undefined });
  const time = fc.oneof(
    fc.date({ min: new Date(0), max: new Date(Date.UTC(9999, 0)), noInvalidDate: true }).map((date) => date.toISOString()),
    fc.string({ maxLength: 30 }),
  );
  const text = fc.string({ maxLength: 20 });

  it('reads back exactly the fields written, whatever their values and key parts', () => {
    const usage = fc.record(
      {
        sessionId: text, agent: text, model: text, project: text, firstAt: time, lastAt: time,
        source: fc.constantFrom('live', 'backfill'), parentSessionId: text, toolCalls: count, cost: fc.double({ min: 0, max: 1e6, noNaN: true }),
        tokensInput: count, turns: count, turnsOther: count, trackerFileEdits: count, userGradeSum: fc.integer({ min: -100, max: 500 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(usage, fc.tuple(text, text, text), fc.boolean(), (value, key, sameAsKey) => {
        const written: Record<string, unknown> = { ...value };
        if (sameAsKey) [written.sessionId, written.agent, written.model] = key;
        const read = restoredValue('sessions', key, unpack(pack(storedValue('sessions', key, written)))) as Record<string, unknown>;
        expect(withoutUndefined(read)).toStrictEqual(withoutUndefined(written));
      }),
      { numRuns: 400 },
    );
  });
});

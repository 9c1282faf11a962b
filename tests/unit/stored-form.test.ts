import { afterEach, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { open } from 'lmdb';
import fc from 'fast-check';
import { pack, unpack } from 'msgpackr';
import type { Key } from 'lmdb';
import { termIndexer } from '../../src/core/search/indexer.js';
import { DEFAULT_RULES } from '../../src/core/rules.js';
import { compressionOf } from '../../src/core/store/compression.js';
import type { Mutation } from '../../src/core/store/mutations.js';
import { restoredValue, storedValue } from '../../src/core/store/stored-form.js';
import { salvageFile } from '../../src/core/store/salvage.js';
import { SCHEMA_VERSION, Store } from '../../src/core/store/store.js';
import { exportRecords } from '../../src/core/store/transfer.js';
import type { ActivityEntry, CommitRecord, RetrospectiveEntry } from '../../src/core/types.js';

const SIZE = 64 * 1024 * 1024;
const NOW = '2026-11-25T12:00:00.000Z';
const PROJECT = '/work/shop';
const HASH = '9f2c4e1a7b3d5f6089a1b2c3d4e5f60718293a4b';

const commit: CommitRecord = {
  hash: HASH,
  project: PROJECT,
  agent: 'build',
  model: 'anthropic/claude',
  sessionId: 'ses_1',
  message: 'Cache thumbnails in the worker',
  files: ['src/worker.ts'],
  insertions: 12,
  deletions: 3,
  timestamp: '2026-11-25T10:00:00.000Z',
};
const retrospective: RetrospectiveEntry = {
  commit: HASH,
  timestamp: '2026-11-25T10:05:00.000Z',
  task: 'Cache thumbnails',
  agent_grade: 2,
  score_before: 100,
  score_after: 102,
  agent_note: 'tests pass',
  user_note: '',
  agent: 'build',
  model: 'anthropic/claude',
  project: PROJECT,
  sessionId: 'ses_1',
  provenance: 'self',
};
const activity: ActivityEntry = {
  timestamp: '2026-11-25T10:10:00.000Z',
  task: 'Cache thumbnails',
  actions: 'edited the worker',
  outcome: 'faster gallery',
  decisions: 'kept the old cache as a fallback',
  agent: 'build',
  model: 'anthropic/claude',
  project: PROJECT,
  sessionId: 'ses_1',
  automatic: false,
};
const records: { table: 'commits' | 'retrospectives' | 'activities'; key: string[]; value: object }[] = [
  { table: 'commits', key: [PROJECT, HASH], value: commit },
  { table: 'retrospectives', key: ['build', HASH], value: retrospective },
  { table: 'activities', key: ['build', activity.timestamp, 'a1'], value: activity },
];

const dirs: string[] = [];
function tempFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-stored-form-'));
  dirs.push(dir);
  return path.join(dir, 'db.lmdb');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** The fields each entry's key repeats, as schema version 3 stored them (null). */
const KEY_NULLS: Record<(typeof records)[number]['table'], object> = {
  commits: { project: null, hash: null },
  retrospectives: { agent: null, commit: null },
  activities: { agent: null, timestamp: null },
};

/**
 * A file as older trackers wrote it, lmdb directly: maps with every field (schema version 2) or
 * with the fields the key repeats as null (3).
 */
function writeOldLayout(file: string, version: 2 | 3 = 2): void {
  const root = open({ path: file, maxDbs: 16, compression: true });
  root.transactionSync(() => {
    for (const { table, key, value } of records) {
      root.openDB({ name: table, compression: compressionOf(table) }).putSync(key, version === 2 ? value : { ...value, ...KEY_NULLS[table] });
    }
    root.openDB({ name: 'meta', compression: compressionOf('meta') }).putSync('schemaVersion', version);
  });
  void root.close();
}

/** What lmdb itself holds, without the store's reading. */
function rawValues(file: string): Record<string, unknown> {
  const root = open({ path: file, maxDbs: 16, compression: true, readOnly: true });
  try {
    return Object.fromEntries(records.map(({ table, key }) => [table, root.openDB({ name: table, compression: compressionOf(table) }).get(key) as unknown]));
  } finally {
    void root.close();
  }
}

/** Every record as the store reads it, serialized (field order included), by get and by range. */
function readBack(store: Store): string[] {
  return records.flatMap(({ table, key }) => {
    const t = store.tables[table] as unknown as { get(key: Key): unknown; getRange(): Iterable<{ value: unknown }> };
    return [JSON.stringify(t.get(key)), ...[...t.getRange()].map((entry) => JSON.stringify(entry.value))];
  });
}

function exportLines(store: Store): string[] {
  let text = '';
  exportRecords(store, (chunk) => (text += chunk));
  return text.trimEnd().split('\n').slice(1);
}

function writeNewLayout(file: string, overrides: Partial<CommitRecord> = {}): Store {
  const store = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
  const mutations: Mutation[] = [
    { table: 'commits', key: [PROJECT, HASH], value: { ...commit, ...overrides } },
    { table: 'activities', key: ['build', activity.timestamp, 'a1'], value: activity },
  ];
  store.applyBatch(mutations, DEFAULT_RULES, NOW);
  store.write((tables) => tables.retrospectives.putSync(['build', HASH], retrospective));
  return store;
}

const expected = records.flatMap(({ value }) => [JSON.stringify(value), JSON.stringify(value)]);

describe('how an entry is stored', () => {
  it('without field names or the fields its key holds, and every reader of the store gets the whole record back in its field order', () => {
    const file = tempFile();
    const store = writeNewLayout(file);
    expect(readBack(store)).toEqual(expected);
    store.close();

    // The positions are the stored format: a field that moved would misread every stored entry.
    expect(rawValues(file)).toEqual({
      commits: [null, null, 'build', 'anthropic/claude', 'ses_1', 'Cache thumbnails in the worker', ['src/worker.ts'], 12, 3, Date.parse(commit.timestamp)],
      retrospectives: [null, Date.parse(retrospective.timestamp), 'Cache thumbnails', 2, undefined, 100, 102, 'tests pass', '', null, 'anthropic/claude', PROJECT, 'ses_1', 'self'],
      activities: [null, 'Cache thumbnails', 'edited the worker', 'faster gallery', 'kept the old cache as a fallback', null, 'anthropic/claude', PROJECT, 'ses_1', undefined, false],
    });
  });

  it('takes at most three quarters of the msgpack map it stood for', () => {
    const file = tempFile();
    writeNewLayout(file).close();
    const root = open({ path: file, maxDbs: 16, readOnly: true });
    try {
      for (const { table, key, value } of records) {
        const stored = root.openDB({ name: table, compression: false, encoding: 'binary' }).get(key) as Buffer;
        expect(stored.length).toBeLessThanOrEqual(0.75 * pack(value).length);
      }
    } finally {
      void root.close();
    }
  });

  it('reads back absent fields as absent, and a field it does not know in the map form, losing nothing', () => {
    const file = tempFile();
    const store = writeNewLayout(file);
    const withExtra = { ...commit, hash: 'b'.repeat(40), reviewer: 'ana' } as CommitRecord;
    store.write((tables) => tables.commits.putSync([PROJECT, withExtra.hash], withExtra));
    const bare: ActivityEntry = { ...activity, timestamp: '2026-11-25T11:00:00.000Z', sessionId: undefined };
    delete bare.sessionId;
    store.write((tables) => tables.activities.putSync(['build', bare.timestamp, 'a2'], bare));
    try {
      expect(JSON.stringify(store.tables.commits.get([PROJECT, withExtra.hash]))).toBe(JSON.stringify(withExtra));
      const read = store.tables.activities.get(['build', bare.timestamp, 'a2']);
      expect(read).toEqual(bare);
      expect(Object.keys(read ?? {})).toEqual(Object.keys(bare));
    } finally {
      store.close();
    }
    const root = open({ path: file, maxDbs: 16, compression: true, readOnly: true });
    try {
      expect(root.openDB({ name: 'commits', compression: compressionOf('commits') }).get([PROJECT, withExtra.hash])).toEqual({ ...withExtra, project: null, hash: null });
    } finally {
      void root.close();
    }
  });

  it.each([2, 3] as const)('reads a file of schema version %i exactly as written, and exports it the same as the new layout', (version) => {
    const oldFile = tempFile();
    writeOldLayout(oldFile, version);
    const old = Store.open({ path: oldFile, maxDatabaseSize: SIZE, indexer: termIndexer });
    const fresh = writeNewLayout(tempFile());
    try {
      expect(readBack(old)).toEqual(expected);
      expect(exportLines(old)).toEqual(exportLines(fresh));
      expect(exportLines(fresh).filter((line) => line.includes(HASH)).every((line) => !line.includes('null'))).toBe(true);
    } finally {
      old.close();
      fresh.close();
    }
  });

  it('keeps a field in the value when it differs from the key', () => {
    const file = tempFile();
    const store = writeNewLayout(file, { hash: 'abc1234' });
    expect(store.tables.commits.get([PROJECT, HASH])).toMatchObject({ hash: 'abc1234', project: PROJECT });
    store.close();
    expect((rawValues(file).commits as unknown[]).slice(0, 2)).toEqual(['abc1234', null]);
  });

  it('salvages whole records from a file of this layout', () => {
    const file = tempFile();
    writeNewLayout(file).close();
    const salvaged = salvageFile(file);
    expect([...salvaged.commits.records.values()].map((record) => record.value)).toEqual([commit]);
    expect([...salvaged.retrospectives.records.values()].map((record) => record.value)).toEqual([retrospective]);
    expect([...salvaged.activities.records.values()].map((record) => record.value)).toEqual([activity]);
  });

  it('stamps the file with a schema version older trackers open read-only (they would misread the records)', () => {
    const oldFile = tempFile();
    writeOldLayout(oldFile);
    const store = Store.open({ path: oldFile, maxDatabaseSize: SIZE, indexer: termIndexer });
    expect(store.meta().schemaVersion).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBeGreaterThan(3);
    store.close();

    const newer = tempFile();
    writeNewLayout(newer).close();
    const root = open({ path: newer, maxDbs: 16, compression: true });
    root.transactionSync(() => root.openDB({ name: 'meta', compression: compressionOf('meta') }).putSync('schemaVersion', SCHEMA_VERSION + 1));
    void root.close();
    const later = Store.open({ path: newer, maxDatabaseSize: SIZE, indexer: termIndexer });
    try {
      expect(later.refusal).toMatch(/newer|update/i);
      expect(later.tables.commits.get([PROJECT, HASH])).toEqual(commit);
    } finally {
      later.close();
    }
  });
});

describe('storedValue and restoredValue', () => {
  const commitKey = [PROJECT, HASH];

  it('pass through what has no stored form: other tables, keys that are not arrays, values that are not records', () => {
    const agent = { id: 'build', sp: 2 };
    expect(storedValue('agents', 'build', agent)).toBe(agent);
    expect(restoredValue('agents', 'build', agent)).toBe(agent);
    expect(storedValue('commits', HASH, commit)).toBe(commit);
    expect(restoredValue('commits', HASH, [null])).toEqual([null]);
    for (const odd of [null, 'text', 7, ['already', 'an', 'array']]) expect(storedValue('commits', commitKey, odd)).toBe(odd);
    for (const odd of [null, 'text', 7]) expect(restoredValue('commits', commitKey, odd)).toBe(odd);
  });

  it('leaves an absent field absent, even where the key has no part for it', () => {
    const stored = storedValue('commits', [PROJECT], { project: PROJECT, message: 'm' }) as unknown[];
    expect(stored[0]).toBeUndefined();
    expect(stored[1]).toBeNull();
    expect(stored[5]).toBe('m');
    expect(restoredValue('commits', [PROJECT], stored)).toEqual({ project: PROJECT, message: 'm' });
  });

  it('stores every field the types declare by position, none in the map form', () => {
    const full: { table: string; key: string[]; value: object }[] = [
      { table: 'commits', key: [PROJECT, HASH], value: commit },
      { table: 'retrospectives', key: ['build', HASH], value: { ...retrospective, user_grade: 5, outcomeCounted: true } },
      { table: 'activities', key: ['build', activity.timestamp, 'a1'], value: { ...activity, files: ['a.ts'], userAction: { action: 'grade', via: 'terminal-tty', suspect: false } } },
    ];
    for (const { table, key, value } of full) {
      const stored = storedValue(table, key, value);
      expect(Array.isArray(stored)).toBe(true);
      expect((stored as unknown[]).filter((slot) => slot !== undefined)).toHaveLength(Object.keys(value).length);
      expect(restoredValue(table, key, stored)).toEqual(value);
    }
  });

  it('reads a null field the key has no part for as null', () => {
    expect(restoredValue('commits', [PROJECT], [null, null])).toEqual({ hash: null, project: PROJECT });
  });

  it('stores a time as milliseconds only when they give the same text back, and reads every time back as written', () => {
    const key = ['build', HASH];
    for (const timestamp of ['2026-11-25T10:05:00Z', '2026-11-25 10:05', 'yesterday', '']) {
      const value = { ...retrospective, timestamp };
      const stored = storedValue('retrospectives', key, value) as unknown[];
      expect(stored[1]).toBe(timestamp);
      expect(restoredValue('retrospectives', key, stored)).toEqual(value);
    }
    const stored = storedValue('retrospectives', key, retrospective) as unknown[];
    expect(stored[1]).toBe(Date.parse(retrospective.timestamp));
    expect(restoredValue('retrospectives', key, stored)).toEqual(retrospective);
    // An activity's time that differs from its key is stored (as milliseconds) and read back.
    const moved = { ...activity, timestamp: '2026-11-25T11:00:00.000Z' };
    const storedActivity = storedValue('activities', ['build', activity.timestamp, 'a1'], moved) as unknown[];
    expect(storedActivity[0]).toBe(Date.parse(moved.timestamp));
    expect(restoredValue('activities', ['build', activity.timestamp, 'a1'], storedActivity)).toEqual(moved);
  });

  it('keeps a time that is not text (bad data) in the map form, as it was', () => {
    const value = { ...commit, timestamp: 1795600800000 } as unknown as CommitRecord;
    const stored = storedValue('commits', [PROJECT, HASH], value);
    expect(Array.isArray(stored)).toBe(false);
    expect(restoredValue('commits', [PROJECT, HASH], stored)).toEqual(value);
  });

  it('stores no slot for a field set to undefined, at the end or in the middle', () => {
    const stored = storedValue('activities', ['build', activity.timestamp, 'a1'], { ...activity, sessionId: undefined, userAction: undefined }) as unknown[];
    expect(stored).toHaveLength(11);
    expect(8 in stored).toBe(false);
  });

  it('keeps the map form for a value with a field it does not know, the key fields still left to the key', () => {
    const value = { ...commit, hash: 'abc1234', reviewer: 'ana' };
    expect(storedValue('commits', commitKey, value)).toEqual({ ...value, project: null });
  });

  it('keeps a field named __proto__ (from parsed JSON) as a field of the map form', () => {
    const value = JSON.parse(`{"hash":"${HASH}","project":"${PROJECT}","__proto__":{"polluted":true}}`) as Record<string, unknown>;
    const stored = storedValue('commits', commitKey, value) as Record<string, unknown>;
    expect(Object.getPrototypeOf(stored)).toBe(Object.prototype);
    expect(Object.keys(stored)).toEqual(['hash', 'project', '__proto__']);
  });

  it('reads an array longer than the fields it knows (a newer tracker\'s) without the extra positions', () => {
    // Every field this version knows is set (the last one included), so the extra position is a newer one.
    const full = { ...commit, noCredit: 'same-change' as const };
    const stored = [...(storedValue('commits', commitKey, full) as unknown[]), 'a later field'];
    const read = restoredValue('commits', commitKey, stored) as Record<string, unknown>;
    expect(Object.keys(read)).toEqual(Object.keys(full));
    expect(read).toEqual(full);
  });
});

describe('the stored form, for any record', () => {
  /** A time as the tracker writes it, or any other text. */
  const time = fc.oneof(
    fc.date({ min: new Date(0), max: new Date(Date.UTC(9999, 0)), noInvalidDate: true }).map((date) => date.toISOString()),
    fc.string({ maxLength: 30 }),
  );
  const text = fc.string({ maxLength: 40 });
  /** A value as msgpack stores it: absent, undefined or null where the types allow it or not. */
  const maybe = <T,>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined });
  const extra = fc.option(fc.dictionary(fc.constantFrom('reviewer', 'note', '__proto__x'), text, { maxKeys: 2 }), { nil: undefined });

  function withoutUndefined(value: Record<string, unknown>): Record<string, unknown> {
    return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined));
  }

  /** What a reader gets back after lmdb's msgpack round trip. */
  function roundTrip(table: string, key: string[], value: Record<string, unknown>): unknown {
    return restoredValue(table, key, unpack(pack(storedValue(table, key, value))));
  }

  it('reads back exactly the fields written, whatever their values, key parts and extra fields', () => {
    const record = fc.record({
      table: fc.constantFrom('commits', 'retrospectives', 'activities'),
      head: text,
      second: fc.oneof(time, fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 40, maxLength: 40 })),
      fields: fc.record(
        {
          hash: text, project: text, commit: text, agent: text, model: text, sessionId: maybe(text), message: text,
          timestamp: time, task: text, agent_grade: fc.constantFrom(-1, 1, 2, 5), user_grade: maybe(fc.constantFrom(-1, 1, 2, 5)),
          score_before: fc.integer(), score_after: fc.double({ noNaN: true }).map((score) => (Object.is(score, -0) ? 0 : score)), // msgpack keeps no -0 files: maybe(fc.array(text, { maxLength: 3 })),
          automatic: fc.boolean(), provenance: maybe(fc.constant('self')), outcomeCounted: maybe(fc.boolean()), nothing: fc.constant(null),
        },
        { requiredKeys: [] },
      ),
      sameAsKey: fc.boolean(),
      extra,
    });
    fc.assert(
      fc.property(record, ({ table, head, second, fields, sameAsKey, extra: more }) => {
        const known: Record<string, readonly string[]> = {
          commits: ['hash', 'project', 'agent', 'model', 'sessionId', 'message', 'files', 'timestamp'],
          retrospectives: ['commit', 'timestamp', 'task', 'agent_grade', 'user_grade', 'score_before', 'score_after', 'agent', 'model', 'project', 'sessionId', 'provenance', 'outcomeCounted'],
          activities: ['timestamp', 'task', 'agent', 'model', 'project', 'sessionId', 'files', 'automatic'],
        };
        const value: Record<string, unknown> = {};
        for (const field of known[table] ?? []) if (field in fields) value[field] = fields[field as keyof typeof fields];
        const key = table === 'activities' ? [head, second, 'id'] : [head, second];
        if (sameAsKey) {
          // The fields the key repeats, equal to it: stored as null, read from the key.
          const keyed: Record<string, [string, string]> = { commits: ['project', 'hash'], retrospectives: ['agent', 'commit'], activities: ['agent', 'timestamp'] };
          const [first, other] = keyed[table] ?? ['', ''];
          value[first] = head;
          value[other] = second;
        }
        Object.assign(value, more);
        const read = roundTrip(table, key, value) as Record<string, unknown>;
        expect(read).toStrictEqual(withoutUndefined(value));
      }),
      { numRuns: 400 },
    );
  });
});

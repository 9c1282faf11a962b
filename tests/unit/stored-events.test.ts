/**
 * How a host event's totals are stored (the `events` table, schema version 6): a bit mask of the
 * counters there and their values, not a msgpack map that names them in every entry. The positions
 * below are the stored format, written out here and not taken from the code: a counter that moved
 * would misread every stored event, and a replay would count it again.
 */
import { describe, expect, it } from '@jest/globals';
import path from 'node:path';
import fc from 'fast-check';
import { open } from 'lmdb';
import { compressionOf } from '../../src/core/store/compression.js';
import { SCHEMA_VERSION, Store } from '../../src/core/store/store.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { tempTracker } from '../helpers/temp-store.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const SIZE = 64 * 1024 * 1024;
const AT = '2026-11-27T10:00:00.000Z';
const SETUP = { agent: 'build', model: 'fake/a' };
const USAGE_KEY = ['ses_1', 'build', 'fake/a'];

/** Every counter, at its position in the stored format. */
const POSITIONS = [
  'toolCalls', 'toolFailures', 'commands', 'commits', 'pushes', 'bugs', 'gradedCommits', 'gradeSum', 'csDelta', 'messages',
  'tokensInput', 'tokensOutput', 'tokensReasoning', 'tokensCacheRead', 'tokensCacheWrite', 'cost', 'userGradedCommits',
  'userGradeSum', 'selfGradedCommits', 'selfGradeSum', 'reportedGradedCommits', 'reportedGradeSum', 'turns', 'undoneTurns',
  'testRuns', 'testPasses', 'testRecoveries', 'revertedCommits', 'followUpFixCommits', 'trackerFileEdits', 'turnsBugFix',
  'turnsFeature', 'turnsRefactor', 'turnsTests', 'turnsDocs', 'turnsConfig', 'turnsOther', 'pairedGradedCommits',
  'pairedGradeGapSum', 'pairedGradeGapSquares',
] as const;

const tempDir = useTempDirs('agent-tracker-stored-events-');

function rawEvents(file: string, encoding?: 'binary'): Map<string, unknown> {
  const root = open({ path: file, maxDbs: 16, compression: true, readOnly: true });
  try {
    const db = root.openDB({ name: 'events', compression: compressionOf('events'), ...(encoding ? { encoding } : {}) });
    return new Map([...db.getRange({})].map(({ key, value }) => [(key as string[]).join(' '), value]));
  } finally {
    void root.close();
  }
}

/** Rewrites every event as the map a tracker before schema version 6 wrote (lmdb's msgpack, record definitions and all). */
function rewriteAsVersion5(file: string): void {
  const store = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
  const events = [...store.tables.events.getRange()].map(({ key, value }) => ({ key, value: { ...value } }));
  store.close();
  const root = open({ path: file, maxDbs: 16, compression: true });
  root.transactionSync(() => {
    const db = root.openDB({ name: 'events', compression: compressionOf('events') });
    for (const { key, value } of events) db.putSync(key, value);
    root.openDB({ name: 'meta', compression: compressionOf('meta') }).putSync('schemaVersion', 5);
  });
  void root.close();
}

describe("how a host event's totals are stored", () => {
  it("a message's seven counters: the mask of their positions, then their values in that order", () => {
    const t = tempTracker();
    t.service.noteModelRequest('ses_1', 'build', 'fake/a');
    t.service.recordAssistantMessage('ses_1', 'msg_1', SETUP, { input: 1200, output: 340, reasoning: 0, cacheRead: 9000, cacheWrite: 55 }, 0.0125, { at: AT });
    t.service.recordToolCall('ses_1', 'call_1', 'bash', false, { at: AT });
    t.service.flush('test');
    t.store.close();
    const raw = [...rawEvents(t.config.databasePath).values()];
    // messages 9, tokensInput 10, tokensOutput 11, tokensReasoning 12, tokensCacheRead 13, tokensCacheWrite 14, cost 15
    const messageMask = 2 ** 9 + 2 ** 10 + 2 ** 11 + 2 ** 12 + 2 ** 13 + 2 ** 14 + 2 ** 15;
    expect(raw).toContainEqual([messageMask, 1, 1200, 340, 0, 9000, 55, 0.0125]);
    // A failed call: toolCalls (bit 0) and toolFailures (bit 1), one each.
    expect(raw).toContainEqual([2 ** 0 + 2 ** 1, 1, 1]);
    expect(raw).toHaveLength(2);
    t.dispose();
  });

  it('any set of counters reads back as it was put, stored as the mask of their positions and their values in position order', () => {
    const dir = tempDir();
    const file = path.join(dir, 'db.lmdb');
    const store = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
    const totals = fc.dictionary(fc.constantFrom(...POSITIONS), fc.oneof(fc.nat(), fc.double({ min: 0, max: 1e6, noNaN: true })), { maxKeys: POSITIONS.length });
    const expected = new Map<string, unknown[]>();
    try {
      fc.assert(
        fc.property(totals, (value) => {
          const key: [string, string] = ['ses_p', `event_${expected.size}`];
          store.write((tables) => tables.events.putSync(key, value));
          expect(store.tables.events.get(key)).toEqual(value);
          const present = POSITIONS.filter((name) => name in value);
          expected.set(key.join(' '), [present.reduce((mask, name) => mask + 2 ** POSITIONS.indexOf(name), 0), ...present.map((name) => value[name])]);
        }),
        { numRuns: 150 },
      );
    } finally {
      store.close();
    }
    expect(rawEvents(file)).toEqual(expected);
  });

  it('keeps the map form for a name that is no counter (a newer tracker may add one) or a counter without a number, and reads them whole', () => {
    const dir = tempDir();
    const file = path.join(dir, 'db.lmdb');
    const store = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
    const values: Record<string, unknown> = {
      later: { toolCalls: 1, laterCounter: 4 },
      unset: { toolCalls: undefined, commits: 2 },
      text: { toolCalls: 1, commits: '2' },
    };
    store.write((tables) => {
      for (const [id, value] of Object.entries(values)) tables.events.putSync(['ses_1', id], value as never);
    });
    for (const [id, value] of Object.entries(values)) expect(store.tables.events.get(['ses_1', id])).toStrictEqual(value);
    store.close();
    const raw = rawEvents(file);
    for (const [id, value] of Object.entries(values)) expect(raw.get(`ses_1 ${id}`)).toStrictEqual(value);
  });

  it("reads the counters it knows of an array a newer tracker wrote with a counter past them", () => {
    const dir = tempDir();
    const file = path.join(dir, 'db.lmdb');
    Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer }).close();
    const root = open({ path: file, maxDbs: 16, compression: true });
    root.transactionSync(() => root.openDB({ name: 'events', compression: compressionOf('events') }).putSync(['ses_1', 'call_1'], [2 ** 0 + 2 ** POSITIONS.length, 1, 7]));
    void root.close();
    const store = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer, readOnly: true });
    expect(store.tables.events.get(['ses_1', 'call_1'])).toEqual({ toolCalls: 1 });
    store.close();
  });

  it('takes under a quarter of the bytes an older tracker wrote for the same message', () => {
    const t = tempTracker();
    t.service.noteModelRequest('ses_1', 'build', 'fake/a');
    t.service.recordAssistantMessage('ses_1', 'msg_1', SETUP, { input: 1200, output: 340, reasoning: 0, cacheRead: 9000, cacheWrite: 55 }, 0.0125, { at: AT });
    t.service.flush('test');
    t.store.close();
    const [now] = [...rawEvents(t.config.databasePath, 'binary').values()] as Buffer[];
    rewriteAsVersion5(t.config.databasePath);
    const [before] = [...rawEvents(t.config.databasePath, 'binary').values()] as Buffer[];
    expect(now!.length * 4).toBeLessThan(before!.length);
    t.dispose();
  });
});

describe('a file whose events an older tracker wrote (schema version 5)', () => {
  it('counts nothing twice when the same events are replayed, and only the growth of one that grew', () => {
    const first = tempTracker();
    const file = first.config.databasePath;
    first.service.noteModelRequest('ses_1', 'build', 'fake/a');
    first.service.recordAssistantMessage('ses_1', 'msg_1', SETUP, { input: 100, output: 10, reasoning: 0, cacheRead: 0, cacheWrite: 0 }, 0.5, { at: AT });
    first.service.recordToolCall('ses_1', 'call_1', 'bash', true, { at: AT });
    first.service.flush('test');
    first.store.close();
    rewriteAsVersion5(file);
    expect([...rawEvents(file).values()].every((value) => !Array.isArray(value))).toBe(true);

    const later = tempTracker({ databasePath: file });
    expect(later.store.meta().schemaVersion).toBe(SCHEMA_VERSION);
    // A backfill reports both events again; the message has grown by 40 input tokens since.
    later.service.noteModelRequest('ses_1', 'build', 'fake/a');
    later.service.recordToolCall('ses_1', 'call_1', 'bash', true, { at: AT });
    later.service.recordAssistantMessage('ses_1', 'msg_1', SETUP, { input: 140, output: 10, reasoning: 0, cacheRead: 0, cacheWrite: 0 }, 0.5, { at: AT });
    later.service.flush('test');
    expect(later.store.tables.usage.get(USAGE_KEY as [string, string, string])).toMatchObject({ messages: 1, toolCalls: 1, tokensInput: 140, tokensOutput: 10, cost: 0.5 });
    later.store.close();
    // The message's totals were written again, in the new form; the call's stay as the older tracker wrote them.
    const raw = [...rawEvents(file).values()];
    expect(raw.filter(Array.isArray)).toHaveLength(1);
    expect(raw).toContainEqual({ toolCalls: 1 });
    later.dispose();
    first.dispose();
  });
});

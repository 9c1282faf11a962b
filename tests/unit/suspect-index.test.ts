/**
 * `report` (and status, doctor, review) list the suspect user-only records: the same answer as a
 * read of the whole journal and the whole record chain, but read through an index of the suspect
 * ones. A database from before the index answers the same (scanned whole) until its next write
 * builds the index. Temporary LMDB; the journal holds many ordinary entries beside the suspect ones.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { open } from 'lmdb';
import type { Key } from 'lmdb';
import { openChainEntry } from '../../src/core/integrity/record-chain.js';
import { suspectUserActions } from '../../src/core/integrity/suspect-actions.js';
import { reportAnswer } from '../../src/core/answers/report.js';
import { Store } from '../../src/core/store/store.js';
import { compressionOf } from '../../src/core/store/compression.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { silentLogger } from '../../src/core/logger.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const PROJECT = '/work/project';
/** Ordinary journal entries beside the suspect ones: what a real journal is mostly made of. */
const ORDINARY_ENTRIES = 300;
const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);

let t: TempTracker | undefined;
afterEach(() => {
  jest.restoreAllMocks();
  t?.dispose();
  t = undefined;
});

/** A suspect record's id as `review` shows it: the first 8 hex digits of sha256 of [table, key] as JSON. */
function idOf(table: string, key: unknown): string {
  return createHash('sha256').update(JSON.stringify([table, key])).digest('hex').slice(0, 8);
}

interface Expected {
  id: string;
  action: string;
  at: string;
  agent?: string;
}

/** A tracker whose clock moves one second per reading, so every record has its own time. */
function service(tracker: TempTracker, store = tracker.store): TrackingService {
  let tick = 0;
  return new TrackingService({ store, config: tracker.config, logger: silentLogger, project: PROJECT, now: () => new Date(T0 + 1000 * tick++) });
}

/**
 * Writes ordinary entries, three suspect user actions and one suspect direct write through the
 * tracker's modules (a process inside an agent session), and returns what `review` must list.
 */
function fill(tracker: TempTracker): Expected[] {
  const s = service(tracker);
  const expected: Expected[] = [];
  s.noteModelRequest('s1', 'build', 'fake/model');
  for (let i = 0; i < ORDINARY_ENTRIES; i += 1) {
    if (i % 100 === 50) {
      const agent = i < 100 ? 'build' : 'plan';
      const key = s.recordUserAction({ agent, project: PROJECT, summary: `User revived ${agent}`, provenance: { action: 'revive', via: 'terminal-no-tty', suspect: true } });
      expected.push({ id: idOf('activities', key), action: 'revive', at: key[1], agent });
    }
    if (i % 100 === 10) s.recordUserAction({ agent: 'build', project: PROJECT, summary: 'User graded', provenance: { action: 'grade', via: 'terminal-tty', suspect: false } });
    s.logActivity({ sessionId: 's1', agent: 'build', project: PROJECT, task: `ordinary turn ${i}`, outcome: 'done' });
    if (i % 50 === 0) expect(s.flush('test').ok).toBe(true);
  }
  const key = s.recordUserAction({ agent: 'build', project: PROJECT, summary: 'User imported', provenance: { action: 'import', via: 'terminal-no-tty', suspect: true } });
  expected.push({ id: idOf('activities', key), action: 'import', at: key[1], agent: 'build' });
  expect(s.flush('test').ok).toBe(true);
  // A write through the tracker's own modules by a process an agent session started.
  const at = new Date(T0 + 10_000_000).toISOString();
  tracker.store.write((tables) => {
    const chain = openChainEntry(tables, [{ table: 'agents', key: 'build' }]);
    const agent = tables.agents.get('build');
    if (agent) tables.agents.putSync('build', { ...agent, xp: agent.xp + 1 });
    chain.close(at, { pid: 424242, suspect: true, signs: ['OPENCODE_PID=1'] });
  });
  const head = tracker.store.tables.meta.get('chain:head') as { seq: number };
  expected.push({ id: idOf('chain', head.seq), action: 'direct write', at, agent: 'build' });
  expect(s.flush('test').ok).toBe(true);
  return expected.sort((a, b) => a.at.localeCompare(b.at));
}

/** What the listing says of each record, in its order. */
function listed(store: Store): Expected[] {
  return suspectUserActions(store).map(({ id, action, at, agent }) => ({ id, action, at, ...(agent !== undefined ? { agent } : {}) }));
}

/** Counts the reads of the whole journal and of the whole record chain while `read` runs. */
function wholeReads(store: Store, read: () => void): { journal: number; chain: number } {
  const journal = jest.spyOn(store.tables.activities, 'getRange');
  const meta = jest.spyOn(store.tables.meta, 'getRange');
  read();
  const chain = meta.mock.calls.filter(([options]) => String(options?.start ?? '').startsWith('chain:entry:')).length;
  const counts = { journal: journal.mock.calls.length, chain };
  journal.mockRestore();
  meta.mockRestore();
  return counts;
}

describe('the suspect records a report lists', () => {
  it('are the ones written, in time order, read without the whole journal or chain', async () => {
    t = tempTracker({}, PROJECT);
    const expected = fill(t);
    expect(expected).toHaveLength(5);
    let answer: Expected[] = [];
    expect(wholeReads(t.store, () => (answer = listed(t!.store)))).toEqual({ journal: 0, chain: 0 });
    expect(answer).toEqual(expected);
    expect((await reportAnswer(t.store, { by: 'agent' })).suspectUserActions.map((action) => action.id)).toEqual(expected.map((action) => action.id));
  });

  it('leave a reviewed record out, and list it again with includeReviewed', () => {
    t = tempTracker({}, PROJECT);
    const expected = fill(t);
    const first = expected[0] as Expected;
    t.store.putRecords([{ table: 'meta', key: `review:${first.id}`, value: { decision: 'confirmed', at: new Date(T0).toISOString(), via: 'terminal-tty' } }]);
    expect(listed(t.store).map((action) => action.id)).toEqual(expected.slice(1).map((action) => action.id));
    expect(suspectUserActions(t.store, { includeReviewed: true }).map((action) => action.id)).toEqual(expected.map((action) => action.id));
  });

  it('are the same from a database written before the index, which its next write indexes', async () => {
    t = tempTracker({}, PROJECT);
    const expected = fill(t);
    t.store.close();
    // What an older tracker left: the same records, no index (removed around the tracker).
    const root = open({ path: t.config.databasePath, maxDbs: 16, compression: true });
    const meta = root.openDB<unknown, Key>({ name: 'meta', compression: compressionOf('meta') });
    let removed = 0;
    root.transactionSync(() => {
      for (const key of [...meta.getKeys({ start: 'suspect-index', end: 'suspect-index;' })]) removed += meta.removeSync(key) ? 1 : 0;
    });
    await root.close();
    // The mark and one key per suspect record.
    expect(removed).toBe(1 + expected.length);

    const store = Store.open({ path: t.config.databasePath, maxDatabaseSize: t.config.maxDatabaseSize, indexer: termIndexer });
    try {
      expect(store.tables.meta.get('suspect-index')).toBeUndefined();
      let answer: Expected[] = [];
      const scanned = wholeReads(store, () => (answer = listed(store)));
      expect(answer).toEqual(expected);
      expect(scanned.journal).toBeGreaterThan(0);

      // The next flush that touches an agent builds the index; the answer stays the same.
      const s = service(t, store);
      s.noteModelRequest('s2', 'plan', 'fake/model');
      s.recordToolCall('s2', 'c1', 'bash', true);
      expect(s.flush('test').ok).toBe(true);
      expect(wholeReads(store, () => (answer = listed(store)))).toEqual({ journal: 0, chain: 0 });
      expect(answer).toEqual(expected);
    } finally {
      store.close();
    }
  });
});

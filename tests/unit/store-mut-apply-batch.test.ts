/**
 * What a flush counts (apply-batch.ts), read back from a temporary database: a host event that
 * reports nothing yet still records its session and its agent ops once; a host event's journal entry
 * is written (and indexed) once, with the event's first report; a long session's held events are found
 * whatever session sorts before it; two setups whose key parts run together stay apart.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { resolveConfig } from '../../src/core/config.js';
import type { Mutation, ReplayMutation, SessionInit } from '../../src/core/store/mutations.js';
import { Store } from '../../src/core/store/store.js';
import type { WrittenDocument } from '../../src/core/store/tables.js';
import type { ActivityEntry, CounterDeltas } from '../../src/core/types.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const rules = resolveConfig({ options: {}, env: {}, home: '/tmp' }).rules;
const PROJECT = '/work/shop';
const NOW = '2026-11-26T12:00:00.000Z';
const AT = '2026-11-26T10:30:00.000Z';

const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});
const tempDir = useTempDirs('agent-tracker-apply-');

function openTemp(): Store {
  const dir = tempDir();
  const store = Store.open({ path: path.join(dir, 'db.lmdb'), maxDatabaseSize: 64 * 1024 * 1024, indexer: () => undefined });
  stores.push(store);
  return store;
}

function init(sessionId: string, agent = 'build', model = 'p/m'): SessionInit {
  return { sessionId, agent, model, project: PROJECT, firstAt: AT };
}

/** A host event of `sessionId` with its totals; its agent op is one commit for `build`. */
function event(sessionId: string, id: string, totals: CounterDeltas): ReplayMutation {
  return { table: 'events', key: [sessionId, id], totals, session: { key: [sessionId, 'build', 'p/m'], init: init(sessionId), at: AT }, agentOps: [{ agent: 'build', ops: [{ kind: 'commits', amount: 1 }] }] };
}

describe('a host event that reports no counter yet', () => {
  it('records its session at zero and applies its agent ops, once, and tells no listener of counters', () => {
    const store = openTemp();
    const first = store.applyBatch([event('ses_1', 'tool:a', { toolCalls: 0 })], rules, NOW);
    expect(first.counted).toEqual([]);
    expect(store.tables.usage.get(['ses_1', 'build', 'p/m'])).toMatchObject({ toolCalls: 0, commits: 0, firstAt: AT, lastAt: AT });
    expect(store.tables.agents.get('build')?.commits).toBe(1);
    expect(store.tables.events.get(['ses_1', 'tool:a'])).toEqual({ toolCalls: 0 });
    // Reported again (a backfill): nothing more.
    const again = store.applyBatch([event('ses_1', 'tool:a', { toolCalls: 0 })], rules, NOW);
    expect(again.counted).toEqual([]);
    expect(store.tables.agents.get('build')?.commits).toBe(1);
  });
});

describe("a host event's journal entry", () => {
  /** A turn's event that brings its automatic entry, keyed with `suffix` (each report makes its own key). */
  function turn(sessionId: string, suffix: string, task: string): ReplayMutation {
    const value: ActivityEntry = { timestamp: AT, task, actions: 'edit x1', outcome: 'no commits; no failures', decisions: '', agent: 'build', model: 'p/m', project: PROJECT, sessionId, automatic: true };
    return { ...event(sessionId, 'turn:msg_1', { turns: 1 }), agentOps: [], activity: { key: ['build', AT, suffix], value } };
  }

  it('writes it with the event, indexed in the same write, and never again for a later report of the event', () => {
    const dir = tempDir();
    const indexed: WrittenDocument[] = [];
    const store = Store.open({ path: path.join(dir, 'db.lmdb'), maxDatabaseSize: 64 * 1024 * 1024, indexer: (_tables, documents) => void indexed.push(...documents) });
    stores.push(store);
    const first = turn('ses_1', 'a', 'add retry to the http client');
    store.applyBatch([first], rules, NOW);
    expect([...store.tables.activities.getRange()]).toEqual([{ key: first.activity?.key, value: first.activity?.value }]);
    expect(indexed).toEqual([{ kind: 'activity', key: first.activity?.key, value: first.activity?.value }]);
    expect(store.tables.usage.get(['ses_1', 'build', 'p/m'])?.turns).toBe(1);

    // The same turn reported again (a backfill after live tracking, a second backfill): another key, not written.
    store.applyBatch([turn('ses_1', 'b', 'add retry to the http client')], rules, NOW);
    expect(store.tables.activities.getKeysCount()).toBe(1);
    expect(indexed).toHaveLength(1);
    expect(store.tables.usage.get(['ses_1', 'build', 'p/m'])?.turns).toBe(1);
  });

  it('writes the entry of each new event in a batch of many events of a session the store did not hold', () => {
    const store = openTemp();
    // Enough events of one session for the batch to skip a read per event (apply-batch.ts PROBE_EVENTS_FROM).
    const turns = Array.from({ length: 20 }, (_v, i) => ({ ...turn('ses_2', `s${i}`, `task ${i}`), key: ['ses_2', `turn:msg_${i}`] as [string, string] }));
    store.applyBatch(turns, rules, NOW);
    expect([...store.tables.activities.getRange()].map(({ value }) => value.task).sort()).toEqual(turns.map((t) => t.activity?.value.task).sort());
    store.applyBatch(turns.map((t, i) => ({ ...t, activity: { key: ['build', AT, `again${i}`] as [string, string, string], value: t.activity?.value as ActivityEntry } })), rules, NOW);
    expect(store.tables.activities.getKeysCount()).toBe(20);
  });
});

describe('a long session replayed', () => {
  it('counts only its new events when other sessions sort before and after it in the store', () => {
    const store = openTemp();
    // ses_0 sorts first and ses_2 last; ses_1 holds three events already.
    store.applyBatch([event('ses_0', 'tool:z', { toolCalls: 1 }), event('ses_2', 'tool:z', { toolCalls: 1 }), ...['tool:a', 'tool:b', 'tool:c'].map((id) => event('ses_1', id, { toolCalls: 1 }))], rules, NOW);
    const ids = Array.from({ length: 20 }, (_v, i) => `tool:${String.fromCharCode(97 + i)}`);
    store.applyBatch(ids.map((id) => event('ses_1', id, { toolCalls: 1 })), rules, NOW);
    // 20 distinct events of ses_1 in all, each counted once; ses_0's and ses_2's are their own.
    expect(store.tables.usage.get(['ses_1', 'build', 'p/m'])?.toolCalls).toBe(20);
    expect(store.tables.usage.get(['ses_0', 'build', 'p/m'])?.toolCalls).toBe(1);
    expect(store.tables.usage.get(['ses_2', 'build', 'p/m'])?.toolCalls).toBe(1);
    expect(store.tables.agents.get('build')?.commits).toBe(22);
  });
});

describe('usage records in one batch', () => {
  it('keeps apart two setups whose session, agent and model read the same run together', () => {
    const store = openTemp();
    const a: Mutation = { table: 'usage', key: ['s1', 'build', 'p/m'], init: init('s1', 'build', 'p/m'), counters: { commits: 1 }, lastAt: AT };
    const b: Mutation = { table: 'usage', key: ['s1b', 'uild', 'p/m'], init: init('s1b', 'uild', 'p/m'), counters: { commits: 2 }, lastAt: AT };
    store.applyBatch([a, b], rules, NOW);
    expect(store.tables.usage.get(['s1', 'build', 'p/m'])).toMatchObject({ commits: 1, agent: 'build' });
    expect(store.tables.usage.get(['s1b', 'uild', 'p/m'])).toMatchObject({ commits: 2, agent: 'uild' });
  });
});

describe('a host event reported again with higher totals (a live event, then its backfill)', () => {
  it('adds only the growth, tells it as counted, and applies its agent ops once', () => {
    const store = openTemp();
    const key: [string, string, string] = ['ses_1', 'build', 'p/m'];
    const first = store.applyBatch([event('ses_1', 'tool:a', { toolCalls: 2 })], rules, NOW);
    expect(first.counted).toEqual([{ table: 'usage', key, init: init('ses_1'), counters: { toolCalls: 2 }, lastAt: AT }]);

    const grown = store.applyBatch([event('ses_1', 'tool:a', { toolCalls: 5 })], rules, NOW);
    expect(grown.counted).toEqual([{ table: 'usage', key, init: init('ses_1'), counters: { toolCalls: 3 }, lastAt: AT }]);
    expect(store.tables.usage.get(key)?.toolCalls).toBe(5);
    expect(store.tables.events.get(['ses_1', 'tool:a'])).toEqual({ toolCalls: 5 });
    expect(store.tables.agents.get('build')?.commits).toBe(1);

    const same = store.applyBatch([event('ses_1', 'tool:a', { toolCalls: 5 })], rules, NOW);
    expect(same.counted).toEqual([]);
    expect(store.tables.usage.get(key)?.toolCalls).toBe(5);
  });

  it('counts an event twice in one batch of a session the store did not hold as one event', () => {
    const store = openTemp();
    // Enough events of one new session for the batch to skip the read of each (apply-batch.ts PROBE_EVENTS_FROM).
    const events = Array.from({ length: 20 }, (_v, i) => event('ses_3', `tool:${i}`, { toolCalls: 1 }));
    const result = store.applyBatch([...events, event('ses_3', 'tool:4', { toolCalls: 2 })], rules, NOW);
    expect(store.tables.usage.get(['ses_3', 'build', 'p/m'])?.toolCalls).toBe(21);
    expect(store.tables.agents.get('build')?.commits).toBe(20);
    expect(result.counted.reduce((sum, { counters }) => sum + (counters.toolCalls ?? 0), 0)).toBe(21);
  });
});

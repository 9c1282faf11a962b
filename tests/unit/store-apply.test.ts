/**
 * What one flush writes (apply-batch.ts), read back from a real temporary database: a host event is
 * counted once whatever number of times it is replayed, its agent ops apply once, write-once
 * records keep their first value, and the indexer is handed exactly the documents written.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { resolveConfig } from '../../src/core/config.js';
import type { Mutation, ReplayMutation, SessionInit } from '../../src/core/store/mutations.js';
import { Store } from '../../src/core/store/store.js';
import type { DocumentIndexer, WrittenDocument } from '../../src/core/store/store.js';
import type { CommitRecord } from '../../src/core/types.js';

const SIZE = 64 * 1024 * 1024;
const rules = resolveConfig({ options: {}, env: {}, home: '/tmp' }).rules;
const PROJECT = '/work/shop';
const SESSION: [string, string, string] = ['ses_1', 'build', 'p/m'];
const INIT: SessionInit = { sessionId: 'ses_1', agent: 'build', model: 'p/m', project: PROJECT, firstAt: '2026-11-26T10:00:00.000Z' };
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A store with an indexer that records every document it is handed. */
function openTemp(): { store: Store; indexed: WrittenDocument[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-apply-'));
  dirs.push(dir);
  const indexed: WrittenDocument[] = [];
  const indexer: DocumentIndexer = (_tables, documents) => indexed.push(...documents);
  return { store: Store.open({ path: path.join(dir, 'db.lmdb'), maxDatabaseSize: SIZE, indexer }), indexed };
}

/** One host event of ses_1; its agent op counts a commit for `build`, so applying it twice shows. */
function event(id: string, totals: ReplayMutation['totals'], at: string): ReplayMutation {
  return { table: 'events', key: ['ses_1', id], totals, session: { key: SESSION, init: INIT, at }, agentOps: [{ agent: 'build', ops: [{ kind: 'commits', amount: 1 }] }] };
}

function commit(hash: string, message: string): Extract<Mutation, { table: 'commits' }> {
  const value: CommitRecord = { hash, project: PROJECT, agent: 'build', model: 'p/m', sessionId: 'ses_1', message, files: ['a.ts'], insertions: 1, deletions: 0, timestamp: '2026-11-26T10:00:00.000Z' };
  return { table: 'commits', key: [PROJECT, hash], value };
}

describe('a flush', () => {
  it('names the usage records it created: those the store held nothing of before it, each once', () => {
    const { store } = openTemp();
    const other: [string, string, string] = ['ses_1', 'build', 'p/other'];
    const usage = (key: [string, string, string], at: string): Mutation => ({ table: 'usage', key, init: { ...INIT, model: key[2] }, counters: { toolCalls: 1 }, lastAt: at });
    try {
      // Two mutations of one new record and an event of the same record: created once.
      const first = store.applyBatch([usage(SESSION, '2026-11-26T10:01:00.000Z'), usage(SESSION, '2026-11-26T10:02:00.000Z'), event('m1', { messages: 1 }, '2026-11-26T10:03:00.000Z')], rules, '2026-11-26T10:03:00.000Z');
      expect(first.created).toEqual([SESSION]);
      // Then the same record again (held: not created) beside a second model in the same session (created).
      const second = store.applyBatch([usage(SESSION, '2026-11-26T11:00:00.000Z'), usage(other, '2026-11-26T11:00:00.000Z')], rules, '2026-11-26T11:00:00.000Z');
      expect(second.created).toEqual([other]);
      expect(store.applyBatch([usage(other, '2026-11-26T12:00:00.000Z')], rules, '2026-11-26T12:00:00.000Z').created).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('counts a host event once, adds only what grew when it comes again, and applies its agent ops once', () => {
    const { store } = openTemp();
    try {
      const first = store.applyBatch([event('m1', { messages: 1, tokensInput: 100 }, '2026-11-26T10:01:00.000Z')], rules, '2026-11-26T10:01:00.000Z');
      expect(first.counted).toEqual([{ table: 'usage', key: SESSION, init: INIT, counters: { messages: 1, tokensInput: 100 }, lastAt: '2026-11-26T10:01:00.000Z' }]);
      // The same message again, then with more tokens (a later copy of it).
      const again = store.applyBatch([event('m1', { messages: 1, tokensInput: 100 }, '2026-11-26T10:02:00.000Z')], rules, '2026-11-26T10:02:00.000Z');
      expect(again.counted).toEqual([]);
      const grown = store.applyBatch([event('m1', { messages: 1, tokensInput: 140 }, '2026-11-26T10:03:00.000Z')], rules, '2026-11-26T10:03:00.000Z');
      expect(grown.counted.map((counted) => counted.counters)).toEqual([{ tokensInput: 40 }]);

      const usage = store.tables.usage.get(SESSION);
      expect(usage).toMatchObject({ messages: 1, tokensInput: 140, toolCalls: 0, firstAt: '2026-11-26T10:00:00.000Z', lastAt: '2026-11-26T10:03:00.000Z' });
      expect(store.tables.events.get(['ses_1', 'm1'])).toEqual({ messages: 1, tokensInput: 140 });
      // Once: the event's agent ops apply only when it is first stored.
      const agent = store.tables.agents.get('build');
      expect(agent?.commits).toBe(1);
      expect(agent?.updatedAt).toBe('2026-11-26T10:01:00.000Z');
    } finally {
      store.close();
    }
  });

  it('counts each of many events of one new session once, in one batch and when the batch is replayed', () => {
    const { store } = openTemp();
    try {
      const events = Array.from({ length: 20 }, (_, i) => event(`e${i}`, { toolCalls: 1 }, `2026-11-26T10:${String(i + 10).padStart(2, '0')}:00.000Z`));
      // One event twice in the batch: counted once.
      store.applyBatch([...events, events[3] as ReplayMutation], rules, '2026-11-26T11:00:00.000Z');
      store.applyBatch(events, rules, '2026-11-26T11:30:00.000Z');
      expect(store.tables.usage.get(SESSION)).toMatchObject({ toolCalls: 20, lastAt: '2026-11-26T10:29:00.000Z' });
      expect(store.tables.agents.get('build')?.commits).toBe(20);
      expect(store.tables.events.getKeysCount()).toBe(20);
    } finally {
      store.close();
    }
  });

  it('keeps the first of a write-once record and hands the indexer only the documents written', () => {
    const { store, indexed } = openTemp();
    try {
      store.applyBatch([commit('c1', 'fix rounding')], rules, '2026-11-26T10:00:00.000Z');
      store.applyBatch([commit('c1', 'rewritten'), commit('c2', 'add coupons')], rules, '2026-11-26T10:05:00.000Z');
      expect(store.tables.commits.get([PROJECT, 'c1'])?.message).toBe('fix rounding');
      expect(indexed.map((document) => [document.kind, document.key])).toEqual([
        ['commit', [PROJECT, 'c1']],
        ['commit', [PROJECT, 'c2']],
      ]);
      const note = { table: 'gradeEvents', key: ['build', '2026-11-26T10:00:00.000Z', 'n1'], value: { type: 'note' } } as unknown as Mutation;
      const changed = { ...note, value: { type: 'changed' } } as Mutation;
      store.applyBatch([note], rules, '2026-11-26T10:06:00.000Z');
      store.applyBatch([changed], rules, '2026-11-26T10:07:00.000Z');
      expect(store.tables.gradeEvents.get(['build', '2026-11-26T10:00:00.000Z', 'n1'])).toEqual({ type: 'note' });
      expect(indexed).toHaveLength(2);
    } finally {
      store.close();
    }
  });

  it('adds counter deltas to a usage record, creating it at the first', () => {
    const { store } = openTemp();
    try {
      const delta = (counters: Record<string, number>, lastAt: string): Mutation => ({ table: 'usage', key: SESSION, init: INIT, counters, lastAt });
      store.applyBatch([delta({ commits: 1 }, '2026-11-26T10:10:00.000Z'), delta({ commits: 2, pushes: 1 }, '2026-11-26T10:05:00.000Z')], rules, '2026-11-26T10:10:00.000Z');
      store.applyBatch([delta({ commits: 1 }, '2026-11-26T10:20:00.000Z')], rules, '2026-11-26T10:20:00.000Z');
      expect(store.tables.usage.get(SESSION)).toMatchObject({ commits: 4, pushes: 1, bugs: 0, lastAt: '2026-11-26T10:20:00.000Z', agent: 'build' });
    } finally {
      store.close();
    }
  });

  it('reads provisioned items as the text items stored, whatever else is there', () => {
    const { store } = openTemp();
    try {
      store.write((tables) => tables.meta.putSync('provisioned:/cfg', ['a', 3, null, 'b']));
      expect(store.provisionedItems('/cfg')).toEqual(['a', 'b']);
      store.write((tables) => tables.meta.putSync('provisioned:/other', 'not a list'));
      expect(store.provisionedItems('/other')).toEqual([]);
      expect(store.provisionedItems('/none')).toEqual([]);
    } finally {
      store.close();
    }
  });
});

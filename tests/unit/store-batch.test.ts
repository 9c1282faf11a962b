/**
 * What a flush writes beyond counters (apply-batch.ts, replay.ts, batch-room.ts, the git-signal
 * cache merge), read back from a temporary database: a commit graded once with the CS before and
 * after, a user's grade written once unless it replaces the stored one, journal entries written
 * once and indexed, events of a long session some of which were held before, a session's time span,
 * and a batch refused whole when it would pass the size limit.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { resolveConfig } from '../../src/core/config.js';
import { mergeGitSignalCaches } from '../../src/contract/git-signal-cache.js';
import type { Mutation, ReplayMutation, SessionInit } from '../../src/core/store/mutations.js';
import { addUsage, replayDelta } from '../../src/core/store/replay.js';
import { DatabaseFullError, Store } from '../../src/core/store/store.js';
import type { DocumentIndexer, WrittenDocument } from '../../src/core/store/store.js';
import type { ActivityEntry, UsageRecord, UserGradeRecord } from '../../src/core/types.js';

const SIZE = 64 * 1024 * 1024;
const rules = resolveConfig({ options: {}, env: {}, home: '/tmp' }).rules;
const PROJECT = '/work/shop';
const SESSION: [string, string, string] = ['ses_1', 'build', 'p/m'];
const INIT: SessionInit = { sessionId: 'ses_1', agent: 'build', model: 'p/m', project: PROJECT, firstAt: '2026-11-26T10:00:00.000Z' };
const NOW = '2026-11-26T12:00:00.000Z';
const dirs: string[] = [];
const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function openTemp(maxDatabaseSize = SIZE): { store: Store; indexed: WrittenDocument[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-batch-'));
  dirs.push(dir);
  const indexed: WrittenDocument[] = [];
  const indexer: DocumentIndexer = (_tables, documents) => indexed.push(...documents);
  const store = Store.open({ path: path.join(dir, 'db.lmdb'), maxDatabaseSize, indexer });
  stores.push(store);
  return { store, indexed };
}

function selfGrade(commit: string, delta: number): Mutation {
  return {
    table: 'agents',
    key: 'build',
    ops: [{ kind: 'grade', delta, retrospective: { commit, timestamp: NOW, task: 'coupons', agent_grade: 5, agent_note: 'done', user_note: '', agent: 'build', model: 'p/m', project: PROJECT } }],
  };
}

function userGrade(commit: string, grade: 5 | 2 | -1, delta: number, replaces?: 5 | 2 | -1): Mutation {
  const record: UserGradeRecord = { commit, project: PROJECT, agent: 'build', model: 'p/m', sessionId: 'ses_1', grade, note: '', timestamp: NOW, provenance: 'user', via: 'cli' };
  return { table: 'agents', key: 'build', ops: [{ kind: 'grade', delta, userGrade: record, ...(replaces === undefined ? {} : { replaces }) }] };
}

function event(id: string, toolCalls: number): ReplayMutation {
  return { table: 'events', key: ['ses_1', id], totals: { toolCalls }, session: { key: SESSION, init: INIT, at: '2026-11-26T10:30:00.000Z' }, agentOps: [{ agent: 'build', ops: [{ kind: 'commits', amount: 1 }] }] };
}

describe('grades in a flush', () => {
  it("writes a commit's retrospective once, with the CS before and after its grade", () => {
    const { store, indexed } = openTemp();
    store.applyBatch([{ table: 'agents', key: 'build', ops: [{ kind: 'commits', amount: 1 }] }], rules, NOW);
    const before = store.tables.agents.get('build')?.cs as number;
    store.applyBatch([selfGrade('c1', 2)], rules, NOW);
    const after = store.tables.agents.get('build')?.cs as number;
    expect(after).toBe(before + 2);
    expect(store.tables.retrospectives.get(['build', 'c1'])).toMatchObject({ commit: 'c1', score_before: before, score_after: after });
    expect(indexed.map((document) => [document.kind, document.key])).toEqual([['retrospective', ['build', 'c1']]]);
    // Graded again (another process, a retry): dropped whole, CS unchanged.
    store.applyBatch([selfGrade('c1', 2)], rules, NOW);
    expect(store.tables.agents.get('build')?.cs).toBe(after);
    expect(indexed).toHaveLength(1);
  });

  it("writes the user's grade once, and over the stored one only when it replaces that grade", () => {
    const { store } = openTemp();
    store.applyBatch([userGrade('c1', 5, 2)], rules, NOW);
    const cs = store.tables.agents.get('build')?.cs as number;
    expect(store.tables.userGrades.get([PROJECT, 'c1'])?.grade).toBe(5);
    // A second grade without --replace: dropped whole.
    store.applyBatch([userGrade('c1', -1, -3)], rules, NOW);
    expect([store.tables.userGrades.get([PROJECT, 'c1'])?.grade, store.tables.agents.get('build')?.cs]).toEqual([5, cs]);
    // Replacing a grade that is no longer the stored one: dropped.
    store.applyBatch([userGrade('c1', -1, -3, 2)], rules, NOW);
    expect([store.tables.userGrades.get([PROJECT, 'c1'])?.grade, store.tables.agents.get('build')?.cs]).toEqual([5, cs]);
    // Replacing the stored grade: written, and its CS change applied.
    store.applyBatch([userGrade('c1', -1, -3, 5)], rules, NOW);
    expect([store.tables.userGrades.get([PROJECT, 'c1'])?.grade, store.tables.agents.get('build')?.cs]).toEqual([-1, cs - 3]);
  });
});

describe('journal entries in a flush', () => {
  it('writes an activity once and hands it to the indexer once', () => {
    const { store, indexed } = openTemp();
    const value: ActivityEntry = { timestamp: NOW, task: 'add coupons', actions: 'edited', outcome: 'success', decisions: '', agent: 'build', model: 'p/m', project: PROJECT, automatic: false };
    const key: [string, string, string] = ['build', NOW, 'a1'];
    store.applyBatch([{ table: 'activities', key, value }], rules, NOW);
    store.applyBatch([{ table: 'activities', key, value: { ...value, task: 'rewritten' } }], rules, NOW);
    expect(store.tables.activities.get(key)?.task).toBe('add coupons');
    expect(indexed).toEqual([{ kind: 'activity', key, value }]);
  });
});

describe('events of a long session', () => {
  it('counts only the new events of a session that held some before the batch', () => {
    const { store } = openTemp();
    store.applyBatch([event('e0', 1), event('e1', 1)], rules, NOW);
    // Twenty events in one batch, two of them already held: a held event's totals are read, not assumed absent.
    const events = Array.from({ length: 20 }, (_v, i) => event(`e${i}`, 1));
    store.applyBatch(events, rules, NOW);
    expect(store.tables.usage.get(SESSION)?.toolCalls).toBe(20);
    expect(store.tables.agents.get('build')?.commits).toBe(20);
    // Another session's events in the same store do not make this one's look held.
    const other = Array.from({ length: 20 }, (_v, i): ReplayMutation => ({ ...event(`o${i}`, 1), key: ['ses_0', `o${i}`] }));
    store.applyBatch(other, rules, NOW);
    expect(store.tables.usage.get(SESSION)?.toolCalls).toBe(40);
  });
});

describe('replay arithmetic', () => {
  it('adds only what grew, keeps the larger total, and holds counters it was not told about', () => {
    expect(replayDelta({ toolCalls: 3, messages: 2 }, { toolCalls: 5, messages: 1, commits: 1 })).toEqual({
      delta: { toolCalls: 2, commits: 1 },
      totals: { toolCalls: 5, messages: 2, commits: 1 },
      changed: true,
    });
    expect(replayDelta({ toolCalls: 3 }, { toolCalls: 3 })).toEqual({ delta: {}, totals: { toolCalls: 3 }, changed: false });
    expect(replayDelta(undefined, { toolCalls: 0 })).toEqual({ delta: {}, totals: { toolCalls: 0 }, changed: false });
    // A later copy of the event that reports fewer counters keeps the ones it left out.
    expect(replayDelta({ toolCalls: 3, commits: 1 }, { toolCalls: 4 }).totals).toEqual({ toolCalls: 4, commits: 1 });
  });

  it("widens a usage record's time span both ways", () => {
    const record = { firstAt: '2026-11-26T10:00:00.000Z', lastAt: '2026-11-26T11:00:00.000Z', toolCalls: 1 } as UsageRecord;
    addUsage(record, { toolCalls: 2 }, '2026-11-26T09:00:00.000Z');
    addUsage(record, { commits: 1 }, '2026-11-26T12:00:00.000Z');
    // An event from the middle of the span, replayed late, changes neither end.
    addUsage(record, {}, '2026-11-26T10:30:00.000Z');
    expect(record).toEqual({ firstAt: '2026-11-26T09:00:00.000Z', lastAt: '2026-11-26T12:00:00.000Z', toolCalls: 3, commits: 1 });
  });
});

describe('the size limit', () => {
  it('refuses a batch whole when the file plus what it can add would pass maxDatabaseSize, naming the setting', () => {
    const { store } = openTemp(SIZE);
    const fileSize = fs.statSync(store.path).size;
    store.close();
    stores.splice(0);
    const tight = Store.open({ path: store.path, maxDatabaseSize: fileSize + 1024 * 1024, indexer: () => undefined });
    stores.push(tight);
    const big = Array.from({ length: 40 }, (_v, i): Mutation => ({ table: 'meta', key: `big${i}`, value: 'x'.repeat(64 * 1024) }));
    expect(() => tight.applyBatch(big, rules, NOW)).toThrow(DatabaseFullError);
    expect(() => tight.applyBatch(big, rules, NOW)).toThrow(/is full .*Raise the "maxDatabaseSize" plugin option/);
    expect(tight.tables.meta.get('big0')).toBeUndefined();
    // A small batch still fits.
    tight.applyBatch([{ table: 'meta', key: 'small', value: 'x' }], rules, NOW);
    expect(tight.tables.meta.get('small')).toBe('x');
  });
});

describe('git-signal bookkeeping of two databases', () => {
  it('keeps every fate counted in either, and the HEAD only when both name the same', () => {
    const theirs = { head: 'h1', counted: { a: { reverted: false, followUpFix: true }, b: { reverted: true, followUpFix: false } } };
    expect(mergeGitSignalCaches(undefined, theirs)).toEqual(theirs);
    expect(mergeGitSignalCaches({ head: 'h1', counted: { a: { reverted: true, followUpFix: false }, c: { reverted: false, followUpFix: false } } }, theirs)).toEqual({
      head: 'h1',
      counted: { a: { reverted: true, followUpFix: true }, b: { reverted: true, followUpFix: false }, c: { reverted: false, followUpFix: false } },
    });
    expect(mergeGitSignalCaches({ head: 'h2', counted: {} }, theirs).head).toBe('');
  });
});

/**
 * Which records the size limit counts twice (batch-room.ts): an indexed document (a commit, a journal
 * entry, a graded commit's retrospective) is written again as postings, so near maxDatabaseSize it is
 * refused where a plain value of the same size still fits.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { resolveConfig } from '../../src/core/config.js';
import type { Mutation } from '../../src/core/store/mutations.js';
import { DatabaseFullError, Store } from '../../src/core/store/store.js';
import type { UserGradeRecord } from '../../src/core/types.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const rules = resolveConfig({ options: {}, env: {}, home: '/tmp' }).rules;
const PROJECT = '/work/shop';
const NOW = '2026-11-26T12:00:00.000Z';
const PAGE = 4096;
/** A text of 100,000 ASCII characters: about 74 pages at the bound's 3 bytes a character, 147 counted twice. */
const LONG = 'x'.repeat(100_000);
/**
 * Room above the file for a one-record batch: the bound's fixed pages (24) and copied pages (2 a key)
 * plus 110 pages of data, between the long text counted once (~74) and twice (~147), far from both.
 */
const ROOM = (24 + 2 + 110) * PAGE;

const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});
const tempDir = useTempDirs('agent-tracker-room-');

/** A fresh database reopened with ROOM bytes left under maxDatabaseSize. */
function nearlyFull(): Store {
  const dir = tempDir();
  const file = path.join(dir, 'db.lmdb');
  Store.open({ path: file, maxDatabaseSize: 64 * 1024 * 1024, indexer: () => undefined }).close();
  const store = Store.open({ path: file, maxDatabaseSize: fs.statSync(file).size + ROOM, indexer: () => undefined });
  stores.push(store);
  return store;
}

/** Whether the batch was refused as too big (and then that nothing of it was written). */
function refused(store: Store, batch: Mutation[]): boolean {
  try {
    store.applyBatch(batch, rules, NOW);
    return false;
  } catch (error) {
    if (!(error instanceof DatabaseFullError)) throw error;
    return true;
  }
}

const commit: Mutation = {
  table: 'commits',
  key: [PROJECT, 'c'.repeat(40)],
  value: { hash: 'c'.repeat(40), message: LONG, files: ['a.ts'], insertions: 1, deletions: 0, timestamp: NOW, project: PROJECT, agent: 'build', model: 'p/m', sessionId: 's1' },
};

const activity: Mutation = {
  table: 'activities',
  key: ['build', NOW, 'a1'],
  value: { timestamp: NOW, task: LONG, actions: '', outcome: 'done', decisions: '', agent: 'build', model: 'p/m', project: PROJECT, automatic: false },
};

/** A graded commit: its retrospective (the long task) is indexed; the op before it is not a grade. */
const selfGraded: Mutation = {
  table: 'agents',
  key: 'build',
  ops: [
    { kind: 'commits', amount: 1 },
    { kind: 'grade', delta: 1, retrospective: { commit: 'c1', timestamp: NOW, task: LONG, agent_grade: 5, agent_note: '', user_note: '', agent: 'build', model: 'p/m', project: PROJECT } },
  ],
};

const userGradeRecord: UserGradeRecord = { commit: 'c1', project: PROJECT, agent: 'build', model: 'p/m', sessionId: 's1', grade: 5, note: LONG, timestamp: NOW, provenance: 'user', via: 'cli' };
/** A user's grade with as long a note: stored, but not indexed. */
const userGraded: Mutation = { table: 'agents', key: 'build', ops: [{ kind: 'grade', delta: 1, userGrade: userGradeRecord }] };

describe('the size limit near maxDatabaseSize', () => {
  it('lets a plain value of 100,000 characters through, and a user grade with such a note', () => {
    const meta = nearlyFull();
    expect(refused(meta, [{ table: 'meta', key: 'note', value: LONG }])).toBe(false);
    expect(meta.tables.meta.get('note')).toBe(LONG);
    const graded = nearlyFull();
    expect(refused(graded, [userGraded])).toBe(false);
    expect(graded.tables.userGrades.get([PROJECT, 'c1'])?.note).toBe(LONG);
  });

  it('refuses a commit, a journal entry or a graded commit of the same size, writing nothing', () => {
    const commits = nearlyFull();
    expect(refused(commits, [commit])).toBe(true);
    expect(commits.tables.commits.getKeysCount()).toBe(0);
    const activities = nearlyFull();
    expect(refused(activities, [activity])).toBe(true);
    expect(activities.tables.activities.getKeysCount()).toBe(0);
    const graded = nearlyFull();
    expect(refused(graded, [selfGraded])).toBe(true);
    expect(graded.tables.retrospectives.getKeysCount()).toBe(0);
    expect(graded.tables.agents.get('build')).toBeUndefined();
  });
});

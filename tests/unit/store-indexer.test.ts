/**
 * The store keeps the prior-art index in step only through the indexer its writer gives it
 * (search/indexer.ts). Without one, a write that adds entries is refused whole, so no entry is ever
 * stored unindexed; the plugin gives it just after its start, and what waited is written then.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { resolveConfig } from '../../src/core/config.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { QueryService } from '../../src/core/search/service.js';
import { TermIndexReader } from '../../src/core/search/index/reader.js';
import type { Mutation } from '../../src/core/store/mutations.js';
import { NO_INDEXER, Store, StoreNotWritableError } from '../../src/core/store/store.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { recordingLogger } from '../helpers/temp-store.js';

const SIZE = 64 * 1024 * 1024;
const PROJECT = '/work/indexed';
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-indexer-'));
  dirs.push(dir);
  return path.join(dir, 'db.lmdb');
}

function commit(hash: string, message: string): Mutation {
  return {
    table: 'commits',
    key: [PROJECT, hash],
    value: { hash, message, files: ['src/parser.ts'], insertions: 3, deletions: 1, timestamp: '2026-11-25T10:00:00.000Z', project: PROJECT, agent: 'build', model: 'p/m', sessionId: 's1' },
  };
}

const rules = resolveConfig({ options: {}, env: {}, home: '/tmp' }).rules;

function search(store: Store, text: string): string[] {
  const result = new QueryService(store).searchPriorArt({ taskDescription: text, scope: PROJECT, maxResults: 5 });
  return [...result.positivePatterns, ...result.crossScopePatterns, ...result.mistakes].map((match) => JSON.stringify(match));
}

describe('the store and its term indexer', () => {
  it('refuses a batch that adds entries while it has no indexer, and writes none of it', () => {
    const store = Store.open({ path: tempFile(), maxDatabaseSize: SIZE });
    try {
      const batch: Mutation[] = [{ table: 'agents', key: 'build', ops: [{ kind: 'xp', amount: 3 }] }, commit('a1', 'tokenizer handles unicode quotes')];
      expect(() => store.applyBatch(batch, rules, '2026-11-25T10:00:00.000Z')).toThrow(StoreNotWritableError);
      expect(() => store.applyBatch(batch, rules, '2026-11-25T10:00:00.000Z')).toThrow(NO_INDEXER);
      expect(store.tables.commits.getKeysCount()).toBe(0);
      expect(store.tables.agents.get('build')).toBeUndefined();
      // Writes without entries (counters, profiles) need no index and go through.
      store.applyBatch([{ table: 'agents', key: 'build', ops: [{ kind: 'xp', amount: 3 }] }], rules, '2026-11-25T10:00:00.000Z');
      expect(store.tables.agents.get('build')?.xp).toBe(3);
    } finally {
      store.close();
    }
  });

  it('keeps what the service recorded before the indexer came, and indexes all of it at the next flush', () => {
    const store = Store.open({ path: tempFile(), maxDatabaseSize: SIZE });
    const logged: { level: string; message: string }[] = [];
    try {
      const config = resolveConfig({ options: { databasePath: store.path }, env: {}, home: path.dirname(store.path) });
      const service = new TrackingService({ store, config, logger: recordingLogger(logged), project: PROJECT });
      service.logActivity({ agent: 'build', project: PROJECT, task: 'make the tokenizer handle unicode quotes', outcome: 'done' });
      expect(service.flush('too early').ok).toBe(false);
      expect(service.pendingMutations).toBeGreaterThan(0);
      expect(store.tables.activities.getKeysCount()).toBe(0);
      // The refusal is expected, not a failure the user must hear of.
      expect(logged.filter((line) => line.level === 'error')).toEqual([]);

      store.addIndexer(termIndexer);
      expect(service.flush('indexer loaded').ok).toBe(true);
      expect(store.tables.activities.getKeysCount()).toBe(1);
      expect(new TermIndexReader(store.tables.terms).documentRefs().next().done).toBe(false);
      expect(search(store, 'unicode quotes tokenizer').length).toBeGreaterThan(0);
    } finally {
      store.close();
    }
  });

  it('indexes every entry a writer opened with the indexer adds, in the same transaction', () => {
    const store = Store.open({ path: tempFile(), maxDatabaseSize: SIZE, indexer: termIndexer });
    try {
      store.addIndexer(termIndexer); // given twice (several plugin instances share one store): indexed once
      store.applyBatch([commit('b1', 'parser skips byte order marks'), commit('b2', 'cache warms on first query')], rules, '2026-11-25T10:00:00.000Z');
      expect([...new TermIndexReader(store.tables.terms).documentRefs()]).toHaveLength(2);
      expect(search(store, 'byte order marks')).toHaveLength(1);
    } finally {
      store.close();
    }
  });
});

/**
 * A database that reaches its maxDatabaseSize: recording goes on in memory, one clear error is
 * logged, the buffer is kept, the file never grows past the limit (the last flush included: what
 * does not fit goes to a spill file), and a restart with a larger size merges the spill exactly once.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { MIB, resolveConfig } from '../../src/core/config.js';
import { mergeSpills, spillFilesOf } from '../../src/core/store/spill.js';
import { DatabaseFullError, Store } from '../../src/core/store/store.js';
import { finalFlush } from '../../src/core/tracking/final-flush.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { termIndexer } from '../../src/core/search/indexer.js';

const TINY_SIZE = 1 * MIB;
const LARGER_SIZE = 64 * MIB;
const FLUSH_EVERY = 20;
/** Random hex does not compress, so each entry really takes this much room. */
const ENTRY_TEXT_LENGTH = 3_000;
/** Far more than fits into TINY_SIZE; the loop stops well before at the first refused flush. */
const MAX_ENTRIES = 5_000;
const ENTRIES_AFTER_FULL = 30;

function tracker(dir: string, maxDatabaseSize: number) {
  const config = resolveConfig({
    options: { databasePath: path.join(dir, 'tracker.lmdb'), maxDatabaseSize, flushMaxMutations: FLUSH_EVERY },
    env: {},
    home: dir,
  });
  const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
  const errors: string[] = [];
  const logger = { info: () => undefined, warn: () => undefined, error: (message: string) => void errors.push(message) };
  const service = new TrackingService({ store, config, logger, project: '/map-full/project' });
  return { store, service, errors };
}

function logEntry(service: TrackingService, agent: string, index: number): void {
  service.logActivity({ agent, project: '/map-full/project', task: `entry ${index}`, actions: randomBytes(ENTRY_TEXT_LENGTH / 2).toString('hex') });
}

describe('a database that is full', () => {
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-map-full-'));
  });

  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps recording, logs one clear error, spills what the last flush cannot write, and merges it once after a restart with a larger size', () => {
    const first = tracker(dir, TINY_SIZE);
    let index = 0;
    // Record until a flush is refused: the buffer then stays non-empty past the flush bound.
    while (index < MAX_ENTRIES && first.service.pendingMutations < FLUSH_EVERY) logEntry(first.service, 'build', index++);
    expect(first.service.pendingMutations).toBeGreaterThanOrEqual(FLUSH_EVERY);
    const buffered = first.service.pendingMutations;
    const saved = first.store.tables.activities.getKeysCount();
    expect(saved).toBeGreaterThan(0);
    expect(saved + buffered).toBe(index);

    // Recording keeps working and the buffer is kept (and grows) while every flush is refused.
    for (let i = 0; i < ENTRIES_AFTER_FULL; i += 1) logEntry(first.service, 'build', index++);
    expect(first.service.pendingMutations).toBe(buffered + ENTRIES_AFTER_FULL);
    const retry = first.service.flush('retry');
    expect(retry.ok).toBe(false);
    if (!retry.ok) {
      expect(retry.error).toBeInstanceOf(DatabaseFullError);
      expect(retry.error.message).toMatch(/maxDatabaseSize/);
    }
    expect(first.service.pendingMutations).toBe(buffered + ENTRIES_AFTER_FULL);
    expect(first.errors).toHaveLength(1);
    expect(first.errors[0]).toMatch(/is full .*maxDatabaseSize.*Raise the "maxDatabaseSize" plugin option/);
    // Nothing half-written: what was saved before is still there and readable.
    expect(first.store.tables.activities.getKeysCount()).toBe(saved);
    // The process ends: the limit holds for its last flush too; what waits goes to a spill file.
    const last = finalFlush(first.service, 'exit');
    expect(last.mutations).toBe(buffered + ENTRIES_AFTER_FULL);
    expect(last.spilled).toBeDefined();
    expect(first.service.pendingMutations).toBe(0);
    expect(first.store.tables.activities.getKeysCount()).toBe(saved);
    expect(fs.statSync(first.store.path).size).toBeLessThanOrEqual(TINY_SIZE);
    const kept = saved + buffered + ENTRIES_AFTER_FULL;
    first.store.close();

    // A restart with a larger maxDatabaseSize: the spill is merged, once, on top of the old data.
    const second = tracker(dir, LARGER_SIZE);
    try {
      expect(second.store.tables.activities.getKeysCount()).toBe(saved);
      const merged = mergeSpills(second.store, second.service.config.rules);
      expect(merged).toMatchObject({ merged: 1, mutations: buffered + ENTRIES_AFTER_FULL, left: [] });
      expect(spillFilesOf(second.store.path)).toEqual([]);
      expect(second.store.tables.activities.getKeysCount()).toBe(kept);
      expect(mergeSpills(second.store, second.service.config.rules).merged).toBe(0);
      for (let i = 0; i < buffered; i += 1) logEntry(second.service, 'build', index++);
      const outcome = second.service.flush('after restart');
      expect(outcome.ok).toBe(true);
      expect(second.store.tables.activities.getKeysCount()).toBe(kept + buffered);
      expect(second.errors).toEqual([]);
    } finally {
      second.store.close();
    }
  });

  it('never lets the file past the limit, and refuses only in the last stretch before it', () => {
    const { store, service, errors } = tracker(dir, TINY_SIZE);
    try {
      let index = 0;
      let largest = 0;
      while (index < MAX_ENTRIES && service.pendingMutations < FLUSH_EVERY) {
        logEntry(service, 'plan', index++);
        largest = Math.max(largest, fs.statSync(store.path).size);
      }
      expect(largest).toBeLessThanOrEqual(TINY_SIZE);
      // Refused within one flush's bound of the limit, not at a fraction of it.
      expect(largest).toBeGreaterThanOrEqual(TINY_SIZE / 3);
      expect(errors).toHaveLength(1);
    } finally {
      store.close();
    }
  });
});

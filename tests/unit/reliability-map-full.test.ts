/**
 * A database that reaches its maxDatabaseSize: recording goes on in memory, one clear error is
 * logged, the buffer is kept and written by the process's last flush, and a restart with a larger
 * size writes again on top of everything that was saved before.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { MIB, resolveConfig } from '../../src/core/config.js';
import { DatabaseFullError, Store } from '../../src/core/store/store.js';
import { TrackingService } from '../../src/core/tracking/service.js';

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
  const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize });
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

  it('keeps recording, logs one clear error, keeps the buffer until the last flush, and writes again after a restart with a larger size', () => {
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
    // The process ends: its last flush is let past the soft limit, so nothing buffered is lost.
    expect(first.service.flush('exit', { final: true }).ok).toBe(true);
    expect(first.service.pendingMutations).toBe(0);
    const kept = saved + buffered + ENTRIES_AFTER_FULL;
    expect(first.store.tables.activities.getKeysCount()).toBe(kept);
    first.store.close();

    // A restart with a larger maxDatabaseSize: the old data is intact and new data lands.
    const second = tracker(dir, LARGER_SIZE);
    try {
      expect(second.store.tables.activities.getKeysCount()).toBe(kept);
      for (let i = 0; i < buffered; i += 1) logEntry(second.service, 'build', index++);
      const outcome = second.service.flush('after restart');
      expect(outcome.ok).toBe(true);
      expect(second.store.tables.activities.getKeysCount()).toBe(kept + buffered);
      expect(second.errors).toEqual([]);
    } finally {
      second.store.close();
    }
  });

  it('refuses at the limit but never before it', () => {
    const { store, service, errors } = tracker(dir, TINY_SIZE);
    try {
      let index = 0;
      while (index < MAX_ENTRIES && service.pendingMutations < FLUSH_EVERY) logEntry(service, 'plan', index++);
      // The refusal came once the file had reached the limit, not earlier.
      expect(fs.statSync(store.path).size).toBeGreaterThanOrEqual(TINY_SIZE);
      expect(errors).toHaveLength(1);
    } finally {
      store.close();
    }
  });
});

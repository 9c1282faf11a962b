/**
 * The flusher as a user sees it: a write error said once however often the same write fails, the
 * age bound met on the millisecond, and what listeners (status files, telemetry) are told of a
 * batch with a replayed event. On a temporary LMDB.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import type { Mutation } from '../../src/core/store/mutations.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker;
afterEach(() => {
  jest.restoreAllMocks();
  t?.dispose();
});

const PROJECT = '/work/project';
const hash = (n: number) => n.toString(16).padStart(40, 'd');
const commit = (n: number) => ({ hash: hash(n), message: `feat: ${n}`, files: ['src/a.ts'], insertions: 1, deletions: 0, timestamp: '2026-11-26T09:00:00.000Z' });

describe('a write that keeps failing', () => {
  it('is reported once per distinct error, and the buffer is kept', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    let message = 'disk on fire';
    t.store.addIndexer(() => {
      throw new Error(message);
    });
    // An indexed record (a commit) in the batch makes every write fail.
    t.service.recordCommits('s1', [commit(1)]);
    for (let i = 0; i < 3; i += 1) expect(t.service.flush('test').ok).toBe(false);
    message = 'disk full';
    expect(t.service.flush('test').ok).toBe(false);
    expect(t.service.flush('test').ok).toBe(false);
    expect(t.logged).toEqual([
      { level: 'error', message: 'agent-tracker: could not save tracking data (test): disk on fire' },
      { level: 'error', message: 'agent-tracker: could not save tracking data (test): disk full' },
    ]);
    expect(t.service.pendingMutations).toBeGreaterThan(0);
  });
});

describe('the age bound', () => {
  it('flushes when the oldest change is exactly as old as the bound, not a millisecond before', () => {
    const bound = 1000;
    t = tempTracker({ flushMaxAgeMs: bound });
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    const clock = jest.spyOn(Date, 'now');
    clock.mockReturnValue(1_000_000);
    t.service.recordToolCall('s1', 'c1', 'bash', true);
    clock.mockReturnValue(1_000_000 + bound - 1);
    t.service.recordToolCall('s1', 'c2', 'bash', true);
    expect(t.service.pendingMutations).toBe(2);
    clock.mockReturnValue(1_000_000 + bound);
    t.service.recordToolCall('s1', 'c3', 'bash', true);
    expect(t.service.pendingMutations).toBe(0);
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])?.toolCalls).toBe(3);
  });
});

describe('what listeners are told', () => {
  it('gets the rest of the batch beside the counters a replayed event added', () => {
    t = tempTracker();
    const batches: (readonly Mutation[])[] = [];
    t.service.onFlushed((_agents, mutations) => batches.push(mutations));
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordToolCall('s1', 'c1', 'bash', true);
    t.service.logActivity({ agent: 'build', project: PROJECT, sessionId: 's1', task: 'notes' });
    t.service.flush('test');
    expect(batches).toHaveLength(1);
    const tables = (batches[0] ?? []).map((m) => m.table).sort();
    // The journal entry, and the tool call as the session usage it added (not the event itself).
    expect(tables).toEqual(['activities', 'usage']);
  });
});

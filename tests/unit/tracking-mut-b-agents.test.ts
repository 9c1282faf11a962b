/**
 * The halt the hooks read from memory (what stops an agent's next tool call): seen at once after a
 * bug report here, and after any flush of this process once another process halted the agent. On a
 * temporary LMDB shared by two services, as two plugin instances would share it.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker;
afterEach(() => t?.dispose());

describe('the halt held in memory', () => {
  it('is true right after a bug report that halts the agent, before anything is written', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    expect(t.service.isHalted('build')).toBe(false);
    // A new agent has SP 1: one verified bug (its own work) halts it.
    t.service.reportBug({ agent: 'build', sessionId: 's1', description: 'broke the build' });
    expect(t.service.pendingMutations).toBeGreaterThan(0);
    expect(t.service.isHalted('build')).toBe(true);
  });

  it('is read again after this process’s next flush, which brings another process’s halt into view', () => {
    t = tempTracker();
    const other = t.another();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    expect(t.service.isHalted('build')).toBe(false);
    other.noteModelRequest('s2', 'build', 'fake/a');
    other.reportBug({ agent: 'build', sessionId: 's2', description: 'broke it' });
    expect(other.flush('bug').ok).toBe(true);
    t.service.recordToolCall('s1', 'c1', 'bash', true);
    expect(t.service.flush('test').ok).toBe(true);
    expect(t.service.isHalted('build')).toBe(true);
  });
});

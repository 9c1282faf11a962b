/**
 * What the recorder remembers of a live session (sessions.ts), on a temporary LMDB: a later note
 * without a parent or a source keeps the ones known; a prompt of only spaces keeps the turn's task;
 * a call reported twice is one call in the turn's journal entry; a bug report naming a session this
 * process never saw is still taken.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker;
afterEach(() => t?.dispose());

function journal() {
  return [...t.store.tables.activities.getRange()].map((entry) => entry.value);
}

describe('a session noted again', () => {
  it('without a parent or a source keeps the ones noted before', () => {
    t = tempTracker();
    t.service.noteSession('child', { parentId: 'root', source: 'backfill' });
    t.service.noteSession('child', { project: '/work/p2' });
    t.service.noteModelRequest('child', 'general', 'fake/a');
    t.service.recordCommand('child');
    t.service.flush('test');
    expect(t.store.tables.usage.get(['child', 'general', 'fake/a'])).toMatchObject({ commands: 1, parentSessionId: 'root', source: 'backfill', project: '/work/p2' });
  });
});

describe('a turn', () => {
  it('keeps its task when a later prompt of it is only spaces', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.noteTurnTask('s1', 'rename the config loader');
    t.service.noteTurnTask('s1', ' \n\t ');
    t.service.recordToolCall('s1', 'c1', 'edit', true);
    t.service.endTurn('s1');
    expect(journal()).toEqual([expect.objectContaining({ task: 'rename the config loader' })]);
  });

  it('lists a failed call reported twice as one call and one failure', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.noteTurnTask('s1', 'run the tests');
    t.service.recordToolCall('s1', 'c1', 'bash', false);
    t.service.recordToolCall('s1', 'c1', 'bash', false);
    t.service.recordToolCall('s1', 'c2', 'read', true);
    t.service.endTurn('s1');
    expect(journal()).toEqual([expect.objectContaining({ actions: 'bash x1, read x1', outcome: 'no commits; 1 failed tool call(s)' })]);
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ toolCalls: 2, toolFailures: 1 });
  });
});

describe('a bug report', () => {
  it('naming a session this process never saw is taken for a known agent', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommand('s1');
    t.service.flush('test');
    const fresh = t.another();
    const { verdict } = fresh.reportBug({ agent: 'build', sessionId: 'elsewhere', description: 'broke the build' });
    expect(verdict.verified).toBe(true);
    fresh.flush('test');
    expect(t.store.tables.agents.get('build')?.bugs).toBe(1);
  });
});

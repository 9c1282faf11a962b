/**
 * OpenCode's undo as the usage records count it (undoneTurns per setup): an undo made final forgets
 * the turns it took, how far back turns are remembered, a revert point before any known turn, and the
 * host reporting the same revert again. On a temporary LMDB.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker;
afterEach(() => t?.dispose());

const USAGE: [string, string, string] = ['s1', 'build', 'fake/a'];
const id = (n: number) => `msg_${n.toString().padStart(4, '0')}`;

function turn(messageId: string, session = 's1') {
  t.service.noteModelRequest(session, 'build', 'fake/a');
  t.service.noteTurnTask(session, `prompt ${messageId}`, messageId);
  t.service.endTurn(session);
}

function undone(key: [string, string, string] = USAGE): number | undefined {
  return t.store.tables.usage.get(key)?.undoneTurns;
}

describe('an undo made final', () => {
  it('forgets the turns it took, and keeps every other turn for a later undo', () => {
    t = tempTracker();
    for (const n of [1, 2, 3]) turn(id(n));
    t.service.recordRevert('s1', id(3));
    t.service.confirmRevert('s1');
    expect(undone()).toBe(1);
    turn(id(4));
    // Back to the first message: turns 1, 2 and 4 are undone now; turn 3 went with the first undo.
    t.service.recordRevert('s1', id(1));
    expect(undone()).toBe(1 + 3);
  });

  it('is a no-op for a session with no revert pending, and the next undo still counts', () => {
    t = tempTracker();
    turn(id(1));
    turn(id(2));
    expect(() => t.service.confirmRevert('s1')).not.toThrow();
    t.service.recordRevert('s1', id(1));
    expect(undone()).toBe(2);
  });
});

describe('the turns an undo can reach', () => {
  it('counts only the turns it knows when the revert point is before the first of them', () => {
    t = tempTracker();
    turn(id(2));
    turn(id(3));
    t.service.recordRevert('s1', id(1));
    expect(undone()).toBe(2);
    // Nothing was counted against any other setup, and nothing failed to save.
    expect([...t.store.tables.usage.getKeys()]).toEqual([USAGE]);
    expect(t.logged).toEqual([]);
  });

  it('counts nothing but the turns of a session first reverted and confirmed before any turn', () => {
    t = tempTracker();
    t.service.recordRevert('s1', id(1));
    t.service.confirmRevert('s1');
    turn(id(2));
    t.service.recordRevert('s1', id(1));
    expect(undone()).toBe(1);
    expect([...t.store.tables.usage.getKeys()]).toEqual([USAGE]);
    expect(t.logged).toEqual([]);
  });

  it('remembers the last 500 turns of a session', () => {
    t = tempTracker();
    const turns = 501;
    for (let n = 1; n <= turns; n += 1) turn(id(n));
    // Undo back to the very first message: the oldest turn is no longer remembered.
    t.service.recordRevert('s1', id(1));
    expect(t.store.tables.usage.get(USAGE)).toMatchObject({ turns, undoneTurns: 500 });
  });
});

describe('the same revert reported again', () => {
  it('writes nothing more', () => {
    t = tempTracker();
    turn(id(1));
    turn(id(2));
    t.service.recordRevert('s1', id(2));
    const flushes = t.store.meta().flushes;
    t.service.recordRevert('s1', id(2));
    expect(t.store.meta().flushes).toBe(flushes);
    expect(undone()).toBe(1);
  });
});

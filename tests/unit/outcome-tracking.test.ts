/** The tracking service's outcome signals: test runs by exit code, undo and unrevert, counted per setup. */
import { afterEach, describe, expect, it } from '@jest/globals';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker;
afterEach(() => t?.dispose());

function turn(session: string, messageId: string, agent = 'build', model = 'fake/a') {
  t.service.noteModelRequest(session, agent, model);
  t.service.noteTurnTask(session, `prompt ${messageId}`, messageId);
  t.service.endTurn(session);
}

describe('test runs', () => {
  it('counts runs, passes and the recovery by exit code; other commands and unknown exits count nothing', () => {
    t = tempTracker({ testCommands: ['^make check\\b'] });
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    for (const [command, exit] of [['npm test', 1], ['ls', 0], ['npm test', undefined], ['make check', 2], ['pytest -q', 0], ['npm run build', 1]] as const) {
      t.service.recordShellCommand('s1', command, exit);
    }
    t.service.flush('test');
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ testRuns: 3, testPasses: 1, testRecoveries: 1 });
  });
});

describe('undo', () => {
  it('counts the undone turns against the setups that worked them, and takes them back on unrevert', () => {
    t = tempTracker();
    turn('s1', 'msg_01');
    turn('s1', 'msg_02', 'plan', 'fake/b');
    turn('s1', 'msg_03', 'plan', 'fake/b');
    t.service.recordRevert('s1', 'msg_02');
    t.service.recordRevert('s1', 'msg_02');
    expect(t.service.pendingMutations).toBe(0);
    expect(t.store.tables.usage.get(['s1', 'plan', 'fake/b'])).toMatchObject({ turns: 2, undoneTurns: 2 });
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])?.undoneTurns).toBeUndefined();
    t.service.recordRevert('s1', 'msg_01');
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ turns: 1, undoneTurns: 1 });
    expect(t.store.tables.usage.get(['s1', 'plan', 'fake/b'])).toMatchObject({ undoneTurns: 2 });
    t.service.recordRevert('s1', undefined);
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ undoneTurns: 0 });
    expect(t.store.tables.usage.get(['s1', 'plan', 'fake/b'])).toMatchObject({ undoneTurns: 0 });
  });

  it('keeps an undo made final (messages removed), and does not count those turns again', () => {
    t = tempTracker();
    turn('s1', 'msg_01');
    turn('s1', 'msg_02');
    t.service.recordRevert('s1', 'msg_02');
    t.service.confirmRevert('s1');
    t.service.recordRevert('s1', undefined);
    turn('s1', 'msg_05');
    t.service.recordRevert('s1', 'msg_05');
    t.service.flush('test');
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ turns: 3, undoneTurns: 2 });
  });

  it('counts nothing for a session it saw no turns of', () => {
    t = tempTracker();
    t.service.recordRevert('s9', 'msg_01');
    t.service.confirmRevert('s9');
    expect(t.service.pendingMutations).toBe(0);
    expect(t.store.tables.usage.getKeysCount()).toBe(0);
  });
});

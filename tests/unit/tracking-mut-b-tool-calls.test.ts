/**
 * What a session's tools, slash commands and pushes add to the usage record, the agent's XP and the
 * turn's journal entry: a call reported twice counts once, a call that earns nothing leaves no agent
 * record, and commands and pushes count once per host id and every time without one. On a temporary LMDB.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker;
afterEach(() => t?.dispose());

const USAGE: [string, string, string] = ['s1', 'build', 'fake/a'];

function start(): void {
  // Levels so dear that no XP here is spent on one: the agent's XP is the plain sum of what it earned.
  t = tempTracker({ rules: { xpPerLevelFactor: 100_000 } });
  t.service.noteModelRequest('s1', 'build', 'fake/a');
}

describe('a tool call reported twice', () => {
  it('is one call and one failure in the turn’s journal entry', () => {
    start();
    t.service.noteTurnTask('s1', 'go on', 'msg_1');
    // The host reports a finished call from two hooks.
    t.service.recordToolCall('s1', 'prt_1', 'bash', false);
    t.service.recordToolCall('s1', 'prt_1', 'bash', false);
    t.service.endTurn('s1');
    const entries = [...t.store.tables.activities.getRange()].map((entry) => entry.value);
    expect(entries).toEqual([expect.objectContaining({ actions: 'bash x1', outcome: 'no commits; 1 failed tool call(s)' })]);
    expect(t.store.tables.usage.get(USAGE)).toMatchObject({ toolCalls: 1, toolFailures: 1 });
  });
});

describe('a tool call that earns nothing', () => {
  it('leaves no agent record behind (the tracker’s own tool, a failed call)', () => {
    start();
    t.service.recordToolCall('s1', 'c1', 'agent-status', true);
    t.service.recordToolCall('s1', 'c2', 'bash', false);
    t.service.flush('test');
    expect(t.store.tables.usage.get(USAGE)).toMatchObject({ toolCalls: 2, toolFailures: 1 });
    expect(t.store.tables.agents.get('build')).toBeUndefined();
  });
});

describe('slash commands', () => {
  it('count every time without a host id, and once per host id', () => {
    start();
    const xpPerCommand = t.config.rules.xpPerCommand;
    t.service.recordCommand('s1');
    t.service.recordCommand('s1');
    t.service.recordCommand('s1', { eventId: 'msg_a' });
    t.service.recordCommand('s1', { eventId: 'msg_b' });
    t.service.recordCommand('s1', { eventId: 'msg_b' });
    t.service.flush('test');
    expect(t.store.tables.usage.get(USAGE)?.commands).toBe(4);
    expect(t.store.tables.agents.get('build')?.xp).toBe(4 * xpPerCommand);
  });

  it('count, but earn no XP, when they came while an agent tool call ran (its shell may have sent them)', () => {
    start();
    t.service.recordCommand('s1');
    t.service.recordCommand('s1', { whileToolCallsRan: true });
    t.service.recordCommand('s1', { eventId: 'msg_a', whileToolCallsRan: true });
    t.service.flush('test');
    expect(t.store.tables.usage.get(USAGE)?.commands).toBe(3);
    expect(t.store.tables.agents.get('build')?.xp).toBe(t.config.rules.xpPerCommand);
  });
});

describe('pushes', () => {
  it('count every time without a host id, and once per host id, each written at once', () => {
    start();
    const xpPerPush = t.config.rules.xpPerPush;
    expect(t.service.recordPush('s1').ok).toBe(true);
    expect(t.service.pendingMutations).toBe(0);
    t.service.recordPush('s1');
    t.service.recordPush('s1', { eventId: 'call_a' });
    t.service.recordPush('s1', { eventId: 'call_b' });
    t.service.recordPush('s1', { eventId: 'call_b' });
    expect(t.store.tables.usage.get(USAGE)?.pushes).toBe(4);
    expect(t.store.tables.agents.get('build')?.xp).toBe(4 * xpPerPush);
  });
});

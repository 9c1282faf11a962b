/**
 * The recorder's sessions, turns, journal, messages, commands and flushes, on a temporary LMDB:
 * what a user later reads in `report`, `status` and the journal. Expected figures are worked out
 * here from the default rules (XP 1 per tool call, 2 per command, 10 per push; a level costs 10 x SP).
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { silentLogger } from '../../src/core/logger.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker;
afterEach(() => t?.dispose());

const AT = '2026-01-02T03:04:05.000Z';

function journal() {
  return [...t.store.tables.activities.getRange()].map((entry) => entry.value);
}

describe('sessions', () => {
  it('writes a subagent session under its own project with its parent and source', () => {
    t = tempTracker();
    t.service.noteSession('child', { parentId: 'root', project: '/work/other', source: 'backfill' });
    t.service.noteModelRequest('child', 'explore', 'fake/m');
    t.service.recordShellCommand('child', 'npm test', 0);
    t.service.flush('test');
    expect(t.store.tables.usage.get(['child', 'explore', 'fake/m'])).toMatchObject({
      project: '/work/other',
      parentSessionId: 'root',
      source: 'backfill',
      testRuns: 1,
      testPasses: 1,
    });
  });

  it('keeps what it knew of a session when a later note names only part of it, and the agent of the latest request', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.noteSession('s1', { project: '/work/p2' });
    t.service.noteSession('s1', {});
    t.service.noteModelRequest('s1', 'plan', 'fake/b');
    expect(t.service.setupOf('s1')).toEqual({ agent: 'plan', model: 'fake/b', project: '/work/p2' });
    expect(t.service.setupOf('unseen')).toEqual({ agent: 'unknown', model: 'unknown', project: '/work/project' });
  });

  it('writes a live session with no parent as live, without a parent field', () => {
    t = tempTracker();
    t.service.noteSession('s1', {});
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.noteTrackerFileEdit('s1');
    t.service.flush('test');
    const usage = t.store.tables.usage.get(['s1', 'build', 'fake/a']);
    expect(usage).toMatchObject({ source: 'live', project: '/work/project', trackerFileEdits: 1 });
    expect(usage?.parentSessionId).toBeUndefined();
  });

  it('forgets a session: its open turn and counted calls go (the call itself still counts once in the record)', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.noteTurnTask('s1', 'first task');
    t.service.recordToolCall('s1', 'c1', 'bash', true);
    t.service.forgetSession('s1');
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordToolCall('s1', 'c1', 'bash', true);
    t.service.endTurn('s1');
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])?.toolCalls).toBe(1);
    expect(journal()).toEqual([expect.objectContaining({ task: '(no prompt recorded)', actions: 'bash x1' })]);
  });
});

describe('the end of a turn', () => {
  it('counts the turn under its task kind and journals its commits, files and outcome', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.noteTurnTask('s1', '  Fix the\n crash  on login ', 'msg_1');
    t.service.recordToolCall('s1', 'c1', 'edit', true);
    t.service.recordToolCall('s1', 'c2', 'edit', true);
    t.service.noteFileEdited('s1', 'src/login.ts');
    const hash = 'abcdef1234567890abcdef1234567890abcdef12';
    t.service.recordCommits('s1', [{ hash, message: 'fix: login', files: ['src/login.ts'], insertions: 1, deletions: 1, timestamp: AT }]);
    expect(t.service.endTurn('s1').ok).toBe(true);
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ turns: 1, turnsBugFix: 1, toolCalls: 2, commits: 1 });
    expect(journal()).toEqual([
      expect.objectContaining({
        task: 'Fix the crash on login',
        actions: 'edit x2',
        outcome: '1 commit(s): abcdef1; no failures',
        files: ['src/login.ts'],
        agent: 'build',
        model: 'fake/a',
        project: '/work/project',
        sessionId: 's1',
        automatic: true,
      }),
    ]);
  });

  it('keeps a long task to 200 characters and masks it', () => {
    t = tempTracker();
    const masked = new TrackingService({
      store: t.store,
      config: t.config,
      logger: silentLogger,
      project: '/work/project',
      maskText: (text) => text.replace(/secret\w*/g, '***'),
    });
    masked.noteModelRequest('s1', 'build', 'fake/a');
    masked.noteTurnTask('s1', `use secret42 ${'x'.repeat(300)}`);
    masked.recordToolCall('s1', 'c1', 'read', false);
    masked.endTurn('s1');
    const [entry] = journal();
    expect(entry?.task).toBe(`use *** ${'x'.repeat(192)}`);
    expect(entry?.outcome).toBe('no commits; 1 failed tool call(s)');
  });

  it('counts no turn for a session whose agent is unknown, and journals nothing for a turn without work', () => {
    t = tempTracker();
    t.service.noteTurnTask('s1', 'hello', 'msg_1');
    t.service.endTurn('s1');
    t.service.noteModelRequest('s2', 'build', 'fake/a');
    t.service.noteTurnTask('s2', 'what does this do?', 'msg_2');
    t.service.endTurn('s2');
    expect(t.store.tables.usage.get(['s1', 'unknown', 'unknown'])).toBeUndefined();
    expect(t.store.tables.usage.get(['s2', 'build', 'fake/a'])).toMatchObject({ turns: 1, turnsOther: 1 });
    expect(journal()).toEqual([]);
  });

  it('names at most 50 edited files in the journal', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    for (let i = 0; i < 60; i += 1) t.service.noteFileEdited('s1', `src/f${i}.ts`);
    t.service.recordToolCall('s1', 'c1', 'edit', true);
    t.service.endTurn('s1');
    const files = journal()[0]?.files ?? [];
    expect(files).toHaveLength(50);
    expect(files[49]).toBe('src/f49.ts');
  });
});

describe('the journal', () => {
  it('stores an agent’s entry with the model of its session, and a user action with how it came', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    const entry = t.service.logActivity({ agent: 'build', project: '/work/project', sessionId: 's1', task: 'wrote docs', actions: 'edit', outcome: 'ok', decisions: 'kept it short' });
    expect(entry).toMatchObject({ model: 'fake/a', sessionId: 's1', automatic: false, decisions: 'kept it short' });
    const alone = t.service.logActivity({ agent: 'plan', project: '/work/project', task: 'planned' });
    expect(alone.model).toBe('unknown');
    expect(alone).not.toHaveProperty('sessionId');
    t.service.recordUserAction({ agent: 'build', project: '/work/project', summary: 'revived build', provenance: { action: 'revive', via: 'terminal-no-tty', suspect: true } });
    t.service.flush('test');
    const user = journal().find((e) => e.userAction);
    expect(user).toMatchObject({ task: 'revived build', outcome: 'suspect user action', model: 'unknown', automatic: false, userAction: { suspect: true } });
    expect(journal()).toHaveLength(3);
  });

  it('records a user action that came from the user as such', () => {
    t = tempTracker();
    t.service.recordUserAction({ agent: 'build', project: '/work/project', summary: 'graded a commit', provenance: { action: 'grade', via: 'terminal-tty', suspect: false } });
    t.service.flush('test');
    expect(journal()).toEqual([expect.objectContaining({ outcome: 'user action', userAction: { action: 'grade', via: 'terminal-tty', suspect: false } })]);
  });

  it('refuses an entry without a task, writing nothing', () => {
    t = tempTracker();
    expect(() => t.service.logActivity({ agent: 'build', project: '/work/project', task: '' })).toThrow(/task/);
    expect(t.service.pendingMutations).toBe(0);
  });
});

describe('commands, pushes and messages', () => {
  it('awards a slash command once per host message id, and each one without an id', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommand('s1', { eventId: 'msg_1', at: AT });
    t.service.recordCommand('s1', { eventId: 'msg_1', at: AT });
    t.service.recordCommand('s1');
    t.service.flush('test');
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])?.commands).toBe(2);
    // Two commands at 2 XP each: 4, short of the first level (10).
    expect(t.store.tables.agents.get('build')).toMatchObject({ xp: 4, sp: 1 });
  });

  it('flushes on a push unless told to wait, and counts a replayed push once', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    expect(t.service.recordPush('s1', { eventId: 'call_1', at: AT, deferFlush: true })).toEqual({ ok: true, mutations: 0, durationMs: 0 });
    expect(t.service.pendingMutations).toBeGreaterThan(0);
    expect(t.service.recordPush('s1', { eventId: 'call_1', at: AT }).ok).toBe(true);
    expect(t.service.pendingMutations).toBe(0);
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])?.pushes).toBe(1);
    // One push: 10 XP pay the first level exactly.
    expect(t.store.tables.agents.get('build')).toMatchObject({ xp: 0, sp: 2 });
  });

  it('buffers nothing for a message reported again unchanged, and counts a change in any token figure', () => {
    t = tempTracker();
    const base = { input: 10, output: 1, reasoning: 2, cacheRead: 3, cacheWrite: 4 };
    const setup = { agent: 'build', model: 'fake/a' };
    t.service.recordAssistantMessage('s1', 'm1', setup, base, 0.5);
    t.service.flush('test');
    t.service.recordAssistantMessage('s1', 'm1', setup, { ...base }, 0.5);
    expect(t.service.pendingMutations).toBe(0);
    for (const [field, value] of [['reasoning', 5], ['cacheRead', 6], ['cacheWrite', 7]] as const) {
      t.service.recordAssistantMessage('s1', 'm1', setup, { ...base, [field]: value }, 0.5);
      expect(t.service.pendingMutations).toBe(1);
      t.service.flush('test');
    }
    t.service.recordAssistantMessage('s1', 'm1', setup, { ...base, reasoning: 5, cacheRead: 6, cacheWrite: 7 }, 0.75);
    t.service.flush('test');
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({
      messages: 1,
      tokensInput: 10,
      tokensOutput: 1,
      tokensReasoning: 5,
      tokensCacheRead: 6,
      tokensCacheWrite: 7,
      cost: 0.75,
    });
  });

  it('remembers the last 2000 messages: an unchanged report of an older one is counted again (the store keeps it once)', () => {
    t = tempTracker();
    const tokens = { input: 1, output: 1, reasoning: 0, cacheRead: 0, cacheWrite: 0 };
    const setup = { agent: 'build', model: 'fake/a' };
    for (let i = 0; i <= 2000; i += 1) t.service.recordAssistantMessage('s1', `m${i}`, setup, tokens, 0);
    t.service.flush('test');
    t.service.recordAssistantMessage('s1', 'm1', setup, tokens, 0);
    expect(t.service.pendingMutations).toBe(0);
    t.service.recordAssistantMessage('s1', 'm0', setup, tokens, 0);
    expect(t.service.pendingMutations).toBe(1);
    t.service.flush('test');
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])?.messages).toBe(2001);
  });
});

/**
 * Every way of recording respects the buffer's size bound, and what memory holds stays in step with
 * the database after a write: a replayed event the store already holds adds nothing, a journal
 * entry names only what the turn did. On a temporary LMDB.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Mutation } from '../../src/core/store/mutations.js';
import type { CommitRecord } from '../../src/core/types.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker;
afterEach(() => t?.dispose());

const PROJECT = '/work/project';
const AT = '2026-01-02T03:04:05.000Z';
const hash = (n: number) => n.toString(16).padStart(40, 'e');
const commit = (n: number, files = ['src/a.ts']) => ({ hash: hash(n), message: `feat: ${n}`, files, insertions: 1, deletions: 0, timestamp: AT });
const tokens = { input: 1, output: 1, reasoning: 0, cacheRead: 0, cacheWrite: 0 };

type Service = TempTracker['service'];

describe('the buffer’s size bound', () => {
  it.each<[string, (service: Service) => void]>([
    ['a tool call', (s) => s.recordToolCall('s1', 'c9', 'bash', true)],
    ['a slash command', (s) => s.recordCommand('s1')],
    ['a test run', (s) => s.recordShellCommand('s1', 'npm test', 0)],
    ['an edit of the tracker’s files', (s) => s.noteTrackerFileEdit('s1')],
    ['an assistant message', (s) => s.recordAssistantMessage('s1', 'm1', { agent: 'build', model: 'fake/a' }, tokens, 0)],
    ['a commit', (s) => s.recordCommits('s1', [commit(2)])],
    ['git signals', (s) => s.recordGitSignals(PROJECT, [{ commit: s.trackedCommits(PROJECT)[0] as CommitRecord, revertedCommits: 1, followUpFixCommits: 0 }], { head: hash(3), counted: {} })],
    ['a journal entry', (s) => s.logActivity({ agent: 'build', project: PROJECT, task: 'notes' })],
    ['a bug report', (s) => s.reportBug({ agent: 'build', sessionId: 's1', description: 'broke it' })],
    ['a self-grade', (s) => s.gradeCommit({ agent: 'build', project: PROJECT, commit: hash(1), agentGrade: 2 })],
  ])('flushes %s at once when the bound is one change', (_what, record) => {
    t = tempTracker({ flushMaxMutations: 1 });
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [commit(1)]);
    expect(t.service.pendingMutations).toBe(0);
    const flushes = t.store.meta().flushes;
    record(t.service);
    expect(t.service.pendingMutations).toBe(0);
    expect(t.store.meta().flushes).toBe(flushes + 1);
  });
});

describe('memory after a write', () => {
  it('buffers nothing for a replayed tool call the store already holds, read again after the flush', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordToolCall('s1', 'prt_1', 'bash', true, { at: AT });
    t.service.endTurn('s1');
    t.service.recordToolCall('s1', 'prt_1', 'bash', true, { at: AT });
    expect(t.service.pendingMutations).toBe(0);
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ toolCalls: 1, firstAt: AT });
  });

  it('dates a commit replayed from history at the host’s time', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [commit(1)], { at: AT });
    t.service.flush('test');
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ commits: 1, firstAt: AT, lastAt: AT });
  });

  it('tells listeners the session counters a replayed event added, not the event', () => {
    t = tempTracker();
    const batches: (readonly Mutation[])[] = [];
    t.service.onFlushed((_agents, mutations) => batches.push(mutations));
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordToolCall('s1', 'prt_1', 'read', false);
    t.service.flush('test');
    expect(batches).toHaveLength(1);
    expect(batches[0]?.map((m) => m.table)).toEqual(['usage']);
  });

  it('gives a shell command that only prints no XP, and counts it', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordToolCall('s1', 'c1', 'bash', true, { command: 'echo hi' });
    t.service.recordToolCall('s1', 'c2', 'bash', true, { command: 'npm run build' });
    t.service.flush('test');
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])?.toolCalls).toBe(2);
    expect(t.store.tables.agents.get('build')?.xp).toBe(1);
  });

  it('counts no recovery for a passing run that follows no failure', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordShellCommand('s1', 'npm test', 0);
    t.service.flush('test');
    const usage = t.store.tables.usage.get(['s1', 'build', 'fake/a']);
    expect(usage).toMatchObject({ testRuns: 1, testPasses: 1 });
    expect(usage?.testRecoveries ?? 0).toBe(0);
  });
});

describe('turns and undo', () => {
  it('journals a turn that only committed, with no file list', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [commit(1), commit(2)]);
    t.service.endTurn('s1');
    const entries = [...t.store.tables.activities.getRange()].map((e) => e.value);
    expect(entries).toEqual([expect.objectContaining({ actions: '', outcome: `2 commit(s): ${hash(1).slice(0, 7)}, ${hash(2).slice(0, 7)}; no failures` })]);
    expect(entries[0]).not.toHaveProperty('files');
  });

  it('keeps the message that started a turn when a later prompt of the turn has no id', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.noteTurnTask('s1', 'first', 'msg_1');
    t.service.noteTurnTask('s1', 'second');
    t.service.endTurn('s1');
    t.service.recordRevert('s1', 'msg_1');
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ turns: 1, undoneTurns: 1 });
  });

  it('leaves the buffer alone for a revert that undoes no turn it knows', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordToolCall('s1', 'c1', 'bash', true);
    t.service.recordRevert('s9', 'msg_1');
    expect(t.service.pendingMutations).toBe(1);
  });
});

import { afterEach, describe, expect, it } from '@jest/globals';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const commit = (n: number) => ({
  hash: n.toString(16).padStart(40, 'c'),
  message: `commit ${n}`,
  files: ['a.ts'],
  insertions: 1,
  deletions: 0,
  timestamp: new Date(1_700_000_000_000 + n).toISOString(),
});

/*
 * Expected agent figures are worked out here from the default rules: XP 1 per tool call, 5 per
 * commit, 10 per push, 1 per graded commit; a level costs 10 x SP; an agent starts at SP 1, XP 0,
 * CS 60; a grade moves CS by its value up to SP x 100.
 */

let t: TempTracker;
afterEach(() => t?.dispose());

describe('TrackingService recording and flushing', () => {
  it('writes nothing until a flush trigger, then everything in one flush', () => {
    t = tempTracker();
    const s = t.service;
    s.noteModelRequest('s1', 'build', 'fake/m');
    for (let i = 0; i < 12; i += 1) s.recordToolCall('s1', `c${i}`, 'bash', true);
    s.recordCommits('s1', [commit(1)]);
    expect(t.store.tables.agents.get('build')).toBeUndefined();
    expect(t.store.meta().flushes).toBe(0);

    const outcome = s.endTurn('s1');
    expect(outcome.ok).toBe(true);
    expect(t.store.meta().flushes).toBe(1);
    // 12 tool calls pay the first level (10 x SP 1) with 2 left over; the commit's 5 make 7 (< 10 x SP 2).
    expect(t.store.tables.agents.get('build')).toMatchObject({ sp: 2, xp: 7, commits: 1 });
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/m'])).toMatchObject({ toolCalls: 12, commits: 1, project: '/work/project' });
  });

  it('flushes on a push and counts it', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/m');
    const outcome = t.service.recordPush('s1');
    expect(outcome).toMatchObject({ ok: true });
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/m'])?.pushes).toBe(1);
    // A push's 10 XP pay exactly the first level.
    expect(t.store.tables.agents.get('build')).toMatchObject({ sp: 2, xp: 0 });
  });

  it('counts a failed call once even when two events report it, and gives it no XP', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/m');
    t.service.recordToolCall('s1', 'c1', 'read', false);
    t.service.recordToolCall('s1', 'c1', 'read', false);
    t.service.flush('test');
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/m'])).toMatchObject({ toolCalls: 1, toolFailures: 1 });
    expect(t.store.tables.agents.get('build')).toBeUndefined();
  });

  it("gives the tracker's own tools no XP", () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/m');
    t.service.recordToolCall('s1', 'c1', 'agent-status', true);
    t.service.flush('test');
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/m'])?.toolCalls).toBe(1);
    expect(t.store.tables.agents.get('build')?.xp ?? 0).toBe(0);
  });

  it('adds only the growth of a streamed message’s tokens and cost', () => {
    t = tempTracker();
    const tokens = (input: number, output: number) => ({ input, output, reasoning: 0, cacheRead: 5, cacheWrite: 0 });
    const setup = { agent: 'plan', model: 'p/m' };
    t.service.recordAssistantMessage('s1', 'm1', setup, tokens(100, 10), 0.01);
    t.service.recordAssistantMessage('s1', 'm1', setup, tokens(100, 40), 0.03);
    t.service.recordAssistantMessage('s1', 'm2', setup, tokens(50, 5), 0.005);
    t.service.flush('test');
    expect(t.store.tables.usage.get(['s1', 'plan', 'p/m'])).toMatchObject({
      messages: 2,
      tokensInput: 150,
      tokensOutput: 45,
      tokensCacheRead: 10,
    });
    expect(t.store.tables.usage.get(['s1', 'plan', 'p/m'])?.cost).toBeCloseTo(0.035, 10);
  });

  it('records a commit once, however often it is seen', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/m');
    expect(t.service.recordCommits('s1', [commit(1)])).toHaveLength(1);
    expect(t.service.recordCommits('s1', [commit(1)])).toHaveLength(0);
    t.service.flush('test');
    expect(t.service.recordCommits('s1', [commit(1)])).toHaveLength(0);
    expect(t.store.tables.agents.get('build')?.commits).toBe(1);
  });

  it('keeps the buffer when a flush fails and writes it on the next trigger', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/m');
    t.service.recordToolCall('s1', 'c1', 'bash', true);
    let fail = true;
    t.store.addIndexer(() => {
      if (fail) throw new Error('disk on fire');
    });
    t.service.recordCommits('s1', [commit(1)]);
    const first = t.service.flush('test');
    expect(first.ok).toBe(false);
    expect(t.store.tables.agents.get('build')).toBeUndefined();
    expect(t.store.tables.commits.getKeysCount()).toBe(0);
    expect(t.service.pendingMutations).toBeGreaterThan(0);
    expect(t.service.flush('again').ok).toBe(false);
    expect(t.logged.filter((l) => l.level === 'error')).toHaveLength(1);
    fail = false;
    expect(t.service.flush('later').ok).toBe(true);
    expect(t.store.tables.agents.get('build')?.commits).toBe(1);
    expect(t.store.tables.commits.getKeysCount()).toBe(1);
  });

  it('flushes by itself once the buffer reaches its size bound', () => {
    t = tempTracker({ flushMaxMutations: 3 });
    for (let i = 0; i < 3; i += 1) {
      t.service.noteModelRequest(`s${i}`, 'build', 'fake/m');
      t.service.recordToolCall(`s${i}`, 'c', 'bash', true);
    }
    expect(t.store.meta().flushes).toBeGreaterThanOrEqual(1);
    expect(t.service.pendingMutations).toBeLessThan(3);
  });

  it('keeps both instances’ increments when two services flush into one database', () => {
    t = tempTracker();
    const other = t.another();
    t.service.noteModelRequest('s1', 'build', 'fake/m');
    other.noteModelRequest('s2', 'build', 'fake/m');
    for (let i = 0; i < 7; i += 1) t.service.recordToolCall('s1', `a${i}`, 'bash', true);
    for (let i = 0; i < 5; i += 1) other.recordToolCall('s2', `b${i}`, 'bash', true);
    t.service.flush('one');
    other.flush('two');
    // 7 + 5 = 12 XP: the first level (10) paid, 2 left.
    expect(t.store.tables.agents.get('build')).toMatchObject({ sp: 2, xp: 2 });
  });

  it('writes a journal entry for a finished turn and nothing for an idle without work', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/m');
    t.service.noteTurnTask('s1', 'Fix   the\nlogin bug');
    t.service.recordToolCall('s1', 'c1', 'bash', true);
    t.service.recordToolCall('s1', 'c2', 'read', false);
    t.service.endTurn('s1');
    t.service.endTurn('s1');
    const entries = [...t.store.tables.activities.getRange()].map((e) => e.value);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ agent: 'build', task: 'Fix the login bug', automatic: true, actions: 'bash x1, read x1' });
    expect(entries[0]?.outcome).toContain('1 failed tool call');
    expect(t.store.meta().flushes).toBe(1);
  });
});

describe('grading from two processes at once', () => {
  it('applies a commit’s grade once when two instances grade it before either flushes', () => {
    t = tempTracker();
    const other = t.another();
    for (const service of [t.service, other]) service.noteModelRequest('s1', 'build', 'fake/m');
    t.service.recordCommits('s1', [commit(1)]);
    t.service.flush('commit');
    const grade = { agent: 'build', project: '/work/project', commit: commit(1).hash, agentGrade: 5 };
    t.service.gradeCommit(grade);
    other.gradeCommit(grade);
    expect(t.service.flush('first').ok).toBe(true);
    expect(other.flush('second').ok).toBe(true);
    // Applied once: CS 60 + 5, XP 5 for the commit + 1 for the grading, SP still 1.
    expect(t.store.tables.agents.get('build')).toMatchObject({ cs: 65, xp: 6, sp: 1 });
    expect(t.store.tables.retrospectives.getKeysCount()).toBe(1);
  });
});

describe('the halt check on the hot path', () => {
  it('sees a halt at once when this instance reports the bug, and another instance’s halt after a flush', () => {
    t = tempTracker();
    const other = t.another();
    t.service.noteModelRequest('s1', 'build', 'fake/m');
    expect(t.service.isHalted('build')).toBe(false);
    t.service.reportBug({ agent: 'build', sessionId: 's1', description: 'broke the login' });
    expect(t.service.isHalted('build')).toBe(true);
    t.service.flush('bug');

    other.noteModelRequest('s2', 'plan', 'fake/m');
    other.recordToolCall('s2', 'c', 'read', true);
    expect(other.isHalted('plan')).toBe(false);
    t.service.noteModelRequest('s3', 'plan', 'fake/m');
    t.service.reportBug({ agent: 'plan', sessionId: 's3', description: 'wrong plan' });
    t.service.flush('bug');
    expect(other.isHalted('plan')).toBe(false);
    other.flush('turn');
    expect(other.isHalted('plan')).toBe(true);
  });
});

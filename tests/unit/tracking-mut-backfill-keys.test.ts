/**
 * What backfill's commits, test runs and turns meet in the tracker: a replayed revert found by the subject
 * git gives it, a backfilled commit kept under its abbreviation found by the full hash (still buffered, or
 * stored, never in another project), a test run an older version counted live under the provider's call id,
 * and a turn of a session no model answered. Real TrackingService on a temporary LMDB.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { GitCommit } from '../../src/contract/host-events.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const P = '/work/p';
const Q = '/work/q';
const T0 = Date.UTC(2025, 4, 1, 9, 0, 0);
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
const commit = (hash: string, message: string, seconds: number): GitCommit => ({ hash, message, files: [], insertions: 0, deletions: 0, timestamp: at(seconds) });

let t: TempTracker;
afterEach(() => t?.dispose());

/** A backfilled session of `agent` in `project`. */
function session(id: string, agent: string, project = P): void {
  t.service.noteSession(id, { project, source: 'backfill' });
  t.service.noteModelRequest(id, agent, 'm');
}

/** Replays one bash call that made `made` (as backfill does: the host's call id and time). */
function replayCommit(sessionId: string, made: GitCommit, callId: string): void {
  t.service.recordCommits(sessionId, [made], { eventId: callId, at: made.timestamp, count: 1 });
}

const stored = (project: string, hash: string) => t.store.tables.commits.get([project, hash]);

describe('a replayed revert, known only by the subject git gives it', () => {
  it("earns nothing when the latest earlier commit of that subject is the agent's own", () => {
    t = tempTracker({}, P);
    session('s1', 'build');
    session('s2', 'plan');
    replayCommit('s1', commit('1111111', 'feat: x', 10), 'c1');
    replayCommit('s1', commit('3333333', 'Revert "feat: x"', 30), 'c3');
    // plan commits the same subject after the revert: not what the revert undid.
    replayCommit('s2', commit('4444444', 'feat: x', 40), 'c4');
    t.service.flush('test');
    expect(stored(P, '3333333')?.noCredit).toBe('self-revert');
  });

  it("earns when the latest earlier commit of that subject is another agent's", () => {
    t = tempTracker({}, P);
    session('s1', 'build');
    session('s2', 'plan');
    replayCommit('s1', commit('1111111', 'feat: x', 10), 'c1');
    replayCommit('s2', commit('2222222', 'feat: x', 20), 'c2');
    replayCommit('s1', commit('3333333', 'Revert "feat: x"', 30), 'c3');
    t.service.flush('test');
    expect(stored(P, '3333333')).toBeDefined();
    expect(stored(P, '3333333')?.noCredit).toBeUndefined();
  });

  it('earns when no tracked commit has that subject, and a message that is not a bare revert subject is left alone', () => {
    t = tempTracker({}, P);
    session('s1', 'build');
    replayCommit('s1', commit('1111111', 'feat: x', 10), 'c1');
    replayCommit('s1', commit('3333333', 'Revert "feat: y"', 30), 'c3');
    replayCommit('s1', commit('5555555', 'Revert "feat: x" and more', 50), 'c5');
    t.service.flush('test');
    expect([stored(P, '3333333')?.noCredit, stored(P, '5555555')?.noCredit]).toEqual([undefined, undefined]);
  });
});

describe('a backfilled commit kept under the seven characters git printed', () => {
  const full = `abcdef1${'0'.repeat(33)}`;

  it('is found by its full hash while still buffered, and only in its own project', () => {
    t = tempTracker({}, P);
    session('s2', 'build', Q);
    replayCommit('s2', commit('abcdef1', 'feat: elsewhere', 5), 'c0');
    session('s1', 'build');
    expect(() => t.service.gradeCommit({ sessionId: 's1', agent: 'build', project: P, commit: full, agentGrade: 5 })).toThrow(/was not made by a tracked session in this project/);
    replayCommit('s1', commit('abcdef1', 'feat: here', 10), 'c1');
    expect(t.service.gradeCommit({ sessionId: 's1', agent: 'build', project: P, commit: full, agentGrade: 5 })).toMatchObject({ commit: 'abcdef1', project: P, task: 'feat: here' });
  });

  it('is found by its full hash once stored, and a commit of a later project under the same abbreviation is not', () => {
    t = tempTracker({}, P);
    session('s1', 'build');
    session('s2', 'build', `${P}x`);
    replayCommit('s2', commit('abcdef1', 'feat: in the project after', 5), 'c0');
    t.service.flush('test');
    expect(() => t.service.gradeAsUser({ project: P, commit: full, grade: 2, via: 'cli' })).toThrow(/no tracked session made a commit/);
    replayCommit('s1', commit('abcdef1', 'feat: here', 10), 'c1');
    t.service.flush('test');
    expect(t.service.gradeAsUser({ project: P, commit: full, grade: 2, via: 'cli' }).grade).toMatchObject({ commit: 'abcdef1', project: P });
  });
});

describe('what an older version counted live without a key', () => {
  it("a test run, its call held under the provider's call id: a backfill counts it no second time", () => {
    t = tempTracker({}, P);
    t.service.noteModelRequest('s1', 'build', 'm');
    // As a version before keyed test runs and part ids recorded it: the call under the provider's id.
    t.service.recordToolCall('s1', 'call_x', 'bash', true, { command: 'npm test' });
    t.service.recordShellCommand('s1', 'npm test', 0);
    t.service.flush('test');
    t.service.forgetSession('s1');
    t.service.noteModelRequest('s1', 'build', 'm');
    t.service.recordShellCommand('s1', 'npm test', 0, { eventId: 'prt_1', legacyEventId: 'call_x', at: at(10) });
    t.service.flush('test');
    expect(t.store.tables.usage.get(['s1', 'build', 'm'])).toMatchObject({ testRuns: 1, testPasses: 1 });
  });
});

describe('a turn no model answered', () => {
  it('is not counted, live', () => {
    t = tempTracker({}, P);
    t.service.noteTurnTask('s9', 'fix the parser', 'msg_1');
    t.service.endTurn('s9');
    expect([...t.store.tables.usage.getRange()].map(({ value }) => value.turns ?? 0)).toEqual([]);
  });
});

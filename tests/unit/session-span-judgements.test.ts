/**
 * A session's time span is when the host ran it. Judgements that come later — the user's grade, the
 * agent's self-grade from a later session, a revert git shows, a bug traced to one of its commits — are
 * counted on its usage record without moving that span, so `report`'s first/last times and the
 * "is a session of this project running?" check of user-only actions keep the host's answer.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { trackedSessionRunning } from '../../src/cli/user-only.js';
import { silentLogger } from '../../src/core/logger.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import type { UsageRecord } from '../../src/core/types.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker | undefined;
afterEach(() => {
  t?.dispose();
  t = undefined;
});

const PROJECT = '/p/shop';
const HASH = 'a'.repeat(40);
const SESSION_AT = '2026-11-20T10:00:00.000Z';

function usageOf(tracker: TempTracker, sessionId: string): UsageRecord | undefined {
  return tracker.store.tables.usage.get([sessionId, 'build', 'fake/alpha']);
}

describe('the time span of a session judged later', () => {
  it('keeps first and last time when the user grades a self-graded commit, git shows a revert and a bug is traced to its commit an hour later', () => {
    t = tempTracker({}, PROJECT);
    let clock = new Date(SESSION_AT);
    const service = new TrackingService({ store: t.store, config: t.config, logger: silentLogger, project: PROJECT, now: () => clock });
    service.noteSession('s1', { project: PROJECT });
    service.noteModelRequest('s1', 'build', 'fake/alpha');
    service.recordToolCall('s1', 'prt_1', 'bash', true);
    service.recordCommits('s1', [{ hash: HASH, parents: ['f'.repeat(40)], message: 'feat: cart', files: ['cart.ts'], insertions: 3, deletions: 0, timestamp: SESSION_AT }], { eventId: 'commit_1' });
    // The agent grades its own commit in the session: the user's grade below makes a pair with it.
    service.gradeCommit({ sessionId: 's1', agent: 'build', project: PROJECT, commit: HASH, agentGrade: 5 });
    expect(service.endTurn('s1').ok).toBe(true);
    expect(usageOf(t, 's1')).toMatchObject({ firstAt: SESSION_AT, lastAt: SESSION_AT });

    // An hour later: the user's grade, then (another session, same agent) a bug traced to the commit, then git's revert.
    clock = new Date('2026-11-20T11:00:00.000Z');
    service.gradeAsUser({ project: PROJECT, commit: HASH, grade: -1, via: 'cli' });
    service.noteSession('s2', { project: PROJECT });
    service.noteModelRequest('s2', 'build', 'fake/beta');
    service.reportBug({ agent: 'build', commit: HASH, sessionId: 's2', project: PROJECT, description: 'the cart loses items' });
    service.recordGitSignals(PROJECT, [{ commit: service.trackedCommits(PROJECT)[0] as never, revertedCommits: 1, followUpFixCommits: 0 }], { head: 'b'.repeat(40), counted: { [HASH]: { reverted: true, followUpFix: false } } });
    expect(service.flush('test').ok).toBe(true);

    const judged = usageOf(t, 's1');
    expect(judged).toMatchObject({ userGradedCommits: 1, userGradeSum: -1, selfGradedCommits: 1, pairedGradedCommits: 1, bugs: 1, revertedCommits: 1, commits: 1, toolCalls: 1 });
    expect([judged?.firstAt, judged?.lastAt]).toEqual([SESSION_AT, SESSION_AT]);
    // A minute after the grade, no session of the project has run for an hour: nothing is "running".
    expect(trackedSessionRunning(t.store, PROJECT, new Date('2026-11-20T11:01:00.000Z'))).toBe(false);
  });

  it('still moves the span for the session\'s own later activity, also over a judgement buffered first', () => {
    t = tempTracker({}, PROJECT);
    let clock = new Date(SESSION_AT);
    const service = new TrackingService({ store: t.store, config: t.config, logger: silentLogger, project: PROJECT, now: () => clock });
    service.noteSession('s1', { project: PROJECT });
    service.noteModelRequest('s1', 'build', 'fake/alpha');
    service.recordCommits('s1', [{ hash: HASH, parents: ['f'.repeat(40)], message: 'feat: cart', files: ['cart.ts'], insertions: 3, deletions: 0, timestamp: SESSION_AT }], { eventId: 'commit_1' });
    expect(service.endTurn('s1').ok).toBe(true);
    clock = new Date('2026-11-20T10:05:00.000Z');
    service.gradeCommit({ sessionId: 's1', agent: 'build', project: PROJECT, commit: HASH, agentGrade: 5 });
    clock = new Date('2026-11-20T10:06:00.000Z');
    service.recordToolCall('s1', 'prt_2', 'bash', true);
    expect(service.endTurn('s1').ok).toBe(true);
    expect(usageOf(t, 's1')).toMatchObject({ selfGradedCommits: 1, toolCalls: 1, firstAt: SESSION_AT, lastAt: '2026-11-20T10:06:00.000Z' });
  });
});

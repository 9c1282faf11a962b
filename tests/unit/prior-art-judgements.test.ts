/**
 * What prior art calls a mistake and what a pattern to follow, for records written the way the
 * plugin writes them (TrackingService on a temporary LMDB): bug reports, the turns of sessions the
 * user graded, and self-praise of a commit that earned nothing.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { GitCommit } from '../../src/contract/host-events.js';
import type { Grade } from '../../src/core/types.js';
import { formatPriorArt } from '../../src/core/search/format.js';
import { QueryService } from '../../src/core/search/service.js';
import type { PatternMatch, PriorArtResult } from '../../src/core/search/types.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const PROJECT = '/projects/invoices';

let t: TempTracker | undefined;
afterEach(() => {
  t?.dispose();
  t = undefined;
});

function tracker(): TempTracker {
  t = tempTracker({}, PROJECT);
  return t;
}

let hashes = 0;
function commitOf(message: string): GitCommit {
  hashes += 1;
  return { hash: hashes.toString(16).padStart(40, 'a'), message, files: ['src/export.ts'], insertions: 3, deletions: 1, timestamp: new Date(Date.UTC(2025, 0, 1, 0, hashes)).toISOString() };
}

/** One turn of `session` by build: its prompt, the commits it made; the turn's journal entry is written at its end. */
function turn(tracked: TempTracker, session: string, prompt: string, commits: GitCommit[]): string[] {
  tracked.service.noteModelRequest(session, 'build', 'fake/a');
  tracked.service.noteTurnTask(session, prompt);
  tracked.service.recordCommits(session, commits, { eventId: `${session}-commits` });
  expect(tracked.service.endTurn(session).ok).toBe(true);
  return commits.map((commit) => commit.hash);
}

function userGrade(tracked: TempTracker, commit: string, grade: Grade): void {
  tracked.service.gradeAsUser({ project: PROJECT, commit, grade, via: 'cli' });
}

function search(tracked: TempTracker, task: string): PriorArtResult {
  expect(tracked.service.flush('test').ok).toBe(true);
  return new QueryService(tracked.store).searchPriorArt({ taskDescription: task, scope: PROJECT });
}

const summary = (matches: PatternMatch[]) => matches.map((m) => [m.source, m.task, m.grade, m.judgedBy]);

describe('prior art judges bug reports', () => {
  it('lists a verified bug report under mistakes, labelled a reported bug, and never as a positive pattern', () => {
    const tracked = tracker();
    turn(tracked, 's1', 'Start the invoice work', []);
    tracked.service.reportBug({ agent: 'build', sessionId: 's1', project: PROJECT, description: 'CSV export of invoices drops the last row' });
    const result = search(tracked, 'csv export of invoices');
    expect(summary(result.positivePatterns)).toEqual([]);
    expect(summary(result.mistakes)).toEqual([['activity', 'Bug reported: CSV export of invoices drops the last row', undefined, 'reported-bug']]);
    const text = formatPriorArt(result);
    expect(text).toContain('- reported bug (activity); agent build');
    expect(text).not.toContain('ungraded activity');
  });

  it('offers an unverified bug report neither as a positive pattern nor as a mistake', () => {
    const tracked = tracker();
    turn(tracked, 's1', 'Start the invoice work', []);
    // Another agent accuses build without naming a commit: the tracker cannot tie it to build's work.
    const { verdict } = tracked.service.reportBug({ agent: 'build', reporter: 'plan', sessionId: 's1', project: PROJECT, description: 'CSV export of invoices drops the last row' });
    expect(verdict.verified).toBe(false);
    const result = search(tracked, 'csv export of invoices');
    expect(result).toEqual({ positivePatterns: [], crossScopePatterns: [], mistakes: [] });
  });
});

describe("prior art judges a turn by the user's grades of its session's commits", () => {
  it('lists the turns of a session whose commit the user graded bad under mistakes, the commit too', () => {
    const tracked = tracker();
    const [bad] = turn(tracked, 's-bad', 'Add the csv export of invoices', [commitOf('add csv export')]);
    userGrade(tracked, bad as string, -1);
    const result = search(tracked, 'csv export invoices');
    expect(summary(result.positivePatterns)).toEqual([]);
    expect(summary(result.mistakes)).toEqual(expect.arrayContaining([
      ['activity', 'Add the csv export of invoices', -1, 'session-commits'],
      ['commit', 'add csv export', -1, undefined],
    ]));
    expect(result.mistakes).toHaveLength(2);
    const text = formatPriorArt(result);
    expect(text).toContain('- activity of a session with a commit the user graded bad (-1); agent build');
    expect(text).not.toContain('ungraded activity');
  });

  it("shows a turn of a session the user graded well as graded, not 'ungraded', and keeps ungraded sessions ungraded", () => {
    const tracked = tracker();
    const [good] = turn(tracked, 's-good', 'Export invoices as csv, streamed', [commitOf('stream the csv export')]);
    userGrade(tracked, good as string, 5);
    turn(tracked, 's-none', 'Export invoices as csv, first try', [commitOf('csv export draft')]);
    const result = search(tracked, 'export invoices csv');
    const activities = result.positivePatterns.filter((m) => m.source === 'activity');
    expect(summary(activities)).toEqual(expect.arrayContaining([
      ['activity', 'Export invoices as csv, streamed', 5, 'session-commits'],
      ['activity', 'Export invoices as csv, first try', undefined, undefined],
    ]));
    expect(activities).toHaveLength(2);
    const text = formatPriorArt(result);
    expect(text).toContain('- activity of a session whose commits the user graded excellence (5); agent build');
    expect(result.mistakes).toEqual([]);
  });

  it('judges a session by its lowest user grade: one commit graded bad beside one graded excellent makes its turns mistakes', () => {
    const tracked = tracker();
    // -1 and 5 sum to what 2 and 2 do: the session's usage record alone cannot tell them apart.
    const [first, second] = turn(tracked, 's-mixed', 'Invoice pdf rendering', [commitOf('render invoice pdf'), commitOf('fix pdf fonts')]);
    userGrade(tracked, first as string, 5);
    userGrade(tracked, second as string, -1);
    const [twoGood, alsoGood] = turn(tracked, 's-even', 'Invoice pdf layout', [commitOf('pdf layout grid'), commitOf('pdf margins')]);
    userGrade(tracked, twoGood as string, 2);
    userGrade(tracked, alsoGood as string, 2);
    const result = search(tracked, 'invoice pdf');
    expect(summary(result.mistakes.filter((m) => m.source === 'activity'))).toEqual([['activity', 'Invoice pdf rendering', -1, 'session-commits']]);
    expect(summary(result.positivePatterns.filter((m) => m.source === 'activity'))).toEqual([['activity', 'Invoice pdf layout', 2, 'session-commits']]);
    // The user's grades judge them, and the match says so.
    expect([...result.mistakes, ...result.positivePatterns].filter((m) => m.source === 'activity').map((m) => m.gradedBy)).toEqual(['user', 'user']);
  });

  it('finds the lowest grade wherever it falls among the commits: bad first, then excellent, then good', () => {
    const tracked = tracker();
    const [first, second, third] = turn(tracked, 's-order', 'Invoice reminders by mail', [commitOf('send reminder mail'), commitOf('reminder template'), commitOf('reminder schedule')]);
    userGrade(tracked, first as string, -1);
    userGrade(tracked, second as string, 5);
    userGrade(tracked, third as string, 2);
    const result = search(tracked, 'invoice reminders mail');
    expect(summary(result.mistakes.filter((m) => m.source === 'activity'))).toEqual([['activity', 'Invoice reminders by mail', -1, 'session-commits']]);
    expect(result.positivePatterns.filter((m) => m.source === 'activity')).toEqual([]);
  });
});

describe('prior art and journal entries that only look like bug reports', () => {
  it('keeps a hand-written entry whose outcome is "bug" a pattern, not a reported bug', () => {
    const tracked = tracker();
    turn(tracked, 's1', 'Start the invoice work', []);
    // An agent's own journal entry: it found a bug and fixed it; no report was filed.
    tracked.service.logActivity({ agent: 'build', sessionId: 's1', project: PROJECT, task: 'Fix the invoice totals rounding', actions: 'rounded per line', outcome: 'bug', decisions: '' });
    tracked.service.logActivity({ agent: 'build', sessionId: 's1', project: PROJECT, task: 'Bug reported: invoice totals rounding, as a note', actions: '', outcome: 'fixed', decisions: '' });
    tracked.service.logActivity({ agent: 'build', sessionId: 's1', project: PROJECT, task: 'Unverified bug report from QA on invoice totals rounding, checked', actions: '', outcome: 'not a bug', decisions: '' });
    tracked.service.logActivity({ agent: 'build', sessionId: 's1', project: PROJECT, task: 'Invoice totals rounding triage', actions: '', outcome: 'unverified bug report', decisions: '' });
    const result = search(tracked, 'invoice totals rounding');
    expect(result.mistakes).toEqual([]);
    expect(summary(result.positivePatterns.filter((m) => m.source === 'activity')).map(([, task, , judgedBy]) => [task, judgedBy]).sort()).toEqual([
      ['Bug reported: invoice totals rounding, as a note', undefined],
      ['Fix the invoice totals rounding', undefined],
      ['Invoice totals rounding triage', undefined],
      ['Unverified bug report from QA on invoice totals rounding, checked', undefined],
    ]);
  });
});


describe('prior art and commits that earned nothing', () => {
  it("does not offer a self-revert the agent graded excellent as a positive pattern", () => {
    const tracked = tracker();
    const [original] = turn(tracked, 's1', 'Invoice numbering', [commitOf('invoice numbering scheme')]);
    const revert = commitOf(`Revert "invoice numbering scheme"\n\nThis reverts commit ${original as string}.`);
    turn(tracked, 's1', 'Undo the invoice numbering', [revert]);
    expect(tracked.store.tables.commits.get([PROJECT, revert.hash])?.noCredit).toBe('self-revert');
    tracked.service.gradeCommit({ agent: 'build', project: PROJECT, sessionId: 's1', commit: revert.hash, agentGrade: 5, task: 'Revert invoice numbering scheme', agentNote: 'flawless revert' });
    const result = search(tracked, 'revert invoice numbering scheme');
    expect(result.positivePatterns.filter((m) => m.source === 'retrospective')).toEqual([]);
    expect(result.mistakes).toEqual([]);
  });
});

describe('prior art judges work git shows reverted', () => {
  it('lists an ungraded commit reverted later, its turn and its self-praise under mistakes, never as positive patterns', () => {
    const tracked = tracker();
    const [wishlist] = turn(tracked, 's1', 'Add a wishlist for saved items', [commitOf('feat: wishlist for saved items')]);
    tracked.service.gradeCommit({ sessionId: 's1', agent: 'build', project: PROJECT, commit: wishlist as string, agentGrade: 5, task: 'wishlist for saved items', agentNote: 'perfect' });
    const [kept] = turn(tracked, 's2', 'Add a wishlist export', [commitOf('feat: wishlist export')]);
    // The user reverted the first commit in a terminal; the CLI's refresh records git's word on it.
    const commit = tracked.service.trackedCommits(PROJECT).find((record) => record.hash === wishlist);
    tracked.service.recordGitSignals(PROJECT, [{ commit: commit as never, revertedCommits: 1, followUpFixCommits: 0 }], {
      head: 'f'.repeat(40),
      counted: { [wishlist as string]: { reverted: true, followUpFix: false }, [kept as string]: { reverted: false, followUpFix: false } },
    });
    const result = search(tracked, 'wishlist for saved items');
    expect(summary(result.positivePatterns)).toEqual([['activity', 'Add a wishlist export', undefined, undefined], ['commit', 'feat: wishlist export', undefined, undefined]]);
    expect(summary(result.mistakes).sort()).toEqual([
      ['activity', 'Add a wishlist for saved items', undefined, 'reverted'],
      ['retrospective', 'wishlist for saved items', undefined, 'reverted'],
    ]);
    const text = formatPriorArt(result);
    expect(text).toContain('- activity of a session with a commit reverted later (ungraded); agent build');
    expect(text).toContain('- retrospective of a commit reverted later (its self-grade outweighed); agent build');
  });
});

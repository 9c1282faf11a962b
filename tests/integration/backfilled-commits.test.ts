/**
 * Commits a backfill recorded under the abbreviated hash `git commit` printed, on a real repository
 * and a temporary LMDB: found again by the full hash git gives (the user's grade of one, and the
 * project's history saying it was reverted).
 */
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { HostSession } from '../../src/core/backfill/history.js';
import { readProjectCommits } from '../../src/core/backfill/commit-witness.js';
import { replaySession } from '../../src/core/backfill/replay-session.js';
import { gitSignals, refreshGitSignals } from '../../src/core/outcomes/git-outcomes.js';
import type { CommitRecord } from '../../src/core/types.js';
import { repoWithCommits as repoIn } from '../helpers/printed-commits.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const tempDir = useTempDirs('agent-tracker-backfilled-commits-');
let tracker: TempTracker | undefined;
afterEach(() => {
  tracker?.dispose();
  tracker = undefined;
});

const T0 = Date.UTC(2025, 0, 10, 9, 0, 0);
const NO_TOKENS = { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 };
/** The commits are made at the times the past session's calls end (commit-witness.ts: a replayed commit must be made during its call). */
const repoWithCommits = (subjects: string[]) => repoIn(tempDir(), subjects, subjects.map((_, i) => T0 + 2000 + i));
const dated = (at: number) => ({ ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_DATE: `@${Math.floor(at / 1000)} +0000`, GIT_COMMITTER_DATE: `@${Math.floor(at / 1000)} +0000` });

/** One past session of `build` whose bash calls made the commits, as OpenCode's store keeps it. */
function pastSession(repo: string, printed: string[]): HostSession {
  return {
    id: 'ses_past',
    directory: repo,
    title: 'past work',
    createdAt: T0,
    updatedAt: T0 + 60_000,
    messages: [
      {
        id: 'msg_1',
        role: 'assistant',
        agent: 'build',
        model: 'anthropic/claude',
        tokens: NO_TOKENS,
        cost: 0,
        createdAt: T0 + 1000,
        tools: printed.map((output, i) => ({ callId: `prt_${i}`, tool: 'bash', status: 'completed', command: `git commit -m "change ${i}"`, output, exit: 0, endedAt: T0 + 2000 + i })),
      },
    ],
  };
}

describe('a commit recorded by backfill under its abbreviated hash', () => {
  it('takes the user\'s grade given by the full hash git resolves (as `agent-tracker grade HEAD 5` does)', async () => {
    const { repo, printed } = repoWithCommits(['feat: add parser']);
    tracker = tempTracker({}, repo);
    replaySession(tracker.service, pastSession(repo, printed), repo, undefined, await readProjectCommits(repo));
    tracker.service.flush('backfill');
    const full = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
    expect([...tracker.store.tables.commits.getKeys()]).toEqual([[repo, full.slice(0, 7)]]);

    const graded = tracker.service.gradeAsUser({ project: repo, commit: full, grade: 5, note: 'good', via: 'cli' });

    expect(graded.grade).toMatchObject({ commit: full.slice(0, 7), agent: 'build', model: 'anthropic/claude', sessionId: 'ses_past', grade: 5 });
    expect(tracker.store.tables.usage.get(['ses_past', 'build', 'anthropic/claude'])).toMatchObject({ userGradedCommits: 1, userGradeSum: 5 });
  });

  it('counts as reverted when the project\'s history reverts it, as the same commit tracked live does', async () => {
    const { repo, printed } = repoWithCommits(['feat: add parser', 'feat: add lexer']);
    tracker = tempTracker({}, repo);
    replaySession(tracker.service, pastSession(repo, printed), repo, undefined, await readProjectCommits(repo));
    tracker.service.flush('backfill');
    execFileSync('git', ['revert', '--no-edit', 'HEAD~1'], { cwd: repo, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });

    expect(await refreshGitSignals(tracker.service, repo)).toBe(1);
    tracker.service.flush('git signals');

    expect(tracker.store.tables.usage.get(['ses_past', 'build', 'anthropic/claude'])).toMatchObject({ commits: 2, revertedCommits: 1 });
  });

  it('made by `git revert` of its own commit is imported, and earns nothing, as the same revert tracked live', async () => {
    const { repo, printed } = repoWithCommits(['feat: add parser']);
    const revert = execFileSync('git', ['revert', '--no-edit', 'HEAD'], { cwd: repo, encoding: 'utf8', env: dated(T0 + 5000) });
    const session = pastSession(repo, printed);
    session.messages[0]?.tools.push({ callId: 'prt_revert', tool: 'bash', status: 'completed', command: 'git revert --no-edit HEAD', output: revert, exit: 0, endedAt: T0 + 5000 });
    tracker = tempTracker({}, repo);
    replaySession(tracker.service, session, repo, undefined, await readProjectCommits(repo));
    tracker.service.flush('backfill');

    const reverting = execFileSync('git', ['rev-parse', '--short=7', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
    expect(tracker.store.tables.usage.get(['ses_past', 'build', 'anthropic/claude'])).toMatchObject({ commits: 2 });
    expect(tracker.store.tables.commits.get([repo, reverting])).toMatchObject({ message: 'Revert "feat: add parser"', noCredit: 'self-revert' });
    // One commit earned: the parser; its revert earned nothing.
    expect(tracker.store.tables.agents.get('build')?.commits).toBe(1);
  });

  it('gets no signal when its abbreviation matches two commits of the branch', () => {
    const branch = ['abcdef1000', 'abcdef1999', 'fedcba0000'].map((hash, i) => ({ hash, subject: i === 2 ? 'Revert "feat: add parser"' : 'feat: add parser', body: '', oldLines: [], newLines: [] }));
    const recorded = (hash: string): CommitRecord => ({ hash, message: 'feat: add parser', files: [], insertions: 0, deletions: 0, timestamp: new Date(T0).toISOString(), project: '/p', agent: 'build', model: 'anthropic/claude', sessionId: 'ses_past' });
    expect(gitSignals(branch, [recorded('abcdef1')], 'fedcba0000', undefined).signals).toEqual([]);
    expect(gitSignals(branch, [recorded('abcdef19')], 'fedcba0000', undefined).signals).toMatchObject([{ revertedCommits: 1 }]);
  });
});

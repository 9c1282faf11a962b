/**
 * A backfilled session earns as live tracking does: at most EARNING_COMMITS_PER_TURN credited commits
 * per turn of the user's, the limit starting again at each prompt. A replay of a session with several
 * turns used to carry one turn's count into the next, so its later commits earned nothing.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { HostMessage, HostSession } from '../../src/core/backfill/history.js';
import { readProjectCommits } from '../../src/core/backfill/commit-witness.js';
import { replaySession } from '../../src/core/backfill/replay-session.js';
import { EARNING_COMMITS_PER_TURN } from '../../src/core/integrity/commit-credit.js';
import type { CommitRecord } from '../../src/core/types.js';
import { repoWithCommits as repoIn } from '../helpers/printed-commits.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const tempDir = useTempDirs('agent-tracker-backfill-turn-credit-');
let tracker: TempTracker | undefined;
afterEach(() => {
  tracker?.dispose();
  tracker = undefined;
});

const NO_TOKENS = { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 };

/** A repository of `count` commits, each changing its own file; what `git commit` printed for each. */
const repoWithCommits = (count: number) => repoIn(tempDir(), Array.from({ length: count }, (_, i) => `feat: change ${i}`));

/**
 * A session of turns: each a prompt, then one answer whose bash calls made that turn's commits. It
 * starts now, after the commits were made: a call of unknown start holds a commit made before it ended.
 */
function sessionOfTurns(repo: string, turns: string[][]): HostSession {
  const messages: HostMessage[] = [];
  const start = Date.now();
  let at = start;
  turns.forEach((printed, t) => {
    messages.push({ id: `msg_user_${t}`, role: 'user', prompt: `do part ${t}`, tokens: NO_TOKENS, cost: 0, createdAt: (at += 1000), tools: [] });
    messages.push({
      id: `msg_answer_${t}`,
      role: 'assistant',
      agent: 'build',
      model: 'anthropic/claude',
      tokens: NO_TOKENS,
      cost: 0,
      createdAt: (at += 1000),
      completedAt: (at += 5000),
      tools: printed.map((output, i) => ({ callId: `prt_${t}_${i}`, tool: 'bash', status: 'completed', command: `git commit -m "change ${t}.${i}"`, output, exit: 0, endedAt: at - 100 + i })),
    });
  });
  return { id: 'ses_turns', directory: repo, title: 'work in turns', createdAt: start, updatedAt: at, messages };
}

describe('a backfilled session of several turns', () => {
  it('earns each turn its own commits, as live tracking does', async () => {
    const perTurn = [3, 3, 4];
    const { repo, printed } = repoWithCommits(perTurn.reduce((a, b) => a + b, 0));
    const turns: string[][] = [];
    let next = 0;
    for (const count of perTurn) {
      turns.push(printed.slice(next, next + count));
      next += count;
    }
    tracker = tempTracker({}, repo);
    replaySession(tracker.service, sessionOfTurns(repo, turns), repo, undefined, await readProjectCommits(repo));
    tracker.service.flush('backfill');

    const expectedCredited = perTurn.reduce((sum, count) => sum + Math.min(count, EARNING_COMMITS_PER_TURN), 0);
    const commits = [...tracker.store.tables.commits.getRange()].map(({ value }) => value as CommitRecord);
    expect(commits).toHaveLength(printed.length);
    expect(commits.filter((commit) => commit.noCredit === undefined)).toHaveLength(expectedCredited);
    expect(tracker.store.tables.agents.get('build')).toMatchObject({ commits: expectedCredited });
  });

  it('still holds one turn to the limit', async () => {
    const count = EARNING_COMMITS_PER_TURN + 2;
    const { repo, printed } = repoWithCommits(count);
    tracker = tempTracker({}, repo);
    replaySession(tracker.service, sessionOfTurns(repo, [printed]), repo, undefined, await readProjectCommits(repo));
    tracker.service.flush('backfill');

    const commits = [...tracker.store.tables.commits.getRange()].map(({ value }) => value as CommitRecord);
    expect(commits.filter((commit) => commit.noCredit === 'turn-limit')).toHaveLength(count - EARNING_COMMITS_PER_TURN);
    expect(tracker.store.tables.agents.get('build')).toMatchObject({ commits: EARNING_COMMITS_PER_TURN });
  });
});

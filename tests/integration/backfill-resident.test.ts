/**
 * A long import gives back the database pages it mapped as the file grows: lmdb maps the whole file,
 * and without closing the map every page written and read stays in the importing process's memory (a
 * backfill of 3,000 sessions held all 48 MiB of its file). That Store.releaseMappedPages gives them
 * back is store-mapped-pages.test.ts; here, that runBackfill asks for it after each of its flushes while
 * the process is over its resident budget, never below it (a release reopens the file), and that the
 * import is whole across the new maps.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import type { HistorySource, HostSession } from '../../src/core/backfill/history.js';
import { runBackfill } from '../../src/core/backfill/run.js';
import { repoOfManyCommits } from '../helpers/printed-commits.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const tempDir = useTempDirs('agent-tracker-resident-');
let tracker: TempTracker | undefined;
afterEach(() => {
  tracker?.dispose();
  tracker = undefined;
});

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const SESSIONS = 45;
const COMMITS_PER_SESSION = 25;

/** What `git commit` printed for a call of session `index`: a message of its own. */
interface Printed {
  message: string;
  at: number;
  hash: string;
}

/**
 * The commits of every session, made in a real repository at the times their calls end (a replayed
 * commit is recorded only when git holds it, made during its call: commit-witness.ts). Printed with ten
 * characters of their hash, as git does when seven would not be unique.
 */
function commitsIn(repo: string, sessions: number): Printed[][] {
  const made = Array.from({ length: sessions }, (_s, index) =>
    Array.from({ length: COMMITS_PER_SESSION }, (_c, c) => ({ message: randomBytes(16).toString('hex'), at: T0 + index * 60_000 + c })),
  );
  const hashes = repoOfManyCommits(repo, made.flat());
  return made.map((commits, index) => commits.map((commit, c) => ({ ...commit, hash: (hashes[index * COMMITS_PER_SESSION + c] ?? '').slice(0, 10) })));
}

function session(repo: string, index: number, printed: Printed[]): HostSession {
  const at = T0 + index * 60_000;
  const tools = printed.map(({ message, hash, at: ended }, c) => ({
    callId: `call_${index}_${c}`, tool: 'bash', status: 'completed', command: `git commit -am "${message}"`, output: `[main ${hash}] ${message}\n 1 file changed\n`, exit: 0, endedAt: ended,
  }));
  return {
    id: `ses_${String(index).padStart(5, '0')}`,
    directory: repo,
    title: `session ${index}`,
    createdAt: at,
    updatedAt: at + 30_000,
    messages: [{ id: `msg_${index}`, role: 'assistant', agent: 'build', model: 'anthropic/claude', tokens: { input: 100, output: 20, reasoning: 0, cacheRead: 0, cacheWrite: 0 }, cost: 0.01, createdAt: at, tools }],
  };
}

function source(count: number): HistorySource {
  const repo = tempDir();
  const printed = commitsIn(repo, count);
  return {
    description: 'generated sessions',
    uniqueMessageIds: true,
    count: () => count,
    earliestCreated: () => (count > 0 ? T0 : undefined),
    async *sessions() {
      for (let i = 0; i < count; i += 1) yield session(repo, i, printed[i] ?? []);
    },
    close: () => undefined,
  };
}

function expectAllImported(summary: { sessions: number; commits: number }, t: TempTracker): void {
  expect(summary).toMatchObject({ sessions: SESSIONS, commits: SESSIONS * COMMITS_PER_SESSION });
  expect(t.store.tables.commits.getKeysCount()).toBe(SESSIONS * COMMITS_PER_SESSION);
  expect(t.store.tables.usage.getKeysCount()).toBe(SESSIONS);
}

/** How many times the import flushed (its own flushes, named 'backfill'). */
function backfillFlushes(flush: { mock: { calls: unknown[][] } }): number {
  return flush.mock.calls.filter(([reason]) => reason === 'backfill').length;
}

describe('a long backfill', () => {
  it('over its resident budget, gives back the mapped pages after each of its flushes, and imports everything', async () => {
    tracker = tempTracker();
    const releases = jest.spyOn(tracker.store, 'releaseMappedPages');
    const flushes = jest.spyOn(tracker.service, 'flush');
    // Any process is over a budget of one byte.
    const summary = await runBackfill(tracker.service, source(SESSIONS), { residentBudget: 1 });
    // A flush amid the import and the last one: a release after each.
    expect(backfillFlushes(flushes)).toBeGreaterThanOrEqual(2);
    expect(releases.mock.calls.length).toBe(backfillFlushes(flushes));
    expectAllImported(summary, tracker);
  });

  it('under its resident budget, keeps the map it has (no release), and imports everything', async () => {
    tracker = tempTracker();
    const releases = jest.spyOn(tracker.store, 'releaseMappedPages');
    const flushes = jest.spyOn(tracker.service, 'flush');
    // No process is over a budget of a petabyte.
    const summary = await runBackfill(tracker.service, source(SESSIONS), { residentBudget: 2 ** 50 });
    expect(backfillFlushes(flushes)).toBeGreaterThanOrEqual(2);
    expect(releases).not.toHaveBeenCalled();
    expectAllImported(summary, tracker);
  });
});

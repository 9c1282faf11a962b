/**
 * The `report` answer on a temporary store: the selection it was asked for (project, source, time
 * zone) echoed and applied, and each session's task taken from its first prompt.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { reportAnswer } from '../../src/core/answers/report.js';
import { GIT_SIGNAL_CACHE_PREFIX } from '../../src/contract/git-signal-cache.js';
import { buildReport } from '../../src/core/report/report.js';
import { usageRecord } from '../helpers/usage-record.js';
import { silentLogger } from '../../src/core/logger.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import type { Mutation } from '../../src/core/store/mutations.js';
import type { UsageSource } from '../../src/core/types.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker | undefined;
afterEach(() => {
  t?.dispose();
  t = undefined;
});

interface Session {
  project?: string;
  source?: UsageSource;
  /** The prompts of its turns, in order, each a minute after the one before. */
  prompts?: string[];
}

function session(tracker: TempTracker, id: string, at: string, options: Session = {}): void {
  const clock = new Date(at);
  const project = options.project ?? '/p/app';
  const service = new TrackingService({ store: tracker.store, config: tracker.config, logger: silentLogger, project, now: () => clock });
  service.noteSession(id, { project, ...(options.source ? { source: options.source } : {}) });
  service.noteModelRequest(id, 'build', 'fake/a');
  for (const [turn, prompt] of (options.prompts ?? ['']).entries()) {
    if (prompt !== '') service.noteTurnTask(id, prompt);
    service.recordToolCall(id, `prt_${id}_${turn}`, 'bash', true);
    expect(service.endTurn(id).ok).toBe(true);
    clock.setTime(clock.getTime() + 60_000);
  }
}

describe('report answer', () => {
  it('echoes an unfiltered request as nulls and counts every session', async () => {
    t = tempTracker();
    session(t, 's1', '2025-03-01T10:00:00.000Z');
    session(t, 's2', '2025-03-02T10:00:00.000Z', { project: '/p/api' });
    const answer = await reportAnswer(t.store, { by: 'setup' });
    expect({ ...answer, rows: answer.rows.length, totals: answer.totals.sessions }).toEqual({
      by: 'setup',
      project: null,
      since: null,
      until: null,
      source: null,
      period: null,
      timeZone: null,
      rows: 1,
      totals: 2,
      suspectUserActions: [],
    });
  });

  it("keeps only one project's work when asked, and says so", async () => {
    t = tempTracker();
    session(t, 's1', '2025-03-01T10:00:00.000Z');
    session(t, 's2', '2025-03-02T10:00:00.000Z', { project: '/p/api' });
    session(t, 's3', '2025-03-03T10:00:00.000Z', { project: '/p/api' });
    const answer = await reportAnswer(t.store, { by: 'project', project: '/p/api' });
    expect(answer.project).toBe('/p/api');
    expect(answer.rows.map((row) => [row.project, row.sessions])).toEqual([['/p/api', 2]]);
  });

  it('keeps only live or only backfilled sessions when asked, and says so', async () => {
    t = tempTracker();
    session(t, 's1', '2025-03-01T10:00:00.000Z');
    session(t, 's2', '2025-03-02T10:00:00.000Z', { source: 'backfill' });
    const backfilled = await reportAnswer(t.store, { by: 'setup', source: 'backfill' });
    expect([backfilled.source, backfilled.totals.sessions, backfilled.totals.backfilledSessions]).toEqual(['backfill', 1, 1]);
    const live = await reportAnswer(t.store, { by: 'setup', source: 'live' });
    expect([live.source, live.totals.sessions, live.totals.liveSessions]).toEqual(['live', 1, 1]);
  });

  it("labels periods in this machine's time zone unless one is named, and names no zone without a period", async () => {
    t = tempTracker();
    session(t, 's1', '2025-03-01T10:00:00.000Z');
    const here = Intl.DateTimeFormat().resolvedOptions().timeZone;
    expect((await reportAnswer(t.store, { by: 'setup', period: 'month' })).timeZone).toBe(here);
    expect((await reportAnswer(t.store, { by: 'setup', period: 'month', timeZone: 'Asia/Tokyo' })).timeZone).toBe('Asia/Tokyo');
    expect((await reportAnswer(t.store, { by: 'setup', timeZone: 'Asia/Tokyo' })).timeZone).toBeNull();
    expect((await reportAnswer(t.store, { by: 'setup', timeZone: 'Asia/Tokyo' })).rows.map((row) => row.period)).toEqual([null]);
  });

  it('labels each period in the time zone asked for', async () => {
    t = tempTracker();
    // 20:00 UTC on 31 March is already 1 April in Tokyo (UTC+9), and still 31 March west of Tokyo down to UTC-20.
    session(t, 's1', '2025-03-31T20:00:00.000Z');
    expect((await reportAnswer(t.store, { by: 'setup', period: 'month', timeZone: 'Asia/Tokyo' })).rows.map((row) => row.period)).toEqual(['2025-04']);
    expect((await reportAnswer(t.store, { by: 'setup', period: 'month', timeZone: 'UTC' })).rows.map((row) => row.period)).toEqual(['2025-03']);
  });

  it("takes a session's earliest turn entry of any agent, skipping an entry without a task", async () => {
    t = tempTracker();
    const turn = (agent: string, at: string, task: string): Mutation => ({
      table: 'activities',
      key: [agent, at, `${agent}-${at}`],
      value: { timestamp: at, task, actions: '', outcome: 'success', decisions: '', agent, model: 'fake/a', project: '/p/app', automatic: true, sessionId: 's1' },
    });
    const usage: Mutation = {
      table: 'usage',
      key: ['s1', 'build', 'fake/a'],
      init: { sessionId: 's1', agent: 'build', model: 'fake/a', project: '/p/app', firstAt: '2025-03-01T10:00:00.000Z' },
      counters: { toolCalls: 1 },
      lastAt: '2025-03-01T10:05:00.000Z',
    };
    // Stored by agent first: build's later entry is read before plan's earlier one. An imported entry may have an empty task.
    t.store.applyBatch(
      [usage, turn('build', '2025-03-01T10:02:00.000Z', 'build the coupon form'), turn('plan', '2025-03-01T10:01:00.000Z', 'plan the coupons'), turn('plan', '2025-03-01T10:00:00.000Z', '')],
      t.config.rules,
      '2025-03-01T10:05:00.000Z',
    );
    expect((await reportAnswer(t.store, { by: 'session' })).rows.map((row) => [row.session, row.task])).toEqual([['s1', 'plan the coupons']]);
  });

  it('gives each session the first prompt it was given as its task, not a note an agent logged before it', async () => {
    t = tempTracker();
    session(t, 'two-turns', '2025-03-01T10:00:00.000Z', { prompts: ['fix the login redirect', 'now add a test for it'] });
    session(t, 'no-prompt', '2025-03-03T10:00:00.000Z');
    // An agent's own journal entry for the session, dated before its first turn: not the user's task.
    const early = new Date('2025-02-01T00:00:00.000Z');
    const agent = new TrackingService({ store: t.store, config: t.config, logger: silentLogger, project: '/p/app', now: () => early });
    agent.logActivity({ agent: 'build', project: '/p/app', sessionId: 'two-turns', task: 'a note the agent wrote', outcome: 'success' });
    expect(agent.flush('note').ok).toBe(true);
    const answer = await reportAnswer(t.store, { by: 'session' });
    expect(answer.rows.map((row) => [row.session, row.task])).toEqual([
      ['no-prompt', '(no prompt recorded)'],
      ['two-turns', 'fix the login redirect'],
    ]);
    // Other groupings carry no task.
    expect((await reportAnswer(t.store, { by: 'setup' })).rows.map((row) => row.task)).toEqual([null]);
  });
});

describe('revert and follow-up-fix rates, and whether git was read', () => {
  it("has rates only for projects whose git history was read (or where a revert or fix was found), '-' elsewhere", async () => {
    t = tempTracker();
    for (const [id, project] of [['s1', '/p/read'], ['s2', '/p/never']] as const) {
      const service = new TrackingService({ store: t.store, config: t.config, logger: silentLogger, project, now: () => new Date('2025-03-01T10:00:00.000Z') });
      service.noteSession(id, { project });
      service.noteModelRequest(id, 'build', 'fake/a');
      service.recordCommits(id, [{ hash: (id === 's1' ? 'a' : 'b').repeat(40), message: 'feat: one', files: ['a.txt'], insertions: 1, deletions: 0, timestamp: '2025-03-01T10:00:00.000Z' }]);
      expect(service.endTurn(id).ok).toBe(true);
    }
    // What a read of /p/read's git history leaves (src/cli/git-signals.ts): its bookkeeping under the git-signal prefix.
    t.store.putRecords([{ table: 'meta', key: `${GIT_SIGNAL_CACHE_PREFIX}/p/read`, value: { head: 'c'.repeat(40) } }]);
    const rows = (await reportAnswer(t.store, { by: 'project' })).rows;
    expect(rows.map((row) => [row.project, row.commits, row.revertRate, row.followUpFixRate])).toEqual([
      ['/p/never', 1, null, null],
      ['/p/read', 1, 0, 0],
    ]);
  });

  it('has rates where a follow-up fix was counted even without a read recorded here (an import)', () => {
    const report = buildReport({ usage: [usageRecord({ agent: 'build', model: 'm/a', project: '/p/far', commits: 4, followUpFixCommits: 1 })] }, 'setup');
    expect(report.rows[0]).toMatchObject({ revertRate: 0, followUpFixRate: 0.25 });
  });
});

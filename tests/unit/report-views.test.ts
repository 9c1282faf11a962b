/**
 * The report's daily views: rows per day, week or month in a time zone, `--until`, one row per
 * session with its task, a default table that fits 100 columns, and a legend for every column.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { reportAnswer } from '../../src/core/answers/report.js';
import { loadHistory } from '../../src/core/report/history.js';
import { checkTimeZone, periodLabeller } from '../../src/core/report/periods.js';
import { buildReport } from '../../src/core/report/report.js';
import { reportLegend, reportToTable, REPORT_FIELDS } from '../../src/core/report/table.js';
import { silentLogger } from '../../src/core/logger.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { InputError } from '../../src/core/validation.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker | undefined;
afterEach(() => {
  t?.dispose();
  t = undefined;
});

/** A session of `agent` on `model` that began at `at`, with one tool call and the turn's prompt. */
function session(tracker: TempTracker, id: string, at: string, agent = 'build', model = 'fake/a', prompt = `task of ${id}`): void {
  const clock = new Date(at);
  const service = new TrackingService({ store: tracker.store, config: tracker.config, logger: silentLogger, project: '/p/app', now: () => clock });
  service.noteSession(id, { project: '/p/app' });
  service.noteModelRequest(id, agent, model);
  service.noteTurnTask(id, prompt);
  service.recordToolCall(id, `prt_${id}`, 'bash', true);
  expect(service.endTurn(id).ok).toBe(true);
}

describe('periods', () => {
  it.each([
    // 23:30 UTC on Sunday 2 March is already Monday 3 March in Berlin (UTC+1).
    ['2025-03-02T23:30:00.000Z', 'UTC', { day: '2025-03-02', week: '2025-02-24', month: '2025-03' }],
    ['2025-03-02T23:30:00.000Z', 'Europe/Berlin', { day: '2025-03-03', week: '2025-03-03', month: '2025-03' }],
    // 03:00 UTC on 1 April is still 31 March in New York (UTC-4).
    ['2025-04-01T03:00:00.000Z', 'America/New_York', { day: '2025-03-31', week: '2025-03-31', month: '2025-03' }],
  ] as const)('labels %s in %s by its local day, Monday-first week and month', (iso, zone, expected) => {
    expect({ day: periodLabeller('day', zone)(iso), week: periodLabeller('week', zone)(iso), month: periodLabeller('month', zone)(iso) }).toEqual(expected);
  });

  it('refuses a time zone it does not know, naming it', () => {
    expect(() => checkTimeZone('Mars/Olympus')).toThrow(InputError);
    expect(() => checkTimeZone('Mars/Olympus')).toThrow(/unknown time zone "Mars\/Olympus"/);
  });
});

describe('report views', () => {
  it('gives one row per period and setup, oldest first, and cuts by when the work began (--since/--until)', async () => {
    t = tempTracker();
    session(t, 's1', '2025-03-03T10:00:00.000Z');
    session(t, 's2', '2025-03-04T10:00:00.000Z');
    session(t, 's3', '2025-03-11T10:00:00.000Z', 'build', 'fake/b');
    const weekly = await reportAnswer(t.store, { by: 'setup', period: 'week', timeZone: 'UTC' });
    expect(weekly.rows.map((row) => [row.period, row.model, row.sessions])).toEqual([
      ['2025-03-03', 'fake/a', 2],
      ['2025-03-10', 'fake/b', 1],
    ]);
    expect([weekly.period, weekly.timeZone]).toEqual(['week', 'UTC']);
    const window = await reportAnswer(t.store, { by: 'setup', since: '2025-03-04T00:00:00.000Z', until: '2025-03-11T00:00:00.000Z' });
    expect(window.rows.map((row) => [row.model, row.sessions])).toEqual([['fake/a', 1]]);
    // A grade given later does not bring an old session back into a recent window.
    expect(loadHistory(t.store, { since: '2025-03-05T00:00:00.000Z' }).usage.map((record) => record.sessionId)).toEqual(['s3']);
  });

  it('gives one row per session, newest first, with its first task', async () => {
    t = tempTracker();
    session(t, 'old', '2025-03-01T10:00:00.000Z', 'build', 'fake/a', 'fix the login redirect');
    session(t, 'new', '2025-03-02T10:00:00.000Z', 'plan', 'fake/b', 'plan the billing page');
    const answer = await reportAnswer(t.store, { by: 'session' });
    expect(answer.rows.map((row) => [row.session, row.agent, row.model, row.task])).toEqual([
      ['new', 'plan', 'fake/b', 'plan the billing page'],
      ['old', 'build', 'fake/a', 'fix the login redirect'],
    ]);
    expect(reportToTable({ by: answer.by, rows: answer.rows, totals: answer.totals }).split('\n')[0]).toMatch(/^session\s+task\s+agent\s+model\s+fail%/);
  });

  it('fits the default table in 100 columns however long the names, cutting them with an ellipsis', () => {
    t = tempTracker();
    const long = `provider/${'very-long-model-name-'.repeat(4)}2025`;
    session(t, 's1', '2025-03-01T10:00:00.000Z', 'a-rather-long-agent-name', long);
    session(t, 's2', '2025-03-01T11:00:00.000Z', 'build', 'fake/a');
    const report = buildReport(loadHistory(t.store));
    const lines = reportToTable(report).split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
    expect(lines.some((line) => line.includes('…'))).toBe(true);
    const wide = reportToTable(report, { wide: true });
    expect(wide).toContain(long);
  });

  it('cuts long folders at their start and long models in their middle, so rows that differ at the end still differ', () => {
    t = tempTracker();
    const folder = '/home/someone/code/clients/acme-corporation/monorepo/packages';
    const model = (version: string) => `provider/very-long-model-name-for-the-table-${version}`;
    const rows = [
      ['s1', `${folder}/web`, model('2025-01')],
      ['s2', `${folder}/api`, model('2025-06')],
    ] as const;
    for (const [id, project, name] of rows) {
      const service = new TrackingService({ store: t.store, config: t.config, logger: silentLogger, project, now: () => new Date('2025-03-01T10:00:00.000Z') });
      service.noteSession(id, { project });
      service.noteModelRequest(id, 'build', name);
      service.recordToolCall(id, `prt_${id}`, 'bash', true);
      expect(service.endTurn(id).ok).toBe(true);
    }
    const lines = reportToTable(buildReport(loadHistory(t.store), 'project')).split('\n');
    const body = lines.slice(2, 4);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
    // Each row's folder cell ends with its own last name; its model cell keeps the provider and the version.
    expect(body.map((line) => line.match(/…\S*\/(web|api)\b/)?.[1]).sort()).toEqual(['api', 'web']);
    expect(body.map((line) => line.match(/provider\/\S*…\S*(2025-0[16])/)?.[1]).sort()).toEqual(['2025-01', '2025-06']);
  });

  it('explains every column of the table, and the CSV carries every field', () => {
    const legend = reportLegend().split('\n');
    for (const title of ['period', 'session', 'task', 'agent', 'model', 'sessions', 'fail%', 'commits', 'user#', 'user', 'self-user', 'revert%', 'fix%', 'undo%', 'tests%', 'tokens', 'cost', 'cost/commit']) {
      expect(legend.some((line) => line.startsWith(`${title} `))).toBe(true);
    }
    expect(REPORT_FIELDS).toEqual(expect.arrayContaining(['period', 'session', 'task', 'liveSessions', 'backfilledSessions', 'messages']));
  });
});

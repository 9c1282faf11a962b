/**
 * The report's rows are sums of the usage records: on a generated history (grades of every
 * provenance, records from before provenance, both sources, several projects and sessions), each
 * grouping's rows and totals carry exactly what the test adds up from the records itself.
 */
import { describe, expect, it } from '@jest/globals';
import { buildReport } from '../../src/core/report/report.js';
import type { ReportGrouping, ReportRow } from '../../src/core/report/report.js';
import type { UsageRecord } from '../../src/core/types.js';

const AGENTS = ['build', 'plan', 'review'];
const MODELS = ['anthropic/claude', 'openai/gpt'];
const PROJECTS = ['/p/one', '/p/two', '/p/three'];

/** A small deterministic generator: the same history on every run. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

function history(count: number): UsageRecord[] {
  const random = generator(33);
  const int = (below: number) => Math.floor(random() * below);
  const records: UsageRecord[] = [];
  for (let i = 0; i < count; i += 1) {
    const legacy = i % 7 === 0;
    const day = 1 + (i % 28);
    const record: UsageRecord = {
      sessionId: `ses_${Math.floor(i / 2)}`,
      ...(i % 3 === 0 ? {} : { source: i % 3 === 1 ? 'live' : 'backfill' }),
      agent: AGENTS[int(AGENTS.length)] ?? 'build',
      model: MODELS[int(MODELS.length)] ?? 'openai/gpt',
      project: PROJECTS[int(PROJECTS.length)] ?? '/p/one',
      firstAt: `2026-02-${String(day).padStart(2, '0')}T0${int(10)}:00:00.000Z`,
      lastAt: `2026-02-${String(day).padStart(2, '0')}T1${int(10)}:00:00.000Z`,
      toolCalls: int(50),
      toolFailures: int(5),
      commands: int(3),
      commits: int(6),
      pushes: int(2),
      bugs: int(2),
      gradedCommits: legacy ? 1 + int(3) : 0,
      gradeSum: legacy ? int(12) : 0,
      csDelta: int(9) - 4,
      messages: int(40),
      tokensInput: int(10_000),
      tokensOutput: int(2_000),
      tokensReasoning: int(500),
      tokensCacheRead: int(30_000),
      tokensCacheWrite: int(4_000),
      cost: int(400) / 100,
      trackerFileEdits: int(2),
      ...(legacy
        ? {}
        : {
            userGradedCommits: int(3),
            userGradeSum: int(10),
            selfGradedCommits: int(4),
            selfGradeSum: int(16),
            reportedGradedCommits: int(2),
            reportedGradeSum: int(6),
            turns: 1 + int(5),
            undoneTurns: int(2),
            testRuns: int(4),
            testPasses: int(3),
            revertedCommits: int(2),
          }),
    };
    records.push(record);
  }
  return records;
}

/** The grades of a record as the report defines them, worked out here from the record's own fields. */
function grades(record: UsageRecord): { graded: number; sum: number; mean: number } {
  if (record.userGradedCommits === undefined && record.selfGradedCommits === undefined && record.reportedGradedCommits === undefined && record.gradedCommits > 0) {
    // From before provenance: the mean of both grades per commit, read as agent-reported.
    return { graded: record.gradedCommits, sum: record.gradeSum / 2, mean: record.gradeSum / 2 / record.gradedCommits };
  }
  const counts = [record.userGradedCommits ?? 0, record.selfGradedCommits ?? 0, record.reportedGradedCommits ?? 0];
  const sum = (record.userGradeSum ?? 0) + (record.selfGradeSum ?? 0) + (record.reportedGradeSum ?? 0);
  const all = counts[0]! + counts[1]! + counts[2]!;
  return { graded: Math.max(...counts), sum, mean: all > 0 ? sum / all : 0 };
}

const KEYS: Record<ReportGrouping, (record: UsageRecord) => string> = {
  setup: (r) => `${r.agent}|${r.model}`,
  agent: (r) => r.agent,
  model: (r) => r.model,
  project: (r) => `${r.agent}|${r.model}|${r.project}`,
  session: (r) => `${r.sessionId}|${r.agent}|${r.model}|${r.project}`,
};

function rowKey(by: ReportGrouping, row: ReportRow): string {
  const parts = { setup: [row.agent, row.model], agent: [row.agent], model: [row.model], project: [row.agent, row.model, row.project], session: [row.session, row.agent, row.model, row.project] }[by];
  return parts.join('|');
}

describe('report rows as sums of the usage records', () => {
  const records = history(600);

  it.each(['setup', 'agent', 'model', 'project', 'session'] as const)('by %s: every row and the totals hold the sums of their records', (by) => {
    const report = buildReport({ usage: records }, by);
    const groups = new Map<string, UsageRecord[]>();
    for (const record of records) {
      const key = KEYS[by](record);
      groups.set(key, [...(groups.get(key) ?? []), record]);
    }
    expect(report.rows.map((row) => rowKey(by, row)).sort()).toEqual([...groups.keys()].sort());
    const check = (row: ReportRow, members: UsageRecord[]) => {
      const sum = (field: (r: UsageRecord) => number) => members.reduce((total, r) => total + field(r), 0);
      const graded = sum((r) => grades(r).graded);
      const gradeSum = sum((r) => grades(r).mean * grades(r).graded);
      expect(row.sessions).toBe(new Set(members.map((r) => r.sessionId)).size);
      expect(row.backfilledSessions).toBe(new Set(members.filter((r) => r.source === 'backfill').map((r) => r.sessionId)).size);
      expect(row.liveSessions).toBe(new Set(members.filter((r) => r.source !== 'backfill').map((r) => r.sessionId)).size);
      expect(row.tokens).toBe(sum((r) => r.tokensInput + r.tokensOutput + r.tokensReasoning + r.tokensCacheRead + r.tokensCacheWrite));
      expect(row.toolCalls).toBe(sum((r) => r.toolCalls));
      expect(row.toolFailures).toBe(sum((r) => r.toolFailures));
      expect(row.messages).toBe(sum((r) => r.messages));
      expect(row.pushes).toBe(sum((r) => r.pushes));
      expect(row.bugs).toBe(sum((r) => r.bugs));
      expect(row.trackerFileEdits).toBe(sum((r) => r.trackerFileEdits ?? 0));
      expect([row.tokensInput, row.tokensOutput, row.tokensReasoning, row.tokensCacheRead, row.tokensCacheWrite]).toEqual([
        sum((r) => r.tokensInput),
        sum((r) => r.tokensOutput),
        sum((r) => r.tokensReasoning),
        sum((r) => r.tokensCacheRead),
        sum((r) => r.tokensCacheWrite),
      ]);
      expect(row.commits).toBe(sum((r) => r.commits));
      // No price catalog here: a record stored at cost 0 with tokens spent is of unknown cost, left out of the sum.
      const unknown = members.filter((r) => !(r.cost > 0) && r.tokensInput + r.tokensOutput + r.tokensReasoning + r.tokensCacheRead + r.tokensCacheWrite > 0);
      expect(row.costUnknownSessions).toBe(new Set(unknown.map((r) => r.sessionId)).size);
      expect(row.costEstimated).toBe(false);
      if (unknown.length === 0 || members.some((r) => r.cost > 0)) expect(row.cost).toBeCloseTo(sum((r) => r.cost), 9);
      else expect(row.cost).toBeNull();
      expect(row.csChange).toBe(sum((r) => r.csDelta));
      expect(row.gradedCommits).toBe(graded);
      if (graded > 0) expect(row.meanGrade).toBeCloseTo(gradeSum / graded, 9);
      else expect(row.meanGrade).toBeNull();
      expect(row.userGradedCommits).toBe(sum((r) => r.userGradedCommits ?? 0));
      expect(row.testRuns).toBe(sum((r) => r.testRuns ?? 0));
      expect(row.firstAt).toBe(members.map((r) => r.firstAt).sort()[0]);
      expect(row.lastAt).toBe(members.map((r) => r.lastAt).sort().at(-1));
    };
    for (const row of report.rows) check(row, groups.get(rowKey(by, row)) ?? []);
    check(report.totals, records);
  });

  /** The order a reader sees, worked out here: periods oldest first, sessions newest first (then by id), then agent, model, project. */
  function expectedOrder(rows: readonly ReportRow[]): ReportRow[] {
    const text = (value: string | null) => value ?? '';
    return [...rows].sort((a, b) => {
      if (text(a.period) !== text(b.period)) return text(a.period) < text(b.period) ? -1 : 1;
      if (text(a.session) !== text(b.session)) {
        if (text(a.firstAt) !== text(b.firstAt)) return text(a.firstAt) > text(b.firstAt) ? -1 : 1;
        return text(a.session) < text(b.session) ? -1 : 1;
      }
      for (const name of ['agent', 'model', 'project'] as const) if (text(a[name]) !== text(b[name])) return text(a[name]) < text(b[name]) ? -1 : 1;
      return 0;
    });
  }

  it.each(['setup', 'project', 'session'] as const)('by %s: rows come in the order a reader expects, and each key once', (by) => {
    const rows = buildReport({ usage: records }, by).rows;
    expect(rows.map((row) => rowKey(by, row))).toEqual(expectedOrder(rows).map((row) => rowKey(by, row)));
    expect(new Set(rows.map((row) => rowKey(by, row))).size).toBe(rows.length);
  });

  it('by week: a row per week and setup, weeks oldest first, each holding the records of the week they began in', () => {
    const rows = buildReport({ usage: records }, 'setup', { period: 'week', timeZone: 'UTC' }).rows;
    // February 2026 in UTC: Monday the 2nd, 9th, 16th and 23rd; the 1st (a Sunday) is in the week of January 26th.
    const mondayOf = (iso: string) => {
      const day = Number(iso.slice(8, 10));
      return day === 1 ? '2026-01-26' : `2026-02-${String(2 + 7 * Math.floor((day - 2) / 7)).padStart(2, '0')}`;
    };
    const expected = new Map<string, number>();
    for (const record of records) {
      const key = `${mondayOf(record.firstAt)}|${record.agent}|${record.model}`;
      expected.set(key, (expected.get(key) ?? 0) + record.commits);
    }
    expect(rows.map((row) => `${row.period}|${row.agent}|${row.model}`)).toEqual([...expected.keys()].sort());
    expect(rows.map((row) => row.commits)).toEqual([...expected.keys()].sort().map((key) => expected.get(key)));
  });
});

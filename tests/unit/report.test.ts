import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { activityOverTime } from '../../src/core/report/activity.js';
import { loadHistory } from '../../src/core/report/history.js';
import { buildReport } from '../../src/core/report/report.js';
import type { ReportRow } from '../../src/core/report/report.js';
import { reportToCsv, reportToTable } from '../../src/core/report/table.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';
import { block, gradePairs, gradedCount, recordHistory, totalCommits } from '../helpers/synthetic-history.js';
import type { WorkBlock } from '../helpers/synthetic-history.js';

const RUST = '/projects/rust-api';
const WEB = '/projects/web-app';
const START = new Date('2025-03-01T09:00:00Z');
const HOUR_MS = 3_600_000;

const BLOCKS: WorkBlock[] = [
  block({ agent: 'build', model: 'anthropic/claude', project: RUST, sessions: 5, commitsPerSession: 3, toolCallsPerSession: 12, failuresPerSession: 1, bugs: 1, pushesPerSession: 1, costPerSession: 0.4, grades: [[5, 2], [2, 2], [1, 2]] }),
  block({ agent: 'build', model: 'openai/gpt', project: RUST, sessions: 3, commitsPerSession: 1, toolCallsPerSession: 8, failuresPerSession: 3, bugs: 2, costPerSession: 0.1, grades: [[-1, 1]] }),
  block({ agent: 'build', model: 'anthropic/claude', project: WEB, sessions: 2, commitsPerSession: 2, toolCallsPerSession: 6, failuresPerSession: 0, costPerSession: 0.3, grades: [[2, 5]], gradedCommits: 3 }),
  block({ agent: 'plan', model: 'anthropic/claude', project: WEB, sessions: 4, commitsPerSession: 0, toolCallsPerSession: 5, failuresPerSession: 2, costPerSession: 0.05, grades: [] }),
  block({ agent: 'general', model: 'openai/gpt', project: WEB, sessions: 2, commitsPerSession: 1, toolCallsPerSession: 4, failuresPerSession: 0, costPerSession: 0.2, grades: [] }),
];

const TOKENS_PER_SESSION = (b: WorkBlock) => Object.values(b.tokensPerSession).reduce((sum, value) => sum + value, 0);

/** What a report row must say for these blocks, computed from the blocks alone. */
function expectedRow(blocks: readonly WorkBlock[]) {
  const sum = (f: (b: WorkBlock) => number) => blocks.reduce((total, b) => total + f(b), 0);
  const toolCalls = sum((b) => b.sessions * b.toolCallsPerSession);
  const toolFailures = sum((b) => b.sessions * b.failuresPerSession);
  const commits = sum(totalCommits);
  const bugs = sum((b) => b.bugs);
  const graded = sum(gradedCount);
  const gradeTotal = sum((b) => gradePairs(b).reduce((total, [agent, user]) => total + (agent + user) / 2, 0));
  const cost = sum((b) => b.sessions * b.costPerSession);
  return {
    sessions: sum((b) => b.sessions),
    toolCalls,
    toolFailures,
    failureRate: toolCalls > 0 ? toolFailures / toolCalls : null,
    commits,
    pushes: sum((b) => b.sessions * b.pushesPerSession),
    bugs,
    bugsPerCommit: commits > 0 ? bugs / commits : null,
    gradedCommits: graded,
    meanGrade: graded > 0 ? gradeTotal / graded : null,
    tokens: sum((b) => b.sessions * TOKENS_PER_SESSION(b)),
    tokensInput: sum((b) => b.sessions * b.tokensPerSession.input),
    cost,
    costPerCommit: commits > 0 ? cost / commits : null,
  };
}

function expectRowToMatch(row: ReportRow | undefined, blocks: readonly WorkBlock[]): void {
  expect(row).toBeDefined();
  const expected = expectedRow(blocks);
  for (const [field, value] of Object.entries(expected)) {
    const actual = row?.[field as keyof ReportRow];
    if (value === null) expect({ field, actual }).toEqual({ field, actual: null });
    else expect({ field, actual: Number((actual as number).toFixed(9)) }).toEqual({ field, actual: Number(value.toFixed(9)) });
  }
}

function rowOf(rows: readonly ReportRow[], parts: Partial<Pick<ReportRow, 'agent' | 'model' | 'project'>>): ReportRow | undefined {
  return rows.find((row) => Object.entries(parts).every(([key, value]) => row[key as 'agent'] === value));
}

describe('report', () => {
  let tracker: TempTracker;

  beforeEach(() => {
    tracker = tempTracker();
    recordHistory(BLOCKS, { store: tracker.store, config: tracker.config, start: START });
  });
  afterEach(() => tracker.dispose());

  it('gives one row per agent × model whose numbers match the recorded work', () => {
    const report = buildReport(loadHistory(tracker.store));
    const setups = [...new Set(BLOCKS.map((b) => `${b.agent}|${b.model}`))];
    expect(report.rows).toHaveLength(setups.length);
    for (const setup of setups) {
      const [agent, model] = setup.split('|');
      expectRowToMatch(rowOf(report.rows, { agent, model }), BLOCKS.filter((b) => b.agent === agent && b.model === model));
      expect(rowOf(report.rows, { agent, model })?.project).toBeNull();
    }
    expectRowToMatch(report.totals, BLOCKS);
  });

  it('splits by project, by agent and by model', () => {
    const history = loadHistory(tracker.store);
    const byProject = buildReport(history, 'project');
    for (const b of BLOCKS) {
      expectRowToMatch(rowOf(byProject.rows, { agent: b.agent, model: b.model, project: b.project }), BLOCKS.filter((o) => o.agent === b.agent && o.model === b.model && o.project === b.project));
    }
    const byAgent = buildReport(history, 'agent');
    for (const agent of new Set(BLOCKS.map((b) => b.agent))) {
      const row = rowOf(byAgent.rows, { agent });
      expectRowToMatch(row, BLOCKS.filter((b) => b.agent === agent));
      expect(row?.model).toBeNull();
      // Only grades move CS, so an agent's CS change is its stored CS minus where every agent starts.
      const stored = tracker.store.tables.agents.get(agent);
      expect(row?.csChange).toBeCloseTo((stored?.cs ?? 0) - tracker.config.rules.initialCs, 9);
    }
    const byModel = buildReport(history, 'model');
    for (const model of new Set(BLOCKS.map((b) => b.model))) {
      expectRowToMatch(rowOf(byModel.rows, { model }), BLOCKS.filter((b) => b.model === model));
    }
  });

  it('keeps only one project with --project and only later work with --since', () => {
    const onlyWeb = buildReport(loadHistory(tracker.store, { project: WEB }));
    expect(new Set(onlyWeb.rows.map((row) => `${row.agent}|${row.model}`))).toEqual(new Set(BLOCKS.filter((b) => b.project === WEB).map((b) => `${b.agent}|${b.model}`)));
    expectRowToMatch(onlyWeb.totals, BLOCKS.filter((b) => b.project === WEB));

    // Sessions are one hour apart; start at the third block's first session.
    const skipped = (BLOCKS[0]?.sessions ?? 0) + (BLOCKS[1]?.sessions ?? 0);
    const since = new Date(START.getTime() + skipped * HOUR_MS).toISOString();
    const later = buildReport(loadHistory(tracker.store, { since }));
    expectRowToMatch(later.totals, BLOCKS.slice(2));
  });

  it('gives money in JSON and CSV as the sum a person would write, without floating-point dust', () => {
    // Ten sessions at $0.10 each sum to 0.9999999999999999 in floating point; the user paid $1.
    const t = tempTracker();
    try {
      recordHistory([block({ agent: 'build', model: 'm/dust', project: RUST, sessions: 10, commitsPerSession: 2, costPerSession: 0.1 })], { store: t.store, config: t.config, start: START });
      expect(Array.from({ length: 10 }, () => 0.1).reduce((a, b) => a + b, 0)).not.toBe(1);
      const row = rowOf(buildReport(loadHistory(t.store)).rows, { model: 'm/dust' });
      expect([row?.cost, row?.costPerCommit]).toEqual([1, 0.05]);
      expect(reportToCsv(buildReport(loadHistory(t.store)).rows).split('\r\n')[1]).toContain(',1,0.05,');
    } finally {
      t.dispose();
    }
  });

  it('writes CSV with the same rows and fields as JSON, quoting where needed', () => {
    const report = buildReport(loadHistory(tracker.store), 'project');
    const csv = reportToCsv(report.rows).trimEnd().split('\r\n');
    const header = csv[0]?.split(',') ?? [];
    expect(csv).toHaveLength(report.rows.length + 1);
    report.rows.forEach((row, i) => {
      const cells = csv[i + 1]?.split(',') ?? [];
      header.forEach((field, column) => {
        const value = row[field as keyof ReportRow];
        expect({ field, cell: cells[column] }).toEqual({ field, cell: value === null ? '' : String(value) });
      });
    });
    const tricky = reportToCsv([{ ...report.totals, agent: 'a,"b"' }]).split('\r\n')[1];
    expect(tricky).toContain(',"a,""b""",');
  });

  it('keeps a text cell a spreadsheet would run as a formula as text, and negative numbers as numbers', () => {
    const report = buildReport(loadHistory(tracker.store));
    const fields = reportToCsv([]).trimEnd().split(',');
    const cellsOf = (row: ReportRow) => reportToCsv([row]).trimEnd().split('\r\n')[1]?.split(',') ?? [];
    const base = { ...report.totals, agent: 'build', csChange: -7 };
    for (const start of ['=', '+', '-', '@', '\t']) {
      const cells = cellsOf({ ...base, task: `${start}HYPERLINK(1)` });
      expect(cells[fields.indexOf('task')]).toBe(`'${start}HYPERLINK(1)`);
      expect(cells[fields.indexOf('csChange')]).toBe('-7');
    }
    expect(cellsOf({ ...base, task: 'fix -the- parser' })[fields.indexOf('task')]).toBe('fix -the- parser');
  });

  it('aligns the terminal table and adds a totals line: the main columns by default, every column with wide', () => {
    const report = buildReport(loadHistory(tracker.store));
    for (const [wide, header] of [
      [false, /^agent\s+model\s+sessions\s+fail%\s+commits\s+user#\s+user\s+revert%\s+tokens\s+cost$/],
      [true, /^agent\s+model\s+sessions\s+tools\s+fail%\s+commits\s+pushes/],
    ] as const) {
      const lines = reportToTable(report, { wide }).split('\n');
      expect(lines).toHaveLength(report.rows.length + 3);
      expect(lines[0]).toMatch(header);
      expect(lines[lines.length - 1]).toMatch(/^total\s/);
      // Right-aligned numbers: every data line ends in the same column as the header's last title.
      const width = lines[0]?.length;
      for (const line of lines.slice(2)) expect(line.length).toBe(width);
    }
  });

  it('counts commits per day and agent for the activity chart', () => {
    const activity = activityOverTime(loadHistory(tracker.store));
    expect(activity.period).toBe('day');
    const total = activity.series.reduce((sum, line) => sum + line.commits.reduce((a, b) => a + b, 0), 0);
    expect(total).toBe(BLOCKS.reduce((sum, b) => sum + totalCommits(b), 0));
    expect(activity.series.map((line) => line.agent)).toEqual([...new Set(BLOCKS.map((b) => b.agent))].sort());
  });

  it('reports nothing, without failing, on an empty database', () => {
    const empty = tempTracker();
    try {
      const report = buildReport(loadHistory(empty.store));
      expect(report.rows).toEqual([]);
      expect(report.totals.sessions).toBe(0);
      expect(report.totals.meanGrade).toBeNull();
    } finally {
      empty.dispose();
    }
  });
});

/**
 * Report rows as text: an aligned table for the terminal and CSV for spreadsheets. CSV columns are
 * the JSON field names in the same order, so `--json` and `--csv` carry the same rows.
 */
import { formatNumber } from './numbers.js';
import type { Report, ReportGrouping, ReportRow } from './report.js';
import { OUTCOME_FIELDS } from './outcome-columns.js';

/** Every field of a report row, in output order: the CSV's columns, the same fields as `--json` (checked below). */
export const REPORT_FIELDS = [
  'agent',
  'model',
  'project',
  'sessions',
  'liveSessions',
  'backfilledSessions',
  'messages',
  'toolCalls',
  'toolFailures',
  'failureRate',
  'commits',
  'pushes',
  'bugs',
  'bugsPerCommit',
  'gradedCommits',
  'meanGrade',
  'csChange',
  'trackerFileEdits',
  'tokensInput',
  'tokensOutput',
  'tokensReasoning',
  'tokensCacheRead',
  'tokensCacheWrite',
  'tokens',
  'cost',
  'costPerCommit',
  'firstAt',
  'lastAt',
  ...OUTCOME_FIELDS,
] as const satisfies readonly (keyof ReportRow)[];

/** A field of the JSON row the CSV would lack fails the build here. */
type MissingFromCsv = Exclude<keyof ReportRow, (typeof REPORT_FIELDS)[number]>;
const everyFieldInCsv: [MissingFromCsv] extends [never] ? true : MissingFromCsv = true;
void everyFieldInCsv;

const CSV_NEEDS_QUOTES = /[",\r\n]/;

function csvCell(value: string | number | null): string {
  if (value === null) return '';
  const text = String(value);
  return CSV_NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** RFC 4180 CSV: a header of field names, then one line per row; an empty cell is a null. */
export function reportToCsv(rows: readonly ReportRow[]): string {
  const lines = [REPORT_FIELDS.join(',')];
  for (const row of rows) lines.push(REPORT_FIELDS.map((field) => csvCell(row[field])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

interface TableColumn {
  title: string;
  value: (row: ReportRow) => string;
  numeric: boolean;
}

const DASH = '-';
const THOUSAND = 1000;
const MILLION = 1_000_000;

const count = formatNumber;

function percent(value: number | null): string {
  return value === null ? DASH : `${(value * 100).toFixed(1)}%`;
}

function decimal(value: number | null, digits = 2): string {
  return value === null ? DASH : value.toFixed(digits);
}

function money(value: number | null): string {
  return value === null ? DASH : `$${value.toFixed(value !== 0 && Math.abs(value) < 1 ? 3 : 2)}`;
}

/** Token counts shortened to k / M so the table stays narrow. */
function compact(value: number): string {
  if (value >= MILLION) return `${(value / MILLION).toFixed(1)}M`;
  if (value >= THOUSAND) return `${(value / THOUSAND).toFixed(1)}k`;
  return String(value);
}

function signedDecimal(value: number): string {
  return value > 0 ? `+${value.toFixed(2)}` : value.toFixed(2);
}

function signed(value: number): string {
  return value > 0 ? `+${count(value)}` : count(value);
}

const DIMENSION_COLUMNS: Readonly<Record<'agent' | 'model' | 'project', TableColumn>> = {
  agent: { title: 'agent', value: (row) => row.agent ?? 'all', numeric: false },
  model: { title: 'model', value: (row) => row.model ?? 'all', numeric: false },
  project: { title: 'project', value: (row) => row.project ?? 'all', numeric: false },
};

const METRIC_COLUMNS: readonly TableColumn[] = [
  { title: 'sessions', value: (row) => count(row.sessions), numeric: true },
  { title: 'tools', value: (row) => count(row.toolCalls), numeric: true },
  { title: 'fail%', value: (row) => percent(row.failureRate), numeric: true },
  { title: 'commits', value: (row) => count(row.commits), numeric: true },
  { title: 'pushes', value: (row) => count(row.pushes), numeric: true },
  { title: 'bugs/commit', value: (row) => decimal(row.bugsPerCommit), numeric: true },
  { title: 'graded', value: (row) => count(row.gradedCommits), numeric: true },
  { title: 'grade', value: (row) => decimal(row.meanGrade), numeric: true },
  { title: 'user#', value: (row) => count(row.userGradedCommits), numeric: true },
  { title: 'user', value: (row) => decimal(row.meanUserGrade), numeric: true },
  { title: 'self', value: (row) => decimal(row.meanSelfGrade), numeric: true },
  { title: 'self-user', value: (row) => (row.selfUserGap === null ? DASH : signedDecimal(row.selfUserGap)), numeric: true },
  { title: 'relayed', value: (row) => (row.agentReportedGradedCommits === 0 ? DASH : `${decimal(row.meanAgentReportedGrade)}/${count(row.agentReportedGradedCommits)}`), numeric: true },
  { title: 'revert%', value: (row) => percent(row.revertRate), numeric: true },
  { title: 'fix%', value: (row) => percent(row.followUpFixRate), numeric: true },
  { title: 'undo%', value: (row) => percent(row.undoRate), numeric: true },
  { title: 'tests%', value: (row) => percent(row.testPassRate), numeric: true },
  { title: 'CS', value: (row) => signed(row.csChange), numeric: true },
  { title: 'cfg edits', value: (row) => count(row.trackerFileEdits), numeric: true },
  { title: 'tokens', value: (row) => compact(row.tokens), numeric: true },
  { title: 'cost', value: (row) => money(row.cost), numeric: true },
  { title: 'cost/commit', value: (row) => money(row.costPerCommit), numeric: true },
];

const SHOWN_DIMENSIONS: Readonly<Record<ReportGrouping, readonly ('agent' | 'model' | 'project')[]>> = {
  setup: ['agent', 'model'],
  agent: ['agent'],
  model: ['model'],
  project: ['agent', 'model', 'project'],
};

/** Aligns cells in columns: text to the left, numbers to the right, two spaces between. */
export function alignColumns(header: readonly string[], lines: readonly (readonly string[])[], numeric: readonly boolean[]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...lines.map((line) => (line[i] ?? '').length)));
  const render = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (numeric[i] ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [render(header), widths.map((width) => '-'.repeat(width)).join('  '), ...lines.map(render)].join('\n');
}

/** The report as an aligned terminal table, with a totals line when there is more than one row. */
export function reportToTable(report: Report): string {
  const columns = [...SHOWN_DIMENSIONS[report.by].map((name) => DIMENSION_COLUMNS[name]), ...METRIC_COLUMNS];
  const lines = report.rows.map((row) => columns.map((column) => column.value(row)));
  if (report.rows.length > 1) {
    const totals = columns.map((column, i) => (i === 0 ? 'total' : column.numeric ? column.value(report.totals) : ''));
    lines.push(totals);
  }
  return alignColumns(
    columns.map((column) => column.title),
    lines,
    columns.map((column) => column.numeric),
  );
}

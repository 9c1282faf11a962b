/**
 * Report rows as text: an aligned table for the terminal and CSV for spreadsheets. CSV columns are
 * the JSON field names in the same order, so `--json` and `--csv` carry the same rows.
 */
import { dollarDecimals, formatDollars, formatNumber, formatTokenCount, plural } from './numbers.js';
import type { Report, ReportGrouping, ReportRow } from './report.js';
import { OUTCOME_FIELDS } from './outcome-columns.js';

/** Every field of a report row, in output order: the CSV's columns, the same fields as `--json` (checked below). */
export const REPORT_FIELDS = [
  'period',
  'session',
  'task',
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
  'costEstimated',
  'costUnknownSessions',
  'firstAt',
  'lastAt',
  ...OUTCOME_FIELDS,
] as const satisfies readonly (keyof ReportRow)[];

/** A field of the JSON row the CSV would lack fails the build here. */
type MissingFromCsv = Exclude<keyof ReportRow, (typeof REPORT_FIELDS)[number]>;
const everyFieldInCsv: [MissingFromCsv] extends [never] ? true : MissingFromCsv = true;
void everyFieldInCsv;

const CSV_NEEDS_QUOTES = /[",\r\n]/;

/** A text cell a spreadsheet would run as a formula (`=HYPERLINK(…)` in a task someone typed). */
const CSV_FORMULA_START = /^[=+\-@\t\r]/;

function csvCell(value: string | number | boolean | null): string {
  if (value === null) return '';
  // A text that would start a formula is kept as text with a leading apostrophe (numbers never are text).
  const text = typeof value === 'string' && CSV_FORMULA_START.test(value) ? `'${value}` : String(value);
  return CSV_NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** RFC 4180 CSV: a header of field names, then one line per row; an empty cell is a null. */
export function reportToCsv(rows: readonly ReportRow[]): string {
  const lines = [REPORT_FIELDS.join(',')];
  for (const row of rows) lines.push(REPORT_FIELDS.map((field) => csvCell(row[field])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** What a cell may need from its whole column: the decimals of the money columns (one rule per column). */
interface ColumnContext {
  costDecimals: number;
  perCommitDecimals: number;
}

interface TableColumn {
  title: string;
  value: (row: ReportRow, column: ColumnContext) => string;
  numeric: boolean;
  /** What the column means, for the legend (`report --explain`). */
  legend: string;
  /** Shown only in the full table (`--wide`). */
  wide?: boolean;
  /**
   * Where a value too long for the default table loses its characters: at the end (a prompt, an id
   * typed by its start), in the middle (a model: its provider and its version both tell it apart),
   * or at the start (a folder: its last names do). Default: the end.
   */
  cut?: Cut;
}

type Cut = 'end' | 'middle' | 'start';

const DASH = '-';
/** Marks a cost that is (partly) the price catalog's estimate, and one that leaves unknown usage out. */
export const ESTIMATED_MARK = '~';
const PARTIAL_MARK = '+';
const UNKNOWN = 'unknown';

const count = formatNumber;

function percent(value: number | null): string {
  return value === null ? DASH : `${(value * 100).toFixed(1)}%`;
}

function decimal(value: number | null, digits = 2): string {
  return value === null ? DASH : value.toFixed(digits);
}

/** A row's cost: "~$9.000" estimated, "$7.50+" leaving usage of unknown cost out, "unknown" when none is known. */
function costCell(row: ReportRow, decimals: number): string {
  if (row.cost === null) return UNKNOWN;
  return `${row.costEstimated ? ESTIMATED_MARK : ''}${formatDollars(row.cost, decimals)}${row.costUnknownSessions > 0 ? PARTIAL_MARK : ''}`;
}

/** Cost per commit: "unknown" when commits were made but part of their cost is unknown, `none` (default "-") without commits. */
export function perCommitCell(row: ReportRow, decimals: number, none = DASH): string {
  if (row.costPerCommit === null) return row.commits > 0 && row.costUnknownSessions > 0 ? UNKNOWN : none;
  return `${row.costEstimated ? ESTIMATED_MARK : ''}${formatDollars(row.costPerCommit, decimals)}`;
}

/** The money columns' decimals, from every value shown in them (rows and totals). */
function columnContext(rows: readonly ReportRow[]): ColumnContext {
  return { costDecimals: dollarDecimals(rows.map((row) => row.cost)), perCommitDecimals: dollarDecimals(rows.map((row) => row.costPerCommit)) };
}

/** What the cost marks in the table mean, when it shows any: one line each, under the table. */
function costNotes(shown: readonly ReportRow[], totals: ReportRow): string[] {
  const notes: string[] = [];
  if (shown.some((row) => row.costEstimated)) notes.push(`${ESTIMATED_MARK} estimated: OpenCode stored a cost of 0 while tokens were spent; priced from the genai-prices catalog, as recommend does`);
  const unknown = totals.costUnknownSessions;
  if (unknown === 0) return notes;
  const why = `the cost of ${plural(unknown, 'session')} is unknown (OpenCode stored 0 and the price catalog does not know the model)`;
  // "Partial" only where a sum shown holds known cost beside the unknown; otherwise the cells say unknown.
  const partial = [...shown, totals].some((row) => row.cost !== null && row.costUnknownSessions > 0);
  notes.push(partial ? `${PARTIAL_MARK} partial: ${why}; the sum leaves ${unknown === 1 ? 'it' : 'them'} out` : `${UNKNOWN}: ${why}`);
  return notes;
}

function signedDecimal(value: number): string {
  return value > 0 ? `+${value.toFixed(2)}` : value.toFixed(2);
}

function signed(value: number): string {
  return value > 0 ? `+${count(value)}` : count(value);
}

type Dimension = 'period' | 'session' | 'task' | 'agent' | 'model' | 'project';

const DIMENSION_COLUMNS: Readonly<Record<Dimension, TableColumn>> = {
  period: { title: 'period', value: (row) => row.period ?? '', numeric: false, legend: 'the day, the week (its Monday) or the month the work began in (--period, --tz)' },
  session: { title: 'session', value: (row) => row.session ?? '', numeric: false, legend: "OpenCode's session id (--by session)" },
  task: { title: 'task', value: (row) => row.task ?? '', numeric: false, legend: "the session's first prompt (--by session)" },
  agent: { title: 'agent', value: (row) => row.agent ?? 'all', numeric: false, legend: 'the OpenCode agent (build, plan, ...)' },
  model: { title: 'model', value: (row) => row.model ?? 'all', numeric: false, legend: 'provider/model the agent ran on', cut: 'middle' },
  project: { title: 'project', value: (row) => row.project ?? 'all', numeric: false, legend: 'the project folder', cut: 'start' },
};

const METRIC_COLUMNS: readonly TableColumn[] = [
  { title: 'sessions', value: (row) => count(row.sessions), numeric: true, legend: 'OpenCode sessions (a session with two setups counts for each)' },
  { title: 'tools', value: (row) => count(row.toolCalls), numeric: true, legend: 'tool calls', wide: true },
  { title: 'fail%', value: (row) => percent(row.failureRate), numeric: true, legend: 'tool calls that failed (non-zero exit or an error), per tool call' },
  { title: 'commits', value: (row) => count(row.commits), numeric: true, legend: 'commits made' },
  { title: 'pushes', value: (row) => count(row.pushes), numeric: true, legend: 'git pushes that succeeded', wide: true },
  { title: 'bugs/commit', value: (row) => decimal(row.bugsPerCommit), numeric: true, legend: 'bug reports charged to the setup, per commit', wide: true },
  { title: 'graded', value: (row) => count(row.gradedCommits), numeric: true, legend: 'commits with any grade (yours, self, relayed)', wide: true },
  { title: 'grade', value: (row) => decimal(row.meanGrade), numeric: true, legend: 'mean of every grade (yours, self, relayed: -1..5); the columns after it keep them apart', wide: true },
  { title: 'user#', value: (row) => count(row.userGradedCommits), numeric: true, legend: 'commits you graded (/grade, agent-tracker grade)' },
  { title: 'user', value: (row) => decimal(row.meanUserGrade), numeric: true, legend: 'mean of your grades (-1 bad, 1 neutral, 2 good, 5 excellence)' },
  { title: 'self', value: (row) => decimal(row.meanSelfGrade), numeric: true, legend: "mean of the agent's grades of its own commits", wide: true },
  { title: 'self-user', value: (row) => (row.selfUserGap === null ? DASH : signedDecimal(row.selfUserGap)), numeric: true, legend: 'how much the setup overrates itself: self-grade minus user grade on the commits both graded', wide: true },
  { title: 'relayed', value: (row) => (row.agentReportedGradedCommits === 0 ? DASH : `${decimal(row.meanAgentReportedGrade)}/${count(row.agentReportedGradedCommits)}`), numeric: true, legend: '"user grades" an agent relayed (old records): mean/count', wide: true },
  { title: 'revert%', value: (row) => percent(row.revertRate), numeric: true, legend: 'commits later reverted, per commit' },
  { title: 'fix%', value: (row) => percent(row.followUpFixRate), numeric: true, legend: 'commits followed by a fix to the same lines, per commit', wide: true },
  { title: 'undo%', value: (row) => percent(row.undoRate), numeric: true, legend: 'turns you undid in OpenCode, per turn', wide: true },
  { title: 'tests%', value: (row) => percent(row.testPassRate), numeric: true, legend: 'test runs that passed, per test run', wide: true },
  { title: 'CS', value: (row) => signed(row.csChange), numeric: true, legend: 'communication score gained or lost through grades', wide: true },
  { title: 'cfg edits', value: (row) => count(row.trackerFileEdits), numeric: true, legend: "tool calls that edited OpenCode's config, the provisioned agents/skills or the tracker's AGENTS.md section", wide: true },
  { title: 'tokens', value: (row) => formatTokenCount(row.tokens), numeric: true, legend: 'tokens of every kind (input, output, reasoning, cache)' },
  {
    title: 'cost',
    value: (row, column) => costCell(row, column.costDecimals),
    numeric: true,
    legend: `cost (USD) as OpenCode recorded it; ${ESTIMATED_MARK}: estimated from the price catalog where OpenCode stored 0 while spending tokens; ${PARTIAL_MARK}: partial, some usage of unknown cost left out; ${UNKNOWN}: no price known`,
  },
  { title: 'cost/commit', value: (row, column) => perCommitCell(row, column.perCommitDecimals), numeric: true, legend: `cost per commit (${UNKNOWN} when part of the cost is)`, wide: true },
];

const SHOWN_DIMENSIONS: Readonly<Record<ReportGrouping, readonly Dimension[]>> = {
  setup: ['agent', 'model'],
  agent: ['agent'],
  model: ['model'],
  project: ['agent', 'model', 'project'],
  session: ['session', 'task', 'agent', 'model'],
};

/** The default table fits this many terminal columns; `--wide` shows every column whatever its width. */
export const NARROW_WIDTH = 100;
/** A text column is never cut below this. */
const MIN_CUT_WIDTH = 10;

/** What every column of the table means: `report --explain` and `report --help`. */
export function reportLegend(): string {
  const columns = [...Object.values(DIMENSION_COLUMNS), ...METRIC_COLUMNS];
  const width = Math.max(...columns.map((column) => column.title.length));
  return columns.map((column) => `${column.title.padEnd(width)}  ${column.legend}${column.wide ? ' (--wide)' : ''}`).join('\n');
}

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

function cut(text: string, width: number, where: Cut = 'end'): string {
  if (text.length <= width) return text;
  const kept = Math.max(1, width - 1);
  if (where === 'start') return `…${text.slice(text.length - kept)}`;
  if (where === 'middle') {
    const head = Math.ceil(kept / 2);
    return `${text.slice(0, head)}…${text.slice(text.length - (kept - head))}`;
  }
  return `${text.slice(0, kept)}…`;
}

/**
 * The report as an aligned terminal table, with a totals line when there is more than one row. By
 * default the main columns only, fitted to NARROW_WIDTH (long names are cut with "…"); `wide` shows
 * every column, uncut.
 */
export function reportToTable(report: Report, options: { wide?: boolean } = {}): string {
  const dimensions = [...(report.rows.some((row) => row.period !== null) ? (['period'] as const) : []), ...SHOWN_DIMENSIONS[report.by]];
  // One session a row: its session count says nothing.
  const metrics = METRIC_COLUMNS.filter((column) => (options.wide || !column.wide) && !(report.by === 'session' && column.title === 'sessions'));
  const columns = [...dimensions.map((name) => DIMENSION_COLUMNS[name]), ...metrics];
  const withTotals = report.rows.length > 1;
  const shown = withTotals ? [...report.rows, report.totals] : report.rows;
  const context = columnContext(shown);
  const lines = report.rows.map((row) => columns.map((column) => column.value(row, context)));
  if (withTotals) {
    const totals = columns.map((column, i) => (i === 0 ? 'total' : column.numeric ? column.value(report.totals, context) : ''));
    lines.push(totals);
  }
  const titles = columns.map((column) => column.title);
  if (!options.wide) fitText(titles, lines, columns);
  const table = alignColumns(
    titles,
    lines,
    columns.map((column) => column.numeric),
  );
  return [table, ...costNotes(shown, report.totals)].join('\n');
}

/** Cuts the widest text columns, widest first, until the table fits NARROW_WIDTH (or they reach MIN_CUT_WIDTH). */
function fitText(titles: readonly string[], lines: string[][], columns: readonly TableColumn[]): void {
  const numeric = columns.map((column) => column.numeric);
  const widths = titles.map((title, i) => Math.max(title.length, ...lines.map((line) => (line[i] ?? '').length)));
  const total = () => widths.reduce((sum, width) => sum + width, 0) + 2 * (widths.length - 1);
  while (total() > NARROW_WIDTH) {
    let widest = -1;
    widths.forEach((width, i) => {
      if (!numeric[i] && width > MIN_CUT_WIDTH && (widest < 0 || width > (widths[widest] ?? 0))) widest = i;
    });
    if (widest < 0) break;
    widths[widest] = Math.max(MIN_CUT_WIDTH, (widths[widest] ?? 0) - (total() - NARROW_WIDTH), (titles[widest] ?? '').length);
    for (const line of lines) line[widest] = cut(line[widest] ?? '', widths[widest] ?? 0, columns[widest]?.cut);
  }
}

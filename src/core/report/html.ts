/**
 * The HTML report: one self-contained file (inline CSS and SVG, no script, nothing fetched) that
 * opens with the recommendation, plots the user's own grade against cost (what the recommendation
 * weighs most; never a mix with the agents' self-grades), compares setups in one table per agent
 * and shows activity over time. It fits a 1280-pixel window: wide tables scroll inside their own box.
 */
import type { ActivityOverTime } from './activity.js';
import { activityChart, colorAt, escapeXml, outcomeCostChart } from './charts.js';
import type { HistoryFilter } from './history.js';
import type { Recommendation } from './recommend.js';
import { recommendationSection } from './recommend-html.js';
import type { Report, ReportRow } from './report.js';
import { ESTIMATED_MARK, perCommitCell, reportToTable } from './table.js';
import { dollarDecimals, plural } from './numbers.js';

export interface HtmlReportInput {
  /** The report grouped by setup (agent × model). */
  report: Report;
  activity: ActivityOverTime;
  filter: HistoryFilter;
  generatedAt: string;
  /** The recommendation for the project asked for: the page opens with it. */
  recommendation?: Recommendation;
  /** What the page says when nothing matched the filter (the CLI's empty-report line); a generic line without it. */
  emptyText?: string;
}

function percentOf(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

/** A column of the setup comparison: its value, how it reads, and whether lower is better. */
interface SetupMetric {
  title: string;
  value: (row: ReportRow) => number | null;
  format: (value: number, row: ReportRow) => string;
  lowerIsBetter: boolean;
  /** What a cell without a value says (default "n/a"). */
  missing?: (row: ReportRow) => string;
}

const NOT_AVAILABLE = 'n/a';

/**
 * Cost per commit, every value with the column's decimals: "~" marks the price catalog's estimate,
 * "unknown" a setup whose commits cost what no price says (never drawn or read as free).
 */
function costPerCommitMetric(rows: readonly ReportRow[]): SetupMetric {
  const decimals = dollarDecimals(rows.map((row) => row.costPerCommit));
  return {
    title: 'cost per commit',
    value: (row) => row.costPerCommit,
    format: (_value, row) => perCommitCell(row, decimals, NOT_AVAILABLE),
    lowerIsBetter: true,
    missing: (row) => perCommitCell(row, decimals, NOT_AVAILABLE),
  };
}

/** The comparison's columns: the user's grades and the signals no model can inflate, then self-grades apart, then cost. */
function setupMetrics(rows: readonly ReportRow[]): readonly SetupMetric[] {
  return [...OUTCOME_METRICS, costPerCommitMetric(rows)];
}

const OUTCOME_METRICS: readonly SetupMetric[] = [
  { title: 'commits', value: (row) => row.commits, format: (value) => String(value), lowerIsBetter: false },
  { title: 'mean user grade', value: (row) => row.meanUserGrade, format: (value) => value.toFixed(2), lowerIsBetter: false },
  { title: 'commits reverted', value: (row) => row.revertRate, format: percentOf, lowerIsBetter: true },
  { title: 'commits needing a follow-up fix', value: (row) => row.followUpFixRate, format: percentOf, lowerIsBetter: true },
  { title: 'turns undone', value: (row) => row.undoRate, format: percentOf, lowerIsBetter: true },
  { title: 'test runs passing', value: (row) => row.testPassRate, format: percentOf, lowerIsBetter: false },
  { title: 'bugs per commit', value: (row) => row.bugsPerCommit, format: (value) => value.toFixed(2), lowerIsBetter: true },
  { title: 'tool calls failing', value: (row) => row.failureRate, format: percentOf, lowerIsBetter: true },
  { title: 'mean self-grade', value: (row) => row.meanSelfGrade, format: (value) => value.toFixed(2), lowerIsBetter: false },
  { title: 'overrating (self minus user grade)', value: (row) => row.selfUserGap, format: (value) => value.toFixed(2), lowerIsBetter: true },
];

/**
 * One agent's setups as a table: a row per model, a column per metric, each value with a bar scaled
 * to the largest value of that metric across ALL setups, so the agents' tables compare with each other.
 */
function setupGroupTable(agent: string, rows: readonly ReportRow[], metrics: readonly SetupMetric[], maxima: readonly number[]): string {
  const header = metrics.map((metric) => `<th scope="col"${metric.lowerIsBetter ? ' class="lower" title="lower is better"' : ''}>${escapeXml(metric.title)}</th>`).join('');
  const lines = rows.map((row) => {
    const model = row.model ?? 'all models';
    const cells = metrics.map((metric, column) => {
      const value = metric.value(row);
      if (value === null) {
        const missing = metric.missing ? metric.missing(row) : NOT_AVAILABLE;
        return missing === NOT_AVAILABLE ? `<td class="na">${NOT_AVAILABLE}</td>` : `<td class="na" title="${escapeXml(`${model}: ${metric.title} ${missing}`)}">${escapeXml(missing)}</td>`;
      }
      const max = maxima[column] ?? 0;
      // A positive value always shows at least a sliver; zero shows no bar.
      const share = max > 0 && value > 0 ? Math.max(2, Math.round((value / max) * 100)) : 0;
      const text = metric.format(value, row);
      const title = `${model}: ${metric.title} ${text}${text.startsWith(ESTIMATED_MARK) ? ' (estimated)' : ''}`;
      return `<td title="${escapeXml(title)}"><span class="value">${escapeXml(text)}</span><span class="track"><span class="bar${metric.lowerIsBetter ? ' lower' : ''}" style="width:${share}%"></span></span></td>`;
    });
    return `<tr><th scope="row">${escapeXml(model)}</th>${cells.join('')}</tr>`;
  });
  return [
    `<div class="scroll"><table class="setup-group" data-group="${escapeXml(agent)}">`,
    `<caption>${escapeXml(agent)}</caption>`,
    `<thead><tr><th scope="col">model</th>${header}</tr></thead>`,
    `<tbody>${lines.join('')}</tbody>`,
    '</table></div>',
  ].join('\n');
}

const STYLE = `
body { font-family: system-ui, sans-serif; margin: 2rem; color: #0f172a; background: #fff; }
h1 { font-size: 1.5rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.15rem; margin-top: 2rem; }
h3 { font-size: 1rem; margin: 1.2rem 0 0.4rem; }
.meta { color: #475569; margin-top: 0; }
.legend span { display: inline-block; margin-right: 1rem; }
.legend i { display: inline-block; width: 0.8rem; height: 0.8rem; margin-right: 0.3rem; vertical-align: middle; }
pre { background: #f8fafc; padding: 0.8rem; overflow-x: auto; font-size: 12px; max-width: 100%; box-sizing: border-box; }
.scroll { max-width: 100%; overflow-x: auto; }
svg { max-width: 100%; height: auto; }
table.setup-group { border-collapse: collapse; font-size: 12px; margin: 0.4rem 0 1rem; }
table.setup-group caption { text-align: left; font-weight: 600; font-size: 1rem; padding-bottom: 0.3rem; }
table.setup-group th, table.setup-group td { border-bottom: 1px solid #e2e8f0; padding: 0.3rem 0.4rem; text-align: left; vertical-align: bottom; }
table.setup-group thead th { font-weight: 600; max-width: 6.5rem; white-space: normal; }
table.setup-group thead th.lower { color: #b45309; }
table.setup-group td { min-width: 4.5rem; white-space: nowrap; }
table.setup-group tbody th { max-width: 10rem; font-weight: 600; }
table.setup-group td.na { color: #94a3b8; }
table.setup-group .value { display: block; }
table.setup-group .track { display: block; height: 6px; background: #f1f5f9; margin-top: 2px; }
table.setup-group .bar { display: block; height: 6px; background: #2563eb; }
table.setup-group .bar.lower { background: #f59e0b; }
svg text { fill: #0f172a; }
.empty { color: #475569; font-style: italic; }
table.recommendation { border-collapse: collapse; margin-top: 0.6rem; font-size: 13px; }
table.recommendation td { max-width: 28rem; }
table.recommendation th, table.recommendation td { border-bottom: 1px solid #e2e8f0; padding: 0.25rem 0.6rem; text-align: left; vertical-align: top; }
`;

/** Groups setup rows by agent, in agent order. */
function groupsByAgent(rows: readonly ReportRow[]): Map<string, ReportRow[]> {
  const groups = new Map<string, ReportRow[]>();
  for (const row of rows) {
    const agent = row.agent ?? 'all agents';
    groups.set(agent, [...(groups.get(agent) ?? []), row]);
  }
  return groups;
}

function describeFilter(filter: HistoryFilter): string {
  const parts = [filter.project ? `project ${filter.project}` : 'all projects'];
  if (filter.since) parts.push(`since ${filter.since}`);
  if (filter.until) parts.push(`before ${filter.until}`);
  if (filter.source) parts.push(`${filter.source === 'live' ? 'live-tracked' : 'backfilled'} sessions only`);
  return parts.join(', ');
}

/** The user-grade chart, and which setups it leaves out (no user grade or no known cost yet). */
function userGradeChart(rows: readonly ReportRow[], colorOf: (agent: string) => string): string[] {
  const plotted = rows.filter((row) => row.meanUserGrade !== null && row.costPerCommit !== null);
  const left = rows.filter((row) => !plotted.includes(row)).map((row) => `${row.agent ?? 'all'} · ${row.model ?? 'all'}`);
  const note = left.length > 0 ? [`<p class="meta">Not plotted (no user grade or no known cost yet): ${escapeXml(left.join(', '))}.</p>`] : [];
  if (plotted.length === 0) return ['<p class="empty">No setup has both commits you graded and a known cost yet.</p>', ...note];
  return [outcomeCostChart(plotted, colorOf), ...note];
}

/** What the page's cost marks mean, when it shows any. */
function costNote(rows: readonly ReportRow[]): string[] {
  const notes: string[] = [];
  if (rows.some((row) => row.costEstimated)) notes.push('~ marks a cost estimated from the genai-prices price catalog (OpenCode stored 0 while tokens were spent), as the recommendation estimates it.');
  if (rows.some((row) => row.costUnknownSessions > 0)) notes.push('"unknown": OpenCode stored no cost and the price catalog does not know the model; such a setup is not drawn against cost.');
  return notes.map((note) => `<p class="meta">${escapeXml(note)}</p>`);
}

/** Renders the whole page. */
export function renderHtmlReport(input: HtmlReportInput): string {
  const { report, activity } = input;
  const groups = groupsByAgent(report.rows);
  const agents = [...new Set([...groups.keys(), ...activity.series.map((line) => line.agent)])].sort();
  const colors = new Map(agents.map((agent, i) => [agent, colorAt(i)]));
  const colorOf = (agent: string) => colors.get(agent) ?? colorAt(0);
  const metrics = setupMetrics(report.rows);
  const maxima = metrics.map((metric) => Math.max(0, ...report.rows.map((row) => metric.value(row) ?? 0)));

  const body: string[] = [
    '<h1>Agent setups: outcome and cost</h1>',
    `<p class="meta">${escapeXml(describeFilter(input.filter))} · ${plural(report.totals.sessions, 'session')} · ${plural(report.totals.commits, 'commit')} · generated ${escapeXml(input.generatedAt)}</p>`,
  ];
  if (input.recommendation) body.push(`<div class="scroll">${recommendationSection(input.recommendation)}</div>`);
  if (report.rows.length === 0) {
    body.push(`<p class="empty">${escapeXml(input.emptyText ?? 'No work recorded yet. Work in OpenCode with the agent-tracker plugin enabled, then make this report again.')}</p>`);
  } else {
    body.push(
      '<p class="legend">',
      ...agents.map((agent) => `<span><i style="background:${colorOf(agent)}"></i>${escapeXml(agent)}</span>`),
      '</p>',
      '<h2>Your grade against cost</h2>',
      '<p class="meta">The mean of your own grades (/grade, agent-tracker grade) per setup: self-grades never count here.</p>',
      ...userGradeChart(report.rows, colorOf),
      '<h2>Setups compared, by agent</h2>',
      '<p class="meta">Bars share one scale per column across all agents; orange columns are better when shorter.</p>',
      ...costNote(report.rows),
    );
    for (const [agent, rows] of groups) body.push(`<section class="group">`, setupGroupTable(agent, rows, metrics, maxima), '</section>');
    body.push('<h2>Activity over time</h2>', activity.periods.length > 0 ? activityChart(activity, colorOf) : '<p class="empty">No sessions in range.</p>');
    body.push('<h2>All numbers</h2>', `<pre>${escapeXml(reportToTable(report))}</pre>`);
  }

  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    // Nothing may be fetched: the file must work offline and leak nothing when opened.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>agent-tracker report</title>',
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    ...body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

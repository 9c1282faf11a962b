/**
 * The HTML report: one self-contained file (inline CSS and SVG, no script, nothing fetched) that
 * compares setups on outcome and cost, one chart per setup group (an agent and its models), and
 * shows activity over time.
 */
import type { ActivityOverTime } from './activity.js';
import { activityChart, colorAt, escapeXml, outcomeCostChart, setupGroupChart } from './charts.js';
import type { SetupMetric } from './charts.js';
import type { HistoryFilter } from './history.js';
import type { Recommendation } from './recommend.js';
import { recommendationSection } from './recommend-html.js';
import type { Report, ReportRow } from './report.js';
import { reportToTable } from './table.js';

export interface HtmlReportInput {
  /** The report grouped by setup (agent × model). */
  report: Report;
  activity: ActivityOverTime;
  filter: HistoryFilter;
  generatedAt: string;
  /** The recommendation for the project asked for: the page opens with it. */
  recommendation?: Recommendation;
}

function percentOf(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

const SETUP_METRICS: readonly SetupMetric[] = [
  { title: 'commits', value: (row) => row.commits, format: (value) => String(value), lowerIsBetter: false },
  { title: 'mean grade', value: (row) => row.meanGrade, format: (value) => value.toFixed(2), lowerIsBetter: false },
  { title: 'mean user grade', value: (row) => row.meanUserGrade, format: (value) => value.toFixed(2), lowerIsBetter: false },
  { title: 'mean self-grade', value: (row) => row.meanSelfGrade, format: (value) => value.toFixed(2), lowerIsBetter: false },
  { title: 'self - user grade (overrating)', value: (row) => row.selfUserGap, format: (value) => value.toFixed(2), lowerIsBetter: true },
  { title: 'commits reverted', value: (row) => row.revertRate, format: percentOf, lowerIsBetter: true },
  { title: 'commits needing a follow-up fix', value: (row) => row.followUpFixRate, format: percentOf, lowerIsBetter: true },
  { title: 'turns undone', value: (row) => row.undoRate, format: percentOf, lowerIsBetter: true },
  { title: 'test runs passing', value: (row) => row.testPassRate, format: percentOf, lowerIsBetter: false },
  { title: 'bugs / commit', value: (row) => row.bugsPerCommit, format: (value) => value.toFixed(2), lowerIsBetter: true },
  { title: 'tool failures', value: (row) => row.failureRate, format: (value) => `${(value * 100).toFixed(1)}%`, lowerIsBetter: true },
  { title: 'cost / commit', value: (row) => row.costPerCommit, format: (value) => `$${value.toFixed(3)}`, lowerIsBetter: true },
];

const STYLE = `
body { font-family: system-ui, sans-serif; margin: 2rem; color: #0f172a; background: #fff; }
h1 { font-size: 1.5rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.15rem; margin-top: 2rem; }
h3 { font-size: 1rem; margin: 1.2rem 0 0.4rem; }
.meta { color: #475569; margin-top: 0; }
.legend span { display: inline-block; margin-right: 1rem; }
.legend i { display: inline-block; width: 0.8rem; height: 0.8rem; margin-right: 0.3rem; vertical-align: middle; }
pre { background: #f8fafc; padding: 0.8rem; overflow-x: auto; font-size: 12px; }
svg text { fill: #0f172a; }
.empty { color: #475569; font-style: italic; }
table.recommendation { border-collapse: collapse; margin-top: 0.6rem; font-size: 13px; }
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
  return parts.join(', ');
}

/** Renders the whole page. */
export function renderHtmlReport(input: HtmlReportInput): string {
  const { report, activity } = input;
  const groups = groupsByAgent(report.rows);
  const agents = [...new Set([...groups.keys(), ...activity.series.map((line) => line.agent)])].sort();
  const colors = new Map(agents.map((agent, i) => [agent, colorAt(i)]));
  const colorOf = (agent: string) => colors.get(agent) ?? colorAt(0);
  const maxima = SETUP_METRICS.map((metric) => Math.max(0, ...report.rows.map((row) => metric.value(row) ?? 0)));

  const body: string[] = [
    '<h1>Agent setups: outcome and cost</h1>',
    `<p class="meta">${escapeXml(describeFilter(input.filter))} · ${report.totals.sessions} sessions · ${report.totals.commits} commits · generated ${escapeXml(input.generatedAt)}</p>`,
  ];
  if (input.recommendation) body.push(recommendationSection(input.recommendation));
  if (report.rows.length === 0) {
    body.push('<p class="empty">No work recorded yet. Work in OpenCode with the agent-tracker plugin enabled, then make this report again.</p>');
  } else {
    body.push(
      '<p class="legend">',
      ...agents.map((agent) => `<span><i style="background:${colorOf(agent)}"></i>${escapeXml(agent)}</span>`),
      '</p>',
      '<h2>Outcome against cost</h2>',
      report.rows.some((row) => row.meanGrade !== null && row.costPerCommit !== null)
        ? outcomeCostChart(report.rows, colorOf)
        : '<p class="empty">No setup has both graded commits and a known cost yet.</p>',
      '<h2>Setups compared, by agent</h2>',
      '<p class="meta">Bars share one scale per column across all agents; orange columns are better when shorter.</p>',
    );
    for (const [agent, rows] of groups) {
      body.push(`<section class="group"><h3>${escapeXml(agent)}</h3>`, setupGroupChart(agent, rows, SETUP_METRICS, maxima), '</section>');
    }
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

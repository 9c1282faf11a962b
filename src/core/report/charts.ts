/**
 * Inline SVG charts for the HTML report: plain strings, no script, no network. Every text that
 * came from the database is escaped. Hovering a mark shows its exact value (an SVG <title>).
 */
import type { ActivityOverTime } from './activity.js';
import { neutralizeControls } from './terminal-text.js';
import type { ReportRow } from './report.js';
import { dollarDecimals, formatDollars, plural } from './numbers.js';

/** Escapes text for HTML and SVG content and attribute values; control and bidi characters show as `\uXXXX`. */
export function escapeXml(text: string): string {
  return neutralizeControls(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Colors for series and setups, picked in order; readable on white. */
export const PALETTE = ['#2563eb', '#dc2626', '#059669', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#65a30d', '#475569', '#b45309'];

export function colorAt(index: number): string {
  return PALETTE[index % PALETTE.length] as string;
}

const FONT = 'font-family="system-ui, sans-serif" font-size="12"';

const PLOT = { width: 640, height: 320, left: 60, right: 20, top: 20, bottom: 44 };
const COST_HEADROOM = 1.25;
/** A label's line height: labels closer than this move apart. */
const LABEL_CLEARANCE = 14;
/** Past this share of the plot's width a dot's label goes to its left. */
const LABEL_FLIP_SHARE = 0.6;

/**
 * The user's grade against cost: one dot per setup (x cost per commit, y mean USER grade, area ~ commits).
 * A setup whose cost is unknown has no cost per commit and is not drawn (it is not free).
 */
export function outcomeCostChart(rows: readonly ReportRow[], colorOf: (agent: string) => string): string {
  const points = rows.filter((row) => row.meanUserGrade !== null && row.costPerCommit !== null);
  const innerWidth = PLOT.width - PLOT.left - PLOT.right;
  const innerHeight = PLOT.height - PLOT.top - PLOT.bottom;
  // Headroom past the dearest setup so its dot and label stay inside the plot.
  const maxCost = (Math.max(...points.map((row) => row.costPerCommit ?? 0), 0) || 1) * COST_HEADROOM;
  const maxCommits = Math.max(...points.map((row) => row.commits), 1);
  const minGrade = -1;
  const maxGrade = 5;
  const xOf = (cost: number) => PLOT.left + (cost / maxCost) * innerWidth;
  const yOf = (grade: number) => PLOT.top + (1 - (grade - minGrade) / (maxGrade - minGrade)) * innerHeight;
  const parts: string[] = [];
  for (const grade of [-1, 1, 2, 5]) {
    const y = yOf(grade);
    parts.push(`<line x1="${PLOT.left}" x2="${PLOT.width - PLOT.right}" y1="${y}" y2="${y}" stroke="#e2e8f0"/>`);
    parts.push(`<text x="${PLOT.left - 8}" y="${y + 4}" text-anchor="end">${grade}</text>`);
  }
  const bottom = PLOT.height - PLOT.bottom;
  parts.push(`<line x1="${PLOT.left}" x2="${PLOT.width - PLOT.right}" y1="${bottom}" y2="${bottom}" stroke="#64748b"/>`);
  const ticks = [0, 0.5, 1].map((share) => share * maxCost);
  // One precision for the axis, as for the table's column: $0.000 $0.076 $0.151, not $0.00 $0.076 $0.151.
  const tickDecimals = dollarDecimals(ticks);
  for (const tick of ticks) parts.push(`<text x="${xOf(tick)}" y="${bottom + 16}" text-anchor="middle">${formatDollars(tick, tickDecimals)}</text>`);
  const costDecimals = dollarDecimals(points.map((row) => row.costPerCommit));
  parts.push(`<text x="${PLOT.left + innerWidth / 2}" y="${PLOT.height - 6}" text-anchor="middle">cost per commit</text>`);
  parts.push(`<text x="14" y="${PLOT.top + innerHeight / 2}" transform="rotate(-90 14 ${PLOT.top + innerHeight / 2})" text-anchor="middle">mean user grade</text>`);
  /** Where labels were put, so one that would sit on another moves down a line. */
  const placed: { x: number; y: number; flip: boolean }[] = [];
  for (const row of points) {
    const radius = 4 + 12 * Math.sqrt(row.commits / maxCommits);
    const x = xOf(row.costPerCommit ?? 0);
    const y = yOf(row.meanUserGrade ?? 0);
    const label = `${row.agent ?? 'all'} · ${row.model ?? 'all'}`;
    const detail = `${label}: user grade ${(row.meanUserGrade ?? 0).toFixed(2)} over ${plural(row.userGradedCommits, 'commit')}, ${formatDollars(row.costPerCommit ?? 0, costDecimals)}/commit${row.costEstimated ? ' (estimated)' : ''}, ${plural(row.commits, 'commit')}`;
    parts.push(
      `<circle class="dot" cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${radius.toFixed(1)}" fill="${colorOf(row.agent ?? '')}" fill-opacity="0.6"><title>${escapeXml(detail)}</title></circle>`,
    );
    const flip = x > PLOT.left + LABEL_FLIP_SHARE * innerWidth;
    const labelX = flip ? x - radius - 3 : x + radius + 3;
    let labelY = y + 4;
    while (placed.some((other) => other.flip === flip && Math.abs(other.x - labelX) < LABEL_CLEARANCE * 8 && Math.abs(other.y - labelY) < LABEL_CLEARANCE)) labelY += LABEL_CLEARANCE;
    placed.push({ x: labelX, y: labelY, flip });
    parts.push(`<text x="${labelX.toFixed(1)}" y="${labelY.toFixed(1)}"${flip ? ' text-anchor="end"' : ''}>${escapeXml(truncate(label, 40))}</text>`);
  }
  return svg(PLOT.width, PLOT.height, "Your grade against cost per setup", parts, 'class="chart outcome-cost"');
}

/** Commits per period, stacked by agent (tool calls when nothing was committed). */
export function activityChart(activity: ActivityOverTime, colorOf: (agent: string) => string): string {
  const useCommits = activity.series.some((line) => line.commits.some((value) => value > 0));
  const valuesOf = (line: ActivityOverTime['series'][number]) => (useCommits ? line.commits : line.toolCalls);
  const unit = useCommits ? 'commits' : 'tool calls';
  const noun = useCommits ? 'commit' : 'tool call';
  const totals = activity.periods.map((_, i) => activity.series.reduce((sum, line) => sum + (valuesOf(line)[i] ?? 0), 0));
  const maxTotal = Math.max(...totals, 1);
  const innerWidth = PLOT.width - PLOT.left - PLOT.right;
  const innerHeight = PLOT.height - PLOT.top - PLOT.bottom;
  const slot = innerWidth / Math.max(1, activity.periods.length);
  const barWidth = Math.max(1, slot * 0.8);
  const bottom = PLOT.height - PLOT.bottom;
  const parts: string[] = [];
  for (const share of [0, 0.5, 1]) {
    const y = bottom - share * innerHeight;
    parts.push(`<line x1="${PLOT.left}" x2="${PLOT.width - PLOT.right}" y1="${y}" y2="${y}" stroke="#e2e8f0"/>`);
    parts.push(`<text x="${PLOT.left - 8}" y="${y + 4}" text-anchor="end">${Math.round(share * maxTotal)}</text>`);
  }
  activity.periods.forEach((start, i) => {
    let stacked = 0;
    const x = PLOT.left + i * slot + (slot - barWidth) / 2;
    for (const line of activity.series) {
      const value = valuesOf(line)[i] ?? 0;
      if (value <= 0) continue;
      const height = (value / maxTotal) * innerHeight;
      const y = bottom - stacked - height;
      stacked += height;
      parts.push(
        `<rect class="bar" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${height.toFixed(1)}" fill="${colorOf(line.agent)}"><title>${escapeXml(`${start} ${line.agent}: ${plural(value, noun)}`)}</title></rect>`,
      );
    }
  });
  const labelEvery = Math.max(1, Math.ceil(activity.periods.length / 8));
  activity.periods.forEach((start, i) => {
    if (i % labelEvery !== 0) return;
    parts.push(`<text x="${(PLOT.left + i * slot + slot / 2).toFixed(1)}" y="${bottom + 16}" text-anchor="middle">${escapeXml(start)}</text>`);
  });
  parts.push(`<text x="${PLOT.left + innerWidth / 2}" y="${PLOT.height - 6}" text-anchor="middle">${escapeXml(`${unit} per ${activity.period}`)}</text>`);
  return svg(PLOT.width, PLOT.height, `${unit} per ${activity.period}, by agent`, parts, 'class="chart activity"');
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function svg(width: number, height: number, title: string, parts: readonly string[], attributes: string): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" ${attributes} role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${FONT}>`,
    `<title>${escapeXml(title)}</title>`,
    ...parts,
    '</svg>',
  ].join('\n');
}

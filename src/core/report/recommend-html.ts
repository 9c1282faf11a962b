/**
 * The recommendation at the top of the HTML report: per role the pick and runner-up with their 80%
 * intervals on one 0-100 scale (an inline SVG, no script), how sure the pick is, cost per accepted
 * commit, and what is worth trying next. Every text from the database is escaped.
 */
import { escapeXml } from './charts.js';
import type { Recommendation, RoleRecommendation, ScoredSetup } from './recommend.js';
import { describeConfidence, describeCost, describeTrial, describeWork } from './recommend-text.js';

const FONT = 'font-family="system-ui, sans-serif" font-size="12"';
const LABEL_WIDTH = 300;
const SCALE_WIDTH = 400;
const ROW_HEIGHT = 22;
const ROLE_GAP = 10;
const TOP = 24;
const RIGHT = 20;

const PICK_COLOR = '#2563eb';
const RUNNER_UP_COLOR = '#94a3b8';

/** Scores run 0-100: x on the chart. */
function xOf(score: number): number {
  return LABEL_WIDTH + (Math.min(100, Math.max(0, score)) / 100) * SCALE_WIDTH;
}

function intervalRow(role: RoleRecommendation, setup: ScoredSetup, y: number, isPick: boolean): string[] {
  const color = isPick ? PICK_COLOR : RUNNER_UP_COLOR;
  const label = `${isPick ? `${role.agent}: ` : '  runner-up: '}${setup.model}`;
  const detail = `${role.agent} · ${setup.model}: score ${setup.score.toFixed(1)}, 80% interval ${setup.interval[0].toFixed(1)}-${setup.interval[1].toFixed(1)}, ${describeWork(setup)}`;
  return [
    `<text x="${isPick ? 0 : 12}" y="${y + 4}"${isPick ? ' font-weight="600"' : ''}>${escapeXml(label)}</text>`,
    `<line class="interval" x1="${xOf(setup.interval[0]).toFixed(1)}" x2="${xOf(setup.interval[1]).toFixed(1)}" y1="${y}" y2="${y}" stroke="${color}" stroke-width="4" stroke-linecap="round"><title>${escapeXml(detail)}</title></line>`,
    `<circle class="${isPick ? 'pick' : 'runner-up'}" cx="${xOf(setup.score).toFixed(1)}" cy="${y}" r="5" fill="${isPick ? color : '#fff'}" stroke="${color}" stroke-width="2"><title>${escapeXml(detail)}</title></circle>`,
  ];
}

/** One chart: every role's pick (filled) and runner-up (hollow) with their intervals. */
export function recommendationChart(roles: readonly RoleRecommendation[]): string {
  const rows = roles.reduce((count, role) => count + (role.runnerUp ? 2 : 1), 0);
  const height = TOP + rows * ROW_HEIGHT + roles.length * ROLE_GAP + 10;
  const width = LABEL_WIDTH + SCALE_WIDTH + RIGHT;
  const parts: string[] = [];
  for (const tick of [0, 25, 50, 75, 100]) {
    parts.push(`<line x1="${xOf(tick)}" x2="${xOf(tick)}" y1="${TOP - 8}" y2="${height - 6}" stroke="#e2e8f0"/>`);
    parts.push(`<text x="${xOf(tick)}" y="12" text-anchor="middle">${tick}</text>`);
  }
  let y = TOP + ROW_HEIGHT / 2;
  for (const role of roles) {
    parts.push(...intervalRow(role, role.pick, y, true));
    y += ROW_HEIGHT;
    if (role.runnerUp) {
      parts.push(...intervalRow(role, role.runnerUp, y, false));
      y += ROW_HEIGHT;
    }
    y += ROLE_GAP;
  }
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart recommendation" role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${FONT}>`,
    '<title>Recommended model per role: score and 80% interval of the pick and the runner-up</title>',
    ...parts,
    '</svg>',
  ].join('\n');
}

function cell(text: string): string {
  return `<td>${escapeXml(text)}</td>`;
}

/** The section that opens the report. */
export function recommendationSection(recommendation: Recommendation): string {
  const lines = [`<h2>Recommended setup for ${escapeXml(recommendation.project.path)}</h2>`];
  if (recommendation.message) {
    lines.push(`<p class="empty">${escapeXml(recommendation.message)}</p>`);
    return lines.join('\n');
  }
  lines.push(
    `<p class="meta">Per role, the model that did best on projects like this one (prefer ${escapeXml(recommendation.prefer)}). Filled dot: the pick; hollow: the runner-up; bars: 80% intervals.</p>`,
    recommendationChart(recommendation.roles),
    '<table class="recommendation">',
    '<tr><th>role</th><th>pick</th><th>score (80%)</th><th>how sure</th><th>cost / accepted commit</th><th>runner-up</th><th>why</th></tr>',
  );
  for (const role of recommendation.roles) {
    const { pick, runnerUp } = role;
    lines.push(
      `<tr>${cell(role.agent)}${cell(pick.model)}${cell(`${pick.score.toFixed(1)} (${pick.interval[0].toFixed(1)}-${pick.interval[1].toFixed(1)})`)}${cell(
        role.caveat ? `${describeConfidence(role)}; ${role.caveat}` : describeConfidence(role),
      )}${cell(describeCost(pick))}${cell(runnerUp ? `${runnerUp.model}: ${runnerUp.score.toFixed(1)}, ${describeCost(runnerUp)}` : '-')}${cell(
        runnerUp ? `${pick.why}. Runner-up: ${runnerUp.why}` : pick.why,
      )}</tr>`,
    );
  }
  lines.push('</table>');
  if (recommendation.worthTrying.length > 0) {
    lines.push('<h3>Worth trying next (experiments, not picks)</h3>', '<ul class="worth-trying">');
    for (const trial of recommendation.worthTrying) {
      lines.push(
        `<li>${escapeXml(describeTrial(trial))}</li>`,
      );
    }
    lines.push('</ul>');
  }
  return lines.join('\n');
}

/** The recommendation section of the HTML report: chart geometry, table, worth trying, escaping. */
import { describe, expect, it } from '@jest/globals';
import { recommendSetups } from '../../src/core/report/recommend.js';
import { recommendationChart, recommendationSection } from '../../src/core/report/recommend-html.js';
import { renderHtmlReport } from '../../src/core/report/html.js';
import { buildReport } from '../../src/core/report/report.js';
import { activityOverTime } from '../../src/core/report/activity.js';
import { profile } from '../helpers/synthetic-history.js';
import { usageRecord } from '../helpers/usage-record.js';

const many = (count: number, overrides: Parameters<typeof usageRecord>[0]) => Array.from({ length: count }, () => usageRecord(overrides));
const USAGE = [
  ...many(40, { agent: 'build', model: 'good/model', commits: 2, userGradedCommits: 2, userGradeSum: 9, toolCalls: 10, cost: 0.4 }),
  ...many(40, { agent: 'build', model: 'poor/model', commits: 2, userGradedCommits: 2, userGradeSum: 0, revertedCommits: 1, toolCalls: 10, cost: 0.2 }),
  ...many(30, { agent: 'docs', model: 'mid/<i>model</i>', commits: 1, userGradedCommits: 1, userGradeSum: 1, toolCalls: 10 }),
  ...many(1, { agent: 'docs', model: 'new/model', commits: 3, userGradedCommits: 3, userGradeSum: 15, toolCalls: 10 }),
];
// Computed inside each test, not at load: mutation testing maps each test to the code it runs.
const recommend = () => recommendSetups({ target: profile('/p/target', 'rust', 'axum', 'api'), history: { usage: USAGE }, profiles: new Map(), similarity: () => 1 });

describe('the recommendation in the HTML report', () => {
  it('draws each pick filled and each runner-up hollow, with interval bars on a 0-100 scale', () => {
    const recommendation = recommend();
    const svg = recommendationChart(recommendation.roles);
    expect(svg.match(/<circle class="pick"/g)).toHaveLength(2);
    expect(svg.match(/<circle class="runner-up"/g)).toHaveLength(2);
    expect(svg.match(/<line class="interval"/g)).toHaveLength(4);
    const build = recommendation.roles[0];
    if (!build) throw new Error('no build role');
    // x = 300 + score / 100 × 400
    expect(svg).toContain(`<circle class="pick" cx="${(300 + 4 * build.pick.score).toFixed(1)}"`);
    expect(svg).toContain(`x1="${(300 + 4 * build.pick.interval[0]).toFixed(1)}" x2="${(300 + 4 * build.pick.interval[1]).toFixed(1)}"`);
    expect(svg).toMatch(/<svg [^>]*width="720" height="\d+"/);
    for (const tick of [0, 25, 50, 75, 100]) expect(svg).toContain(`text-anchor="middle">${tick}</text>`);
  });

  it('tabulates pick, interval, confidence, cost and runner-up, and lists what is worth trying as experiments', () => {
    const html = recommendationSection(recommend());
    expect(html).toContain('<h2>Recommended setup for /p/target</h2>');
    expect(html).toMatch(/<tr><td>build<\/td><td>good\/model<\/td><td>\d+\.\d \(\d+\.\d-\d+\.\d\)<\/td><td>clear \(\d+% likely the best\)<\/td><td>\$0\.200 per accepted commit<\/td><td>poor\/model: \d+\.\d, \$0\.200 per accepted commit<\/td>/);
    expect(html).toContain('<h3>Worth trying next (experiments, not picks)</h3>');
    expect(html).toMatch(/<li>docs: new\/model instead of mid\/&lt;i&gt;model&lt;\/i&gt; — score.* about \d+ more sessions? would settle it<\/li>/);
    // The runner-up has its own why, beside the pick's.
    expect(html).toMatch(/<td>[^<]*\. Runner-up: [^<]*<\/td><\/tr>/);
    expect(html).not.toContain('<i>');
  });

  it('shows the no-history message instead of a chart', () => {
    const empty = recommendSetups({ target: profile('/p/target', 'rust', 'axum', 'api'), history: { usage: [] }, profiles: new Map(), similarity: () => 1 });
    const html = recommendationSection(empty);
    expect(html).toContain('agent-tracker backfill');
    expect(html).not.toContain('<svg');
  });

  it('opens the page with it, before the other charts', () => {
    const history = { usage: USAGE };
    const recommendation = recommend();
    const page = renderHtmlReport({ report: buildReport(history, 'setup'), activity: activityOverTime(history), filter: {}, generatedAt: '2026-01-01T00:00:00Z', recommendation });
    expect(page.indexOf('Recommended setup for')).toBeGreaterThan(-1);
    expect(page.indexOf('Recommended setup for')).toBeLessThan(page.indexOf('Your grade against cost'));
    const without = renderHtmlReport({ report: buildReport(history, 'setup'), activity: activityOverTime(history), filter: {}, generatedAt: '2026-01-01T00:00:00Z' });
    expect(without).not.toContain('Recommended setup for');
  });
});

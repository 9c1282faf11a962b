import { describe, expect, it } from '@jest/globals';
import { activityOverTime } from '../../src/core/report/activity.js';
import type { History } from '../../src/core/report/history.js';
import { renderHtmlReport } from '../../src/core/report/html.js';
import { buildReport } from '../../src/core/report/report.js';
import type { UsageRecord } from '../../src/core/types.js';

function usage(agent: string, model: string, day: string, commits: number, cost: number, graded = 0): UsageRecord {
  return {
    sessionId: `ses_${agent}_${model}_${day}`,
    agent,
    model,
    project: '/p/app',
    firstAt: `${day}T10:00:00.000Z`,
    lastAt: `${day}T11:00:00.000Z`,
    toolCalls: 10,
    toolFailures: 1,
    commands: 0,
    commits,
    pushes: 0,
    bugs: 0,
    gradedCommits: graded,
    gradeSum: graded * 7,
    csDelta: graded * 7,
    messages: 1,
    tokensInput: 100,
    tokensOutput: 10,
    tokensReasoning: 0,
    tokensCacheRead: 0,
    tokensCacheWrite: 0,
    cost,
  };
}

function page(history: History): string {
  return renderHtmlReport({ report: buildReport(history), activity: activityOverTime(history), filter: {}, generatedAt: '2025-06-01T00:00:00.000Z' });
}

describe('HTML report', () => {
  const history: History = {
    usage: [usage('build', 'a/one', '2025-05-01', 3, 0.3, 1), usage('build', 'b/two', '2025-05-02', 1, 0.2), usage('plan', '<img src=x onerror=alert(1)>', '2025-05-03', 0, 0.1)],
  };

  it('draws one chart per agent, with a row per model, plus outcome-cost and activity charts', () => {
    const html = page(history);
    expect([...html.matchAll(/class="chart setup-group" data-group="([^"]+)"/g)].map((m) => m[1])).toEqual(['build', 'plan']);
    expect(html.match(/class="chart outcome-cost"/g)).toHaveLength(1);
    expect(html.match(/class="chart activity"/g)).toHaveLength(1);
  });

  it('fetches nothing and runs no script', () => {
    const html = page({ usage: history.usage.slice(0, 2) });
    expect(html).not.toMatch(/<script|<link|<img|src=|@import/i);
    expect(html.match(/https?:\/\/[^"\s]+/g)?.every((url) => url === 'http://www.w3.org/2000/svg')).toBe(true);
    expect(html).toContain("default-src 'none'");
  });

  it('escapes names from the database', () => {
    const html = page(history);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('says so when there is nothing to show', () => {
    const html = page({ usage: [] });
    expect(html).toContain('No work recorded yet');
    expect(html).not.toContain('<svg');
  });

  it('buckets long histories by week', () => {
    const long: History = { usage: [usage('build', 'a/one', '2025-01-01', 1, 0), usage('build', 'a/one', '2025-06-30', 2, 0)] };
    const activity = activityOverTime(long);
    expect(activity.period).toBe('week');
    expect(activity.periods[0]).toBe('2024-12-30');
    expect(activity.series[0]?.commits.reduce((a, b) => a + b, 0)).toBe(3);
  });
});

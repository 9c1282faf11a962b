import { describe, expect, it } from '@jest/globals';
import { activityOverTime } from '../../src/core/report/activity.js';
import type { History } from '../../src/core/report/history.js';
import { renderHtmlReport } from '../../src/core/report/html.js';
import { buildReport } from '../../src/core/report/report.js';
import type { UsageRecord } from '../../src/core/types.js';

function usage(agent: string, model: string, day: string, commits: number, cost: number, graded = 0, grades: { user?: number; self?: number } = {}): UsageRecord {
  return {
    ...(grades.user === undefined ? {} : { userGradedCommits: graded, userGradeSum: graded * grades.user }),
    ...(grades.self === undefined ? {} : { selfGradedCommits: graded, selfGradeSum: graded * grades.self }),
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
    usage: [usage('build', 'a/one', '2025-05-01', 3, 0.3, 1, { user: 2 }), usage('build', 'b/two', '2025-05-02', 1, 0.2), usage('plan', '<img src=x onerror=alert(1)>', '2025-05-03', 0, 0.1)],
  };

  it('draws one table per agent, with a row per model, plus the user-grade and activity charts', () => {
    const html = page(history);
    expect([...html.matchAll(/class="setup-group" data-group="([^"]+)"/g)].map((m) => m[1])).toEqual(['build', 'plan']);
    expect(html.match(/class="chart outcome-cost"/g)).toHaveLength(1);
    expect(html.match(/class="chart activity"/g)).toHaveLength(1);
    expect(html).toContain('Not plotted (no user grade or no known cost yet): build · b/two, plan · &lt;img');
  });

  it('prints every dollar of a column and of the chart axis with one precision, and one commit as "1 commit"', () => {
    // Cost per commit: $0.12 / 1 commit = $0.12 and $3.60 / 3 commits = $1.20; the axis runs to $1.20 × 1.25 = $1.50.
    const html = page({ usage: [usage('build', 'a/one', '2025-05-01', 1, 0.12, 1, { user: 2 }), usage('build', 'b/two', '2025-05-02', 3, 3.6, 3, { user: 5 })] });
    const cell = (model: string) => new RegExp(`<th scope="row">${model}</th>.*?<span class="value">(\\$[\\d.]+)</span>.*?</tr>`).exec(html)?.[1];
    expect([cell('a/one'), cell('b/two')]).toEqual(['$0.120', '$1.200']);
    const chart = html.slice(html.indexOf('class="chart outcome-cost"'), html.indexOf('class="chart activity"'));
    expect([...chart.matchAll(/text-anchor="middle">(\$[\d.]+)<\/text>/g)].map((match) => match[1])).toEqual(['$0.000', '$0.750', '$1.500']);
    expect(html).toContain('<title>2025-05-01 build: 1 commit</title>');
    expect(html).toContain('<title>2025-05-02 build: 3 commits</title>');
  });

  it('plots the mean USER grade per setup: a setup grading itself 5 sits where the user put it', () => {
    const inflated = usage('build', 'cheap/self-5', '2025-05-01', 4, 0.1, 4, { user: 1, self: 5 });
    const honest = usage('build', 'good/honest', '2025-05-02', 4, 0.4, 4, { user: 5, self: 2 });
    const html = page({ usage: [inflated, honest] });
    const dot = (model: string) => {
      const match = new RegExp(`<circle class="dot" cx="[\\d.]+" cy="([\\d.]+)"[^>]*><title>build · ${model}: user grade ([\\d.]+)`).exec(html);
      return { cy: Number(match?.[1]), grade: Number(match?.[2]) };
    };
    expect(dot('cheap/self-5').grade).toBe(1);
    expect(dot('good/honest').grade).toBe(5);
    // Higher on the page (smaller y) is better: the honest setup the user graded 5 is above.
    expect(dot('good/honest').cy).toBeLessThan(dot('cheap/self-5').cy);
    expect(html).not.toMatch(/>mean grade</);
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

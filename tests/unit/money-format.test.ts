/**
 * One way to print dollars: the report's table, the HTML page and the recommendation show the same cost
 * per commit for the same work, whatever float noise the sum of its records carries. And counts in words
 * (src/core/report/numbers.ts): one of a thing in the singular.
 */
import { describe, expect, it } from '@jest/globals';
import { activityOverTime } from '../../src/core/report/activity.js';
import { renderHtmlReport } from '../../src/core/report/html.js';
import { formatDollars } from '../../src/core/report/numbers.js';
import { recommendSetups } from '../../src/core/report/recommend.js';
import { describeCost } from '../../src/core/report/recommend-text.js';
import { buildReport } from '../../src/core/report/report.js';
import { reportToTable } from '../../src/core/report/table.js';
import { profile } from '../helpers/synthetic-history.js';
import { usageRecord } from '../helpers/usage-record.js';

describe('dollars', () => {
  it.each([
    [0, '$0.00'],
    [0.1234, '$0.123'],
    // 0.0075 is stored as 0.00749999…: a half still rounds up.
    [0.0075, '$0.008'],
    [0.007500000000000189, '$0.008'],
    [0.0074999, '$0.007'],
    [1.005, '$1.01'],
    [12.3, '$12.30'],
    [1234.5, '$1234.50'],
  ])('%p prints as %p', (value, text) => {
    expect(formatDollars(value)).toBe(text);
  });
});

describe('counts in words', () => {
  it('say one session and one commit in the singular on the page, and every other count in the plural', () => {
    const one = buildReport({ usage: [usageRecord({ agent: 'build', model: 'paid/model', commits: 1, toolCalls: 1, cost: 0.01 })] });
    const page = renderHtmlReport({ report: one, activity: activityOverTime({ usage: [] }), filter: {}, generatedAt: '2026-11-27T00:00:00.000Z' });
    expect(page).toContain(' · 1 session · 1 commit · ');
    const two = buildReport({ usage: [0, 1].map(() => usageRecord({ agent: 'build', model: 'paid/model', commits: 0, toolCalls: 1, cost: 0.01 })) });
    expect(renderHtmlReport({ report: two, activity: activityOverTime({ usage: [] }), filter: {}, generatedAt: '2026-11-27T00:00:00.000Z' })).toContain(' · 2 sessions · 0 commits · ');
  });
});

describe('the same cost per commit on every surface', () => {
  it('2,000 sessions of 2 commits at $0.015 each: $0.008 a commit in the table, the page and the recommendation', () => {
    // 2,000 × 0.015 sums to 30.000000000000757 in floating point; $30 over 4,000 commits is $0.0075, a half.
    const usage = Array.from({ length: 2000 }, () => usageRecord({ agent: 'build', model: 'paid/model', commits: 2, toolCalls: 5, cost: 0.015 }));
    const report = buildReport({ usage });
    const table = reportToTable(report, { wide: true });
    expect(table.split('\n').find((line) => line.startsWith('build'))).toMatch(/ \$0\.008$/);
    const page = renderHtmlReport({ report, activity: activityOverTime({ usage }), filter: {}, generatedAt: '2026-11-27T00:00:00.000Z' });
    expect(page).toContain('$0.008');
    expect(page).not.toContain('$0.007');
    const recommendation = recommendSetups({ target: profile('/p/target', 'rust', 'axum', 'api'), history: { usage }, profiles: new Map(), similarity: () => 1 });
    const pick = recommendation.roles[0]?.pick;
    if (!pick) throw new Error('no pick');
    expect(describeCost(pick)).toBe('$0.008 per accepted commit');
  });
});

describe('the note under a table with unknown cost', () => {
  // Cost 0 with tokens spent on a model no catalog prices (no estimator given): its cost is unknown.
  const unpriced = () => usageRecord({ agent: 'build', model: 'fake/model', commits: 1, toolCalls: 1, cost: 0, tokensInput: 500 });

  it('says unknown, not partial, when no sum shown holds a known cost', () => {
    const table = reportToTable(buildReport({ usage: [unpriced(), unpriced()] }), { wide: true });
    expect(table).toContain('\nunknown: the cost of 2 sessions is unknown (OpenCode stored 0 and the price catalog does not know the model)');
    expect(table).not.toContain('partial');
  });

  it('says partial when a sum shown adds known cost to the unknown', () => {
    const paid = usageRecord({ agent: 'build', model: 'paid/model', commits: 1, toolCalls: 1, cost: 0.5 });
    const table = reportToTable(buildReport({ usage: [unpriced(), paid] }), { wide: true });
    expect(table).toContain('+ partial: the cost of 1 session is unknown (OpenCode stored 0 and the price catalog does not know the model); the sum leaves it out');
  });
});

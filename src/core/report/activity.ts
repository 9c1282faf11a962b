/**
 * Activity over time: commits (and tool calls) per period, one series per agent. A period is a
 * day, or a week or month when the history spans too many days for one bar each.
 */
import type { History } from './history.js';

export type ActivityPeriod = 'day' | 'week' | 'month';

export interface ActivitySeries {
  agent: string;
  commits: number[];
  toolCalls: number[];
}

export interface ActivityOverTime {
  period: ActivityPeriod;
  /** Period starts (YYYY-MM-DD), oldest first, without gaps. */
  periods: string[];
  series: ActivitySeries[];
}

/** Up to this many days get one bar each; up to MAX_WEEKS weeks one bar per week; then months. */
const MAX_DAYS = 62;
const MAX_WEEKS = 104;
const DAY_MS = 86_400_000;
const DAYS_PER_WEEK = 7;

function dayOf(iso: string): string {
  return iso.slice(0, 10);
}

function periodStart(day: string, period: ActivityPeriod): string {
  if (period === 'day') return day;
  if (period === 'month') return `${day.slice(0, 7)}-01`;
  const date = new Date(`${day}T00:00:00Z`);
  const sinceMonday = (date.getUTCDay() + DAYS_PER_WEEK - 1) % DAYS_PER_WEEK;
  return new Date(date.getTime() - sinceMonday * DAY_MS).toISOString().slice(0, 10);
}

function nextPeriod(start: string, period: ActivityPeriod): string {
  const date = new Date(`${start}T00:00:00Z`);
  if (period === 'day') date.setUTCDate(date.getUTCDate() + 1);
  else if (period === 'week') date.setUTCDate(date.getUTCDate() + DAYS_PER_WEEK);
  else date.setUTCMonth(date.getUTCMonth() + 1);
  return date.toISOString().slice(0, 10);
}

/** Buckets each usage record's work into the period its session started in. */
export function activityOverTime(history: History): ActivityOverTime {
  const days = history.usage.map((record) => dayOf(record.firstAt)).filter((day) => /^\d{4}-\d{2}-\d{2}$/.test(day));
  if (days.length === 0) return { period: 'day', periods: [], series: [] };
  days.sort();
  const first = days[0] as string;
  const last = days[days.length - 1] as string;
  const spanDays = (Date.parse(last) - Date.parse(first)) / DAY_MS;
  const period: ActivityPeriod = spanDays < MAX_DAYS ? 'day' : spanDays < MAX_WEEKS * DAYS_PER_WEEK ? 'week' : 'month';

  const periods: string[] = [];
  const index = new Map<string, number>();
  const end = periodStart(last, period);
  for (let start = periodStart(first, period); start <= end; start = nextPeriod(start, period)) {
    index.set(start, periods.length);
    periods.push(start);
  }

  const series = new Map<string, ActivitySeries>();
  for (const record of history.usage) {
    const position = index.get(periodStart(dayOf(record.firstAt), period));
    if (position === undefined) continue;
    let line = series.get(record.agent);
    if (!line) {
      line = { agent: record.agent, commits: periods.map(() => 0), toolCalls: periods.map(() => 0) };
      series.set(record.agent, line);
    }
    line.commits[position] = (line.commits[position] ?? 0) + record.commits;
    line.toolCalls[position] = (line.toolCalls[position] ?? 0) + record.toolCalls;
  }
  return { period, periods, series: [...series.values()].sort((a, b) => (a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : 0)) };
}

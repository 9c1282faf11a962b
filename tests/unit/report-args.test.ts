/**
 * What `report` accepts (the CLI and the MCP server check it the same way): every grouping and period
 * the help names is taken, anything else is refused with a line that lists them; weeks start on Monday.
 */
import { describe, expect, it } from '@jest/globals';
import { parseGrouping, parsePeriod, parseSince, parseTimeZone } from '../../src/cli/report-args.js';
import { periodLabeller } from '../../src/core/report/periods.js';

describe('report arguments', () => {
  it.each(['setup', 'agent', 'model', 'project', 'session'])('takes --by %s', (by) => {
    expect(parseGrouping(by)).toBe(by);
  });

  it('groups by setup without --by, and refuses an unknown grouping naming the five it takes', () => {
    expect(parseGrouping(undefined)).toBe('setup');
    expect(() => parseGrouping('team')).toThrow('--by must be one of setup, agent, model, project, session, got "team"');
  });

  it.each(['day', 'week', 'month'])('takes --period %s', (period) => {
    expect(parsePeriod(period)).toBe(period);
  });

  it('has no period without --period, and refuses an unknown one naming the three it takes', () => {
    expect(parsePeriod(undefined)).toBeUndefined();
    expect(() => parsePeriod('year')).toThrow('--period must be one of day, week, month, got "year"');
  });

  it('reads --since as a UTC time and refuses what is not a date', () => {
    expect(parseSince('2026-02-01')).toBe('2026-02-01T00:00:00.000Z');
    expect(parseSince('2026-02-01T12:30:00+02:00')).toBe('2026-02-01T10:30:00.000Z');
    expect(() => parseSince('last week', '--until')).toThrow('--until must be an ISO date or time');
  });

  it('takes an IANA time zone and refuses one the runtime does not know', () => {
    expect(parseTimeZone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(() => parseTimeZone('Mars/Olympus')).toThrow('unknown time zone "Mars/Olympus"');
  });

  it('labels each day of a week with its Monday, in the time zone asked for', () => {
    const week = periodLabeller('week', 'UTC');
    // 2026-02-02 is a Monday: the seven days from it share its label, the Sunday before belongs to the week before.
    const days = ['02', '03', '04', '05', '06', '07', '08'].map((day) => week(`2026-02-${day}T12:00:00Z`));
    expect(days).toEqual(Array(7).fill('2026-02-02'));
    expect(week('2026-02-01T12:00:00Z')).toBe('2026-01-26');
    // 23:30 UTC on Sunday is already Monday in Berlin.
    expect(periodLabeller('week', 'Europe/Berlin')('2026-02-08T23:30:00Z')).toBe('2026-02-09');
    expect(periodLabeller('month', 'UTC')('2026-02-08T23:30:00Z')).toBe('2026-02');
    expect(periodLabeller('day', 'Europe/Berlin')('2026-02-08T23:30:00Z')).toBe('2026-02-09');
  });
});

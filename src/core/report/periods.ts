/**
 * Calendar periods for the report's time views: which day, week (starting Monday) or month a moment
 * falls in, in a time zone. Labels sort in time order: `2025-03-04`, week `2025-03-03` (its Monday),
 * month `2025-03`.
 */
import { InputError } from '../validation.js';
import type { Period } from '../../contract/answers.js';
export type { Period } from '../../contract/answers.js';

export const PERIODS: readonly Period[] = ['day', 'week', 'month'];

const DAY_MS = 86_400_000;
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** The time zone of this machine, the default of the time views. */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** @throws InputError naming a time zone the runtime does not know (IANA names such as Europe/Berlin, or UTC). */
export function checkTimeZone(timeZone: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
  } catch {
    throw new InputError(`unknown time zone "${timeZone}"; use an IANA name such as UTC, Europe/Berlin or America/New_York`);
  }
  return timeZone;
}

/** A labeller of ISO times by period in a time zone (one formatter, reused for every record). */
export function periodLabeller(period: Period, timeZone: string): (iso: string) => string {
  const format = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', weekday: 'short' });
  return (iso) => {
    const parts = Object.fromEntries(format.formatToParts(new Date(iso)).map((part) => [part.type, part.value]));
    const day = `${parts.year}-${parts.month}-${parts.day}`;
    if (period === 'day') return day;
    if (period === 'month') return day.slice(0, 7);
    // The Monday of the local week, from the local calendar date (free of the zone's offsets).
    const back = WEEKDAYS.indexOf(String(parts.weekday));
    return new Date(Date.parse(`${day}T00:00:00Z`) - back * DAY_MS).toISOString().slice(0, 10);
  };
}

/**
 * An ISO time (`2026-11-25T10:00:00.000Z`, as `Date.toISOString` writes it) takes 26 bytes in
 * msgpack; its milliseconds take 9. Stores keep the number when it gives the very same string
 * back, and the string otherwise.
 */

/** The length of `Date.toISOString` for the years 0000–9999; other strings are not parsed at all. */
const ISO_LENGTH = 24;
const T_AT = 10;
const T = 0x54;
const Z = 0x5a;

/** The last time parsed and its answer: the records of one write mostly share their times (the write's own `now`). */
let lastText = '';
let lastMillis: number | undefined;

/** The milliseconds `text` stands for, when they give `text` back exactly; undefined otherwise. */
export function isoMillis(text: string): number | undefined {
  if (text === lastText) return lastMillis;
  if (text.length !== ISO_LENGTH || text.charCodeAt(T_AT) !== T || text.charCodeAt(ISO_LENGTH - 1) !== Z) return undefined;
  const millis = Date.parse(text);
  lastText = text;
  lastMillis = Number.isFinite(millis) && isoText(millis) === text ? millis : undefined;
  return lastMillis;
}

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const SECOND_MS = 1_000;
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the times `toISOString` writes with four year digits. */
const FIRST_FOUR_DIGIT_MS = -62_167_219_200_000;
const LAST_FOUR_DIGIT_MS = 253_402_300_799_999;
/** Days from 0000-03-01 (the start of a shifted year that ends with February) to 1970-01-01. */
const EPOCH_SHIFT_DAYS = 719_468;
const DAYS_PER_400_YEARS = 146_097;
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));

/**
 * The ISO string of `millis` (the inverse of isoMillis), as `Date.toISOString` writes it. Reads call this
 * for every stored time, and `toISOString` on Node 20 costs about four times the arithmetic below (the
 * civil date of a day number, in years that start on 1 March so that the leap day comes last). Anything
 * outside four-digit years, or not a whole millisecond, goes to `Date`, which also throws for what is no time.
 */
export function isoText(millis: number): string {
  if (!Number.isInteger(millis) || millis < FIRST_FOUR_DIGIT_MS || millis > LAST_FOUR_DIGIT_MS) return new Date(millis).toISOString();
  const days = Math.floor(millis / DAY_MS);
  const ofDay = millis - days * DAY_MS;
  const shifted = days + EPOCH_SHIFT_DAYS;
  const era = Math.floor(shifted / DAYS_PER_400_YEARS);
  const dayOfEra = shifted - era * DAYS_PER_400_YEARS;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = era * 400 + yearOfEra + (month <= 2 ? 1 : 0);
  const hours = Math.floor(ofDay / HOUR_MS);
  const minutes = Math.floor((ofDay % HOUR_MS) / MINUTE_MS);
  const seconds = Math.floor((ofDay % MINUTE_MS) / SECOND_MS);
  const date = `${TWO_DIGITS[Math.floor(year / 100)]}${TWO_DIGITS[year % 100]}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}`;
  return `${date}T${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${THREE_DIGITS[ofDay % SECOND_MS]}Z`;
}

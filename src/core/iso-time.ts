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
  lastMillis = Number.isFinite(millis) && new Date(millis).toISOString() === text ? millis : undefined;
  return lastMillis;
}

/** The ISO string of `millis` (the inverse of isoMillis). */
export function isoText(millis: number): string {
  return new Date(millis).toISOString();
}

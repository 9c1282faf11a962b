/**
 * An ISO time (`2026-11-25T10:00:00.000Z`, as `Date.toISOString` writes it) takes 26 bytes in
 * msgpack; its milliseconds take 9. Stores keep the number when it gives the very same string
 * back, and the string otherwise.
 */

/** The milliseconds `text` stands for, when they give `text` back exactly; undefined otherwise. */
export function isoMillis(text: string): number | undefined {
  const millis = Date.parse(text);
  return Number.isFinite(millis) && new Date(millis).toISOString() === text ? millis : undefined;
}

/** The ISO string of `millis` (the inverse of isoMillis). */
export function isoText(millis: number): string {
  return new Date(millis).toISOString();
}

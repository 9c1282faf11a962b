/**
 * Narrowing of values that come from outside (host events, stored JSON): each returns what the
 * value is when it has the expected shape, and nothing else, so a newer host never makes a reader throw.
 */

export type Dict = Record<string, unknown>;

export function isDict(value: unknown): value is Dict {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-empty string, else undefined. */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A finite number, else 0 (counters: what is missing counts nothing). */
export function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

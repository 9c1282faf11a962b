/** "1 commit", "12 sessions": a count (rounded to whole) with its noun, in the singular for one. */
export function plural(count: number, noun: string): string {
  const rounded = Math.round(count);
  return `${rounded} ${noun}${rounded === 1 ? '' : 's'}`;
}

/** Numbers as people read them: a whole number prints whole ("1", not "1.0"), anything else with one decimal. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

/** Decimals of a dollar amount on its own: 3 under $1 (a cost per commit of $0.004 is not $0.00), else 2. */
function ownDollarDecimals(value: number): number {
  return value !== 0 && Math.abs(value) < 1 ? 3 : 2;
}

/**
 * The decimals of a column of dollar amounts, so that every value in it reads alike ($0.967, $0.600,
 * $1.570 rather than $0.967, $0.600, $1.57): the most any of its values needs on its own.
 */
export function dollarDecimals(values: Iterable<number | null>): number {
  let decimals = 2;
  for (const value of values) if (value !== null && Number.isFinite(value)) decimals = Math.max(decimals, ownDollarDecimals(value));
  return decimals;
}

/** Rounds half up at `decimals`, dropping the float noise below the twelfth significant digit first. */
function roundHalfUp(value: number, decimals: number): string {
  const scale = 10 ** decimals;
  return (Math.round(Number((value * scale).toPrecision(12))) / scale).toFixed(decimals);
}

/**
 * Dollars as every surface prints them: 3 decimals under $1, else 2 (or `decimals`, a column's from
 * `dollarDecimals`), a half rounded up. A cost summed over many records carries float noise (2,000 ×
 * $0.015 adds up to 30.000000000000757), and `toFixed` of a value on a rounding boundary printed the
 * same cost per commit as $0.007 in one place and $0.008 in another; noise below the twelfth
 * significant digit is dropped before rounding.
 */
export function formatDollars(value: number, decimals: number = ownDollarDecimals(value)): string {
  return `$${roundHalfUp(value, decimals)}`;
}

const THOUSAND = 1000;
const MILLION = 1_000_000;

/** Token counts shortened to k / M with one decimal, a half rounded up (7,850 is 7.9k; 999,960 is 1.0M). */
export function formatTokenCount(value: number): string {
  if (Math.abs(value) < THOUSAND) return String(value);
  const thousands = roundHalfUp(value / THOUSAND, 1);
  if (Math.abs(Number(thousands)) < THOUSAND) return `${thousands}k`;
  return `${roundHalfUp(value / MILLION, 1)}M`;
}

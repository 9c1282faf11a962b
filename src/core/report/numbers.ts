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

/**
 * Dollars as every surface prints them: 3 decimals under $1, else 2, a half rounded up. A cost summed
 * over many records carries float noise (2,000 × $0.015 adds up to 30.000000000000757), and `toFixed`
 * of a value on a rounding boundary printed the same cost per commit as $0.007 in one place and $0.008
 * in another; noise below the twelfth significant digit is dropped before rounding.
 */
export function formatDollars(value: number): string {
  const decimals = value !== 0 && Math.abs(value) < 1 ? 3 : 2;
  const scale = 10 ** decimals;
  return `$${(Math.round(Number((value * scale).toPrecision(12))) / scale).toFixed(decimals)}`;
}

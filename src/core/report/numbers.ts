/** Numbers as people read them: a whole number prints whole ("1", not "1.0"), anything else with one decimal. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

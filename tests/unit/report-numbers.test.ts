import { describe, expect, it } from '@jest/globals';
import { dollarDecimals, formatDollars, formatTokenCount } from '../../src/core/report/numbers.js';

describe('numbers as the report prints them', () => {
  it.each([
    [0, '0'],
    [999, '999'],
    [1_000, '1.0k'],
    [7_849, '7.8k'],
    [7_850, '7.9k'],
    [7_950, '8.0k'],
    [12_345, '12.3k'],
    [999_949, '999.9k'],
    [999_950, '1.0M'],
    [1_250_000, '1.3M'],
    [3_000_000, '3.0M'],
  ])('shortens %d tokens to %s, a half rounded up', (tokens, text) => {
    expect(formatTokenCount(tokens)).toBe(text);
  });

  it.each([
    [[9, 7.5, 17], 2],
    [[9, 0.5, null], 3],
    [[0, 1.57], 2],
    [[0.967, 0.6, 0.01, 0, 1.57], 3],
    [[null], 2],
  ])('gives a column of dollars %j one precision: %d decimals', (values, decimals) => {
    expect(dollarDecimals(values)).toBe(decimals);
  });

  it('prints every value of a column with its decimals', () => {
    const column = [0.967, 0.6, 0.01, 0, 1.57];
    const decimals = dollarDecimals(column);
    expect(column.map((value) => formatDollars(value, decimals))).toEqual(['$0.967', '$0.600', '$0.010', '$0.000', '$1.570']);
    // On its own a value keeps the rule every surface shares (recommend's "$0.750 per accepted commit").
    expect([formatDollars(0.75), formatDollars(1.57), formatDollars(0)]).toEqual(['$0.750', '$1.57', '$0.00']);
  });
});

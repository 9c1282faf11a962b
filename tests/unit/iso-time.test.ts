/**
 * How a stored time is kept: the milliseconds of an ISO text only when they give that very text
 * back, asked again and again by one write (its records share their times), and the way back.
 */
import { describe, expect, it } from '@jest/globals';
import { isoMillis, isoText } from '../../src/core/iso-time.js';

const NOV_25 = Date.UTC(2026, 10, 25, 10, 0, 0, 123);
const MAR_2 = Date.UTC(2026, 2, 2, 8, 30, 0, 0);
const FIRST_FOUR_DIGIT_MS = Date.parse('0000-01-01T00:00:00.000Z');
const LAST_FOUR_DIGIT_MS = Date.parse('9999-12-31T23:59:59.999Z');

describe('isoMillis', () => {
  it('reads the milliseconds of a canonical ISO text, the same each time it is asked', () => {
    expect(isoMillis('2026-11-25T10:00:00.123Z')).toBe(NOV_25);
    expect(isoMillis('2026-11-25T10:00:00.123Z')).toBe(NOV_25);
  });

  it('answers each text for itself when texts alternate', () => {
    const texts = ['2026-11-25T10:00:00.123Z', '2026-03-02T08:30:00.000Z', '2026-03-02T08:30:00.000Z', '2026-11-25T10:00:00.123Z'];
    expect(texts.map(isoMillis)).toEqual([NOV_25, MAR_2, MAR_2, NOV_25]);
  });

  it('keeps a text that would not come back the same as text, asked once or twice, before or after a good one', () => {
    // 30 February parses as 2 March: its milliseconds would read back as another text.
    const impossible = '2026-02-30T08:30:00.000Z';
    expect(isoMillis(impossible)).toBeUndefined();
    expect(isoMillis(impossible)).toBeUndefined();
    expect(isoMillis('2026-03-02T08:30:00.000Z')).toBe(MAR_2);
    expect(isoMillis(impossible)).toBeUndefined();
  });

  it('leaves other spellings of a time alone', () => {
    for (const text of ['2026-11-25T10:00:00Z', '2026-11-25T10:00:00.123+00:00', '2026-11-25 10:00:00.123Z', '2026-11-25T10:00:00.123z', '']) {
      expect(isoMillis(text)).toBeUndefined();
    }
    expect(isoMillis('2026-11-25T10:00:00.123Z')).toBe(NOV_25);
    expect(isoMillis('2026-11-25 10:00:00.123Z')).toBeUndefined();
  });
});

describe('isoText', () => {
  it('writes the text isoMillis read', () => {
    expect(isoText(NOV_25)).toBe('2026-11-25T10:00:00.123Z');
    expect(isoText(MAR_2)).toBe('2026-03-02T08:30:00.000Z');
  });

  it('writes the very text Date writes, at the edges of days, months, leap years, eras and four-digit years', () => {
    const times = [
      0,
      -1,
      1,
      Date.UTC(1969, 11, 31, 23, 59, 59, 999),
      Date.UTC(2000, 1, 29, 12, 0, 0, 7),
      Date.UTC(2000, 2, 1),
      Date.UTC(1900, 1, 28, 23, 59, 59, 999),
      Date.UTC(1900, 2, 1),
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      Date.UTC(2100, 1, 28),
      Date.UTC(2100, 2, 1),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(2027, 0, 1),
      Date.UTC(1600, 1, 29),
      Date.UTC(400, 2, 1),
      Date.parse('0001-01-01T00:00:00.000Z') - 1,
      Date.parse('0004-02-29T00:00:00.000Z'),
      FIRST_FOUR_DIGIT_MS,
      LAST_FOUR_DIGIT_MS,
    ];
    for (const millis of times) expect([millis, isoText(millis)]).toEqual([millis, new Date(millis).toISOString()]);
  });

  it('writes what Date writes for 20,000 times spread over four-digit years', () => {
    const span = LAST_FOUR_DIGIT_MS - FIRST_FOUR_DIGIT_MS;
    let seed = 12345;
    const wrong: string[] = [];
    for (let n = 0; n < 20_000; n++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      const millis = FIRST_FOUR_DIGIT_MS + Math.floor((seed / 2 ** 31) * span);
      const expected = new Date(millis).toISOString();
      if (isoText(millis) !== expected) wrong.push(`${millis}: ${isoText(millis)} instead of ${expected}`);
    }
    expect(wrong).toEqual([]);
  });

  it('leaves times outside four-digit years, parts of a millisecond and what is no time to Date', () => {
    for (const millis of [FIRST_FOUR_DIGIT_MS - 1, LAST_FOUR_DIGIT_MS + 1, 8.64e15, 1.9, -0.5]) {
      expect(isoText(millis)).toBe(new Date(millis).toISOString());
    }
    expect(isoText(FIRST_FOUR_DIGIT_MS - 1)).toBe('-000001-12-31T23:59:59.999Z');
    expect(isoText(LAST_FOUR_DIGIT_MS + 1)).toBe('+010000-01-01T00:00:00.000Z');
    expect(() => isoText(Number.NaN)).toThrow(RangeError);
    expect(() => isoText(8.64e15 + 1)).toThrow(RangeError);
  });
});

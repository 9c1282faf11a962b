/**
 * How a stored time is kept: the milliseconds of an ISO text only when they give that very text
 * back, asked again and again by one write (its records share their times), and the way back.
 */
import { describe, expect, it } from '@jest/globals';
import { isoMillis, isoText } from '../../src/core/iso-time.js';

const NOV_25 = Date.UTC(2026, 10, 25, 10, 0, 0, 123);
const MAR_2 = Date.UTC(2026, 2, 2, 8, 30, 0, 0);

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
});

/**
 * The plain-read walk of the database file's trees (lmdb-walk.ts): a sound file written through
 * the real store passes; a page of noise where the trees reach is named; the tolerant walk reads
 * the records of every intact leaf, on both sides of a damaged one.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { lmdbTreeProblem, readableRecords } from '../../src/core/store/lmdb-walk.js';
import { block, recordHistory } from '../helpers/synthetic-history.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const PAGE = 4096;
let tracker: TempTracker;
let file: string;
let pristine: Buffer;
let sessionKeys: string[];

/** A copy of the file with page `page` overwritten by noise. */
function damagedCopy(page: number): string {
  const copy = `${file}.copy-${page}`;
  const bytes = Buffer.from(pristine);
  randomBytes(PAGE).copy(bytes, page * PAGE);
  fs.writeFileSync(copy, bytes);
  return copy;
}

beforeAll(() => {
  tracker = tempTracker();
  recordHistory(
    [
      block({ agent: 'build', model: 'anthropic/claude', project: '/work/alpha', sessions: 150 }),
      block({ agent: 'plan', model: 'openai/gpt', project: '/work/beta', sessions: 8 }),
    ],
    { store: tracker.store, config: tracker.config },
  );
  file = tracker.config.databasePath;
  sessionKeys = [...tracker.store.tables.usage.getKeys()].map((key) => JSON.stringify(key));
  tracker.store.close();
  pristine = fs.readFileSync(file);
});

afterAll(() => tracker.dispose());

describe('the plain-read walk of the trees', () => {
  it('finds nothing wrong with a sound file', () => {
    expect(lmdbTreeProblem(file)).toBeUndefined();
  });

  it('names noise on either meta page', () => {
    expect(lmdbTreeProblem(damagedCopy(0))).toMatch(/meta page 0/);
    expect(lmdbTreeProblem(damagedCopy(1))).toMatch(/meta page 1/);
  });

  it('names a sync meta (half of page 0) that outbids the meta pages with nonsense, which a writer would take', () => {
    // Half a page, then the page header (24), magic, version, address and map size (24), two tree records (96), the last page (8).
    const txnIdAt = PAGE / 2 + 24 + 24 + 96 + 8;
    const bytes = Buffer.from(pristine);
    bytes.writeBigUInt64LE(1n << 40n, txnIdAt);
    const copy = `${file}.sync-meta`;
    fs.writeFileSync(copy, bytes);
    expect(lmdbTreeProblem(copy)).toMatch(/sync meta in page 0/);
  });

  it('names most pages of a file full of records, each by its number, and never throws', () => {
    const pages = pristine.length / PAGE;
    const named: number[] = [];
    for (let page = 2; page < pages; page += 1) {
      const copy = damagedCopy(page);
      const problem = lmdbTreeProblem(copy);
      fs.rmSync(copy);
      if (problem === undefined) continue;
      expect(problem).toContain(`page ${page}`);
      named.push(page);
    }
    // Pages past the last one in use and pages on the free list are the only ones no tree reaches.
    expect(named.length).toBeGreaterThan(pages / 2);
  });

  it('reads the records of intact leaves on both sides of a damaged one', () => {
    // The sessions table spans several leaves: find a page whose noise costs it some, not all, records.
    const pages = pristine.length / PAGE;
    let checked = 0;
    for (let page = 2; page < pages && checked < 3; page += 1) {
      const copy = damagedCopy(page);
      if (!/a leaf of table "sessions"/.test(lmdbTreeProblem(copy) ?? '')) continue;
      const sessions = readableRecords(copy).get('sessions');
      expect(sessions?.faults.length).toBe(1);
      expect(sessions?.expected).toBe(sessionKeys.length);
      const read = sessions?.records.length ?? 0;
      expect(read).toBeGreaterThan(0);
      expect(read).toBeLessThan(sessionKeys.length);
      checked += 1;
    }
    expect(checked).toBeGreaterThan(1);
  });
});

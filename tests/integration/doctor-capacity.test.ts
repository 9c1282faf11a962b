/** Doctor says how many more entries the size limit allows at the database's own rate. */
import fs from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { resolveConfig } from '../../src/core/config.js';
import { describeCapacity, remainingCapacity } from '../../src/core/store/size-limit.js';
import { Store } from '../../src/core/store/store.js';
import { mutationOf } from '../helpers/prior-art-store.js';
import type { Seed } from '../helpers/prior-art-store.js';
import { makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';
import { termIndexer } from '../../src/core/search/indexer.js';

describe('the room left under the size limit', () => {
  it.each([
    [{ fileBytes: 1_000_000, limit: 10_000_000, entries: 1_000 }, { entries: 1_000, bytesPerEntry: 1_000, moreEntries: 9_000 }],
    [{ fileBytes: 3_000, limit: 10_000, entries: 3 }, { entries: 3, bytesPerEntry: 1_000, moreEntries: 7 }],
    [{ fileBytes: 1_000, limit: 2_500, entries: 2 }, { entries: 2, bytesPerEntry: 500, moreEntries: 3 }],
    [{ fileBytes: 12_000, limit: 10_000, entries: 4 }, { entries: 4, bytesPerEntry: 3_000, moreEntries: 0 }],
    [{ fileBytes: 40_960, limit: 10_000_000, entries: 0 }, { entries: 0, bytesPerEntry: null, moreEntries: null }],
    // Free pages in the file (freed by earlier writes, filled by later ones) are room, not rate.
    [{ fileBytes: 3_000_000, usedBytes: 2_000_000, limit: 10_000_000, entries: 2_000 }, { entries: 2_000, bytesPerEntry: 1_000, moreEntries: 8_000 }],
    [{ fileBytes: 3_000, usedBytes: 5_000, limit: 10_000, entries: 3 }, { entries: 3, bytesPerEntry: 1_000, moreEntries: 7 }],
  ])('for %p is %p', (input, expected) => {
    expect(remainingCapacity(input)).toEqual(expected);
  });

  it('says it in one line, naming what it counts, or that no entry gives a rate yet', () => {
    expect(describeCapacity({ entries: 3, bytesPerEntry: 1_000, moreEntries: 7 })).toBe(
      "about 7 more entries (commits, activities, retrospectives) fit at this database's rate: 1000 bytes each, over the 3 so far",
    );
    expect(describeCapacity({ entries: 0, bytesPerEntry: null, moreEntries: null })).toBe('no commit, activity or retrospective recorded yet to tell how many more fit');
  });
});

describe('agent-tracker doctor', () => {
  it('shows how many more entries fit at the rate of this database, in text and --json', () => {
    const sandbox = makeSandbox('agent-tracker-doctor-capacity-');
    try {
      const config = resolveConfig({ env: {}, home: sandbox.home });
      // doctor reads: the database must exist (an empty one here).
      Store.open({ path: sandbox.dbPath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer }).close();
      const empty = JSON.parse(runCli(sandbox, ['doctor', '--json']).stdout) as { capacity: unknown };
      expect(empty.capacity).toEqual({ entries: 0, bytesPerEntry: null, moreEntries: null });

      const store = Store.open({ path: sandbox.dbPath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
      const seeds: Seed[] = [
        ...Array.from({ length: 30 }, (_, i): Seed => ({ kind: 'activity', id: `a${i}`, task: `resize thumbnails in batch ${i}` })),
        ...Array.from({ length: 20 }, (_, i): Seed => ({ kind: 'commit', id: `c${i}`, message: `Cache thumbnail ${i}` })),
        ...Array.from({ length: 10 }, (_, i): Seed => ({ kind: 'retrospective', id: `r${i}`, task: `thumbnail grid ${i}`, userGrade: 2 })),
      ];
      store.applyBatch(seeds.map(mutationOf), config.rules, new Date().toISOString());
      const usedBytes = store.bytesInUse() ?? Number.NaN;
      store.close();
      expect(usedBytes).toBeLessThanOrEqual(fs.statSync(sandbox.dbPath).size);
      const perEntry = usedBytes / 60;
      const expected = { entries: 60, bytesPerEntry: Math.round(perEntry), moreEntries: Math.floor((config.maxDatabaseSize - usedBytes) / perEntry) };

      const json = runCli(sandbox, ['doctor', '--json']);
      expect(json.code).toBe(0);
      expect((JSON.parse(json.stdout) as { capacity: unknown }).capacity).toEqual(expected);
      const text = runCli(sandbox, ['doctor']);
      expect(text.stdout).toContain(
        `room            about ${expected.moreEntries} more entries (commits, activities, retrospectives) fit at this database's rate: ${expected.bytesPerEntry} bytes each, over the 60 so far`,
      );
    } finally {
      removeSandbox(sandbox);
    }
  });
});

/**
 * The plugin's after-flush merge of the term index's runs (store-health.ts `indexMaintainer`): the
 * flush at a turn's end only writes a run; a step a moment later, in its own transaction, merges it.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { TermIndexReader } from '../../src/core/search/index/reader.js';
import type { DocumentIndexer } from '../../src/core/store/store.js';
import { indexMaintainer } from '../../src/opencode/store-health.js';
import { priorArtStore, type PriorArtStore } from '../helpers/prior-art-store.js';
import { recordingLogger } from '../helpers/temp-store.js';

let t: PriorArtStore | undefined;
afterEach(() => {
  t?.dispose();
  t = undefined;
});

/** Waits (at most `ms`) until `done` holds. */
async function waitFor(done: () => boolean, ms = 2_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (!done() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 5));
  return done();
}

const pendingRuns = (store: PriorArtStore['store']) => new TermIndexReader(store.tables.terms).pendingRuns().runs;

describe('the index maintainer after each flush', () => {
  it('merges the run a flush wrote a moment later, not during the flush', async () => {
    t = priorArtStore();
    const store = t.store;
    const logged: { level: string; message: string }[] = [];
    const maintainer = indexMaintainer(store, recordingLogger(logged), 1);
    try {
      t.write([{ kind: 'activity', id: 'a', task: 'thumbnail cache warmup' }]);
      maintainer.onFlushed();
      expect(pendingRuns(store)).toBe(1);
      expect(await waitFor(() => pendingRuns(store) === 0)).toBe(true);
      expect(logged).toEqual([]);
    } finally {
      maintainer.stop();
    }
  });

  it('runs nothing once stopped: what is scheduled is cancelled, later flushes schedule nothing', async () => {
    t = priorArtStore();
    const store = t.store;
    const maintainer = indexMaintainer(store, recordingLogger([]), 1);
    t.write([{ kind: 'activity', id: 'a', task: 'thumbnail cache warmup' }]);
    maintainer.onFlushed();
    maintainer.stop();
    t.write([{ kind: 'activity', id: 'b', task: 'thumbnail resize' }]);
    maintainer.onFlushed();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pendingRuns(store)).toBe(2);
  });

  it('logs a failing step once, never throws, and goes on at the next flush', async () => {
    t = priorArtStore();
    const store = t.store;
    let failures = 0;
    const failing: DocumentIndexer = Object.assign(() => undefined, {
      maintain: () => {
        failures += 1;
        if (failures <= 2) throw new Error('disk on fire');
        return false;
      },
    });
    store.addIndexer(failing);
    const logged: { level: string; message: string }[] = [];
    const maintainer = indexMaintainer(store, recordingLogger(logged), 1);
    try {
      t.write([{ kind: 'activity', id: 'a', task: 'thumbnail cache warmup' }]);
      maintainer.onFlushed();
      expect(await waitFor(() => failures === 1)).toBe(true);
      maintainer.onFlushed();
      expect(await waitFor(() => failures === 2)).toBe(true);
      // The failed steps wrote nothing (one transaction each): the run waits, readable.
      expect(pendingRuns(store)).toBe(1);
      expect(logged.filter((line) => line.message.includes('disk on fire'))).toHaveLength(1);
      maintainer.onFlushed();
      expect(await waitFor(() => pendingRuns(store) === 0)).toBe(true);
    } finally {
      maintainer.stop();
    }
  });
});

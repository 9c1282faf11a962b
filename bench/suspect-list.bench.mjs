/**
 * The suspect user-only records `report`, `status`, `doctor` and `review` list: read through their
 * index, against the whole-journal-and-chain scan a database without the index still gets (the same
 * store, the index's mark removed). A journal of many ordinary entries, a chain entry per flush, and
 * a handful of suspect records, as a real history has.
 *
 * Target: the indexed read at most a tenth of the scan (it reads a few keys, the scan every entry).
 */
import { performance } from 'node:perf_hooks';
import { dist, median, removeDir, tempDir } from './support.mjs';

const PROJECT = '/bench/project';
const TARGET_RATIO = 0.1;

export default async function run({ quick }) {
  const journalEntries = quick ? 5_000 : 40_000;
  const perFlush = 20;
  const runs = quick ? 5 : 15;
  const [{ Store }, { TrackingService }, { resolveConfig }, { silentLogger }, { termIndexer }, { suspectUserActions }] = await Promise.all([
    dist('core/store/store.js'),
    dist('core/tracking/service.js'),
    dist('core/config.js'),
    dist('core/logger.js'),
    dist('core/search/indexer.js'),
    dist('core/integrity/suspect-actions.js'),
  ]);
  const dir = tempDir('suspect-list');
  try {
    const config = resolveConfig({ options: { databasePath: `${dir}/bench.lmdb` }, env: {}, home: dir });
    const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
    let tick = 0;
    const service = new TrackingService({ store, config, logger: silentLogger, project: PROJECT, now: () => new Date(Date.UTC(2025, 0, 1) + 1000 * tick++) });
    service.noteModelRequest('s1', 'build', 'bench/model');
    for (let i = 0; i < journalEntries; i += 1) {
      service.logActivity({ sessionId: 's1', agent: 'build', project: PROJECT, task: `turn ${i}`, outcome: 'done' });
      service.recordToolCall('s1', `c${i}`, 'bash', true);
      if (i % 5_000 === 2_500) service.recordUserAction({ agent: 'build', project: PROJECT, summary: 'User revived build', provenance: { action: 'revive', via: 'terminal-no-tty', suspect: true } });
      if (i % perFlush === perFlush - 1) service.flush('bench');
    }
    service.flush('bench');

    const time = () => {
      const samples = [];
      let listed = 0;
      for (let i = 0; i < runs; i += 1) {
        const started = performance.now();
        listed = suspectUserActions(store).length;
        samples.push(performance.now() - started);
      }
      return { ms: median(samples), listed };
    };
    const indexed = time();
    // A database from before the index: the same records, no mark, so readers scan.
    const mark = store.tables.meta.get('suspect-index');
    store.write((tables) => tables.meta.removeSync('suspect-index'));
    const scanned = time();
    store.write((tables) => tables.meta.putSync('suspect-index', mark));
    store.close();
    if (indexed.listed !== scanned.listed) throw new Error(`the index lists ${indexed.listed} suspect records, the scan ${scanned.listed}`);
    const name = `suspect records (${indexed.listed}) among ${journalEntries.toLocaleString('en')} journal entries and ${Math.ceil(journalEntries / perFlush).toLocaleString('en')} flushes`;
    const ratio = indexed.ms / scanned.ms;
    return [
      { name, metric: `whole journal and chain scanned (no index), median of ${runs}`, value: scanned.ms, unit: 'ms' },
      { name, metric: 'read through the index', value: indexed.ms, unit: 'ms', baseline: scanned.ms, ratio, target: `<= ${TARGET_RATIO}x`, pass: ratio <= TARGET_RATIO },
    ];
  } finally {
    removeDir(dir);
  }
}

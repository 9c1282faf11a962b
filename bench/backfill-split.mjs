#!/usr/bin/env node
/**
 * Where a fresh backfill's CPU goes, split by leaving parts out, in ONE process: the import of the
 * same OpenCode store (its data folder, e.g. the one support.mjs's buildOpenCodeStore writes) into a
 * fresh database, five ways, alternating round by round with the order rotating:
 *   read         reading and parsing every session, the copy check and the counts (`dryRun`)
 *   record       the same plus the replay through TrackingService into its write buffer, which is
 *                handed over and dropped instead of flushed
 *   noStore      the whole import with the store's applyBatch doing nothing (the flusher's own work kept)
 *   noEventPuts  the whole import with the `events` table's puts left out (everything else written)
 *   full         the whole import
 * The differences are the parts: recorder = record - read, the flusher's own work = noStore - record,
 * the store's write without the events puts = noEventPuts - noStore, events puts = full - noEventPuts. Warm figures (the first round is a
 * warm-up, not counted): a CLI run is cold and pays process start, module loading and the JIT on top.
 * Not a benchmark of the runner (not `*.bench.mjs`).
 *
 *   node bench/backfill-split.mjs OPENCODE_DATA_DIR ROUNDS [ROOT]   (ROOT holds a built dist/, default this tree)
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, removeDir, ROOT, silentLogger, tempDir } from './support.mjs';

const [dataDir, roundsArg, rootArg] = process.argv.slice(2);
const rounds = Number(roundsArg);
if (!dataDir || !(rounds > 0)) {
  console.error('usage: node bench/backfill-split.mjs OPENCODE_DATA_DIR ROUNDS [ROOT]');
  process.exit(2);
}
const root = path.resolve(rootArg ?? ROOT);
const module = (relative) => import(pathToFileURL(path.join(root, 'dist', relative)).href);
const { resolveConfig } = await module('core/config.js');
const { Store } = await module('core/store/store.js');
const { termIndexer } = await module('core/search/indexer.js');
const { TrackingService } = await module('core/tracking/service.js');
const { importHistory } = await module('opencode/history/import.js');

/** How each variant changes the import before it runs. */
const VARIANTS = {
  read: { dryRun: true },
  record: {
    prepare(service) {
      // The buffer is taken and dropped: everything up to the flush runs, nothing is written.
      service.flush = () => {
        service.takePending();
        return { ok: true, mutations: 0, durationMs: 0 };
      };
    },
  },
  noStore: {
    prepare(_service, store) {
      // The flush runs up to the store, which writes nothing: the buffer's hand-over and the flusher's own work.
      store.applyBatch = (mutations) => ({ mutations: mutations.length, durationMs: 0, counted: [] });
    },
  },
  noEventPuts: {
    prepare(_service, store) {
      // The events table is a plain lmdb table (no stored form): its puts become no-ops that say "written".
      store.writable.events.putSync = () => true;
    },
  },
  full: {},
};

async function importOnce(variant) {
  const dbDir = tempDir('backfill-split');
  try {
    const config = resolveConfig({ options: { databasePath: path.join(dbDir, 'db.lmdb') }, env: {}, home: dbDir });
    const started = process.cpuUsage();
    const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
    const service = new TrackingService({ store, config, logger: silentLogger, project: dbDir });
    variant.prepare?.(service, store);
    const outcome = await importHistory(service, dataDir, variant.dryRun ? { dryRun: true } : {});
    store.close();
    const used = process.cpuUsage(started);
    if (outcome.upToDate || outcome.summary.sessions === 0) throw new Error(`nothing imported from ${dataDir}`);
    return (used.user + used.system) / 1e6;
  } finally {
    removeDir(dbDir);
  }
}

const names = Object.keys(VARIANTS);
const cpuS = Object.fromEntries(names.map((name) => [name, []]));
for (let round = 0; round <= rounds; round += 1) {
  const order = names.map((_, i) => names[(i + round) % names.length]);
  for (const name of order) {
    const seconds = await importOnce(VARIANTS[name]);
    if (round > 0) cpuS[name].push(seconds);
  }
}
const m = Object.fromEntries(names.map((name) => [name, median(cpuS[name])]));
const parts = {
  'reading (sql.js or the native engine, JSON.parse, copy check, counts)': m.read,
  'recorder (replay through TrackingService into the write buffer)': m.record - m.read,
  "the flusher's own work (buffer hand-over, listeners, memory steps)": m.noStore - m.record,
  "the store's write without the events puts (size bound, chain, apply, other tables, index, commits)": m.noEventPuts - m.noStore,
  'events puts (one per host event)': m.full - m.noEventPuts,
};
for (const name of names) console.log(JSON.stringify({ variant: name, cpuS: cpuS[name].map((s) => Number(s.toFixed(3))), medianS: Number(m[name].toFixed(3)) }));
for (const [part, seconds] of Object.entries(parts)) console.log(JSON.stringify({ part, cpuS: Number(seconds.toFixed(3)), share: Number((seconds / m.full).toFixed(3)) }));
console.log(JSON.stringify({ root, node: process.version, loadAverage: fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ') }));

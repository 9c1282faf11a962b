/**
 * One backfill measured in a process of its own (so its peak memory is its own): reads the history
 * store in argv[2] into a new database in argv[3]; `--read-only` only reads it (the baseline).
 * Prints one JSON line: { ms, maxRssMiB, sessions, incrementalMs, touchedMs }.
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { dist, median, silentLogger } from './support.mjs';

/**
 * This process's peak RSS. On Linux from /proc (VmHWM, reset when the process image is replaced):
 * getrusage's maxRSS survives exec, so it would report the parent's size at fork whenever the
 * parent (the bench, which has just written the store with sql.js) was larger.
 */
function peakRssMiB() {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]) / 1024;
  } catch {
    // Not Linux: getrusage's figure.
  }
  return process.resourceUsage().maxRSS / 1024;
}

const [dataDir, dbDir] = process.argv.slice(2);
const readOnly = process.argv.includes('--read-only');
const { resolveConfig } = await dist('core/config.js');
const { Store } = await dist('core/store/store.js');
const { termIndexer } = await dist('core/search/indexer.js');
const { TrackingService } = await dist('core/tracking/service.js');
const { importHistory } = await dist('opencode/history/import.js');
const { openHistory } = await dist('opencode/history/locate.js');

const config = resolveConfig({ options: { databasePath: path.join(dbDir, 'db.lmdb'), maxDatabaseSize: 2 ** 31 }, env: {}, home: dbDir });
const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
const service = new TrackingService({ store, config, logger: silentLogger, project: dbDir });
const started = performance.now();
let sessions = 0;
if (readOnly) {
  const source = await openHistory(dataDir);
  for await (const session of source.sessions({})) if (!('unreadable' in session)) sessions += 1;
  source.close();
} else {
  const outcome = await importHistory(service, dataDir);
  sessions = outcome.upToDate ? 0 : outcome.summary.sessions;
}
const ms = performance.now() - started;
// The backfill's own peak, before the incremental imports below add theirs.
const maxRssMiB = peakRssMiB();
const incremental = [];
if (!readOnly) {
  for (let i = 0; i < 21; i += 1) {
    const t = performance.now();
    const outcome = await importHistory(service, dataDir);
    incremental.push(performance.now() - t);
    if (!outcome.upToDate) throw new Error('nothing changed, yet the import read the store again');
  }
}
// OpenCode wrote since (its files' times moved) but no session is newer: the store is opened and its sessions table read.
const touched = [];
if (!readOnly) {
  const database = path.join(dataDir, 'opencode.db');
  for (let i = 0; i < 5; i += 1) {
    fs.utimesSync(database, new Date(), new Date(Date.now() + (i + 1) * 1000));
    const t = performance.now();
    const outcome = await importHistory(service, dataDir);
    touched.push(performance.now() - t);
    if (outcome.upToDate || outcome.summary.sessions > 1) throw new Error('a touched store should be read, and hold at most the watermark session');
  }
}
store.close();
console.log(JSON.stringify({ ms, maxRssMiB, sessions, incrementalMs: incremental.length ? median(incremental) : null, touchedMs: touched.length ? median(touched) : null }));

/**
 * Run by import-check.bench.mjs under the Bun inside the `opencode` binary (as the plugin runs in
 * OpenCode), one measurement per process so each pays its first module load as the plugin does:
 *   check DB LOCATION CANDIDATES MAX  the plugin's in-process check (import-needed.ts) with the watermark
 *                                     placed so that CANDIDATES sessions are read (MAX: its bound; 0 = none)
 *   stale DB LOCATION CANDIDATES      writes that watermark with a signature that no longer matches, so the
 *                                     import child (timed by the bench) reads those sessions
 * Prints one JSON line. Not a benchmark itself.
 */
import { Database } from 'bun:sqlite';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

const DIST = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const dist = (relative) => import(pathToFileURL(path.join(DIST, relative)).href);
const [mode, dbPath, location, candidatesArg, maxArg] = process.argv.slice(2);
const candidates = Number(candidatesArg);

/** The update time of the CANDIDATES-th newest session: a watermark there leaves exactly those to read. */
function markAt() {
  const db = new Database(path.join(location, 'opencode.db'), { readonly: true });
  const row = db.query('SELECT time_updated AS t FROM session ORDER BY time_updated DESC LIMIT 1 OFFSET ?').get(candidates - 1);
  db.close();
  return row.t;
}

const { Store } = await dist('core/store/store.js');
const store = Store.open({ path: dbPath, maxDatabaseSize: 512 * 1024 * 1024 });
try {
  const mark = { updatedAt: markAt(), signature: 'stale', importedAt: new Date().toISOString() };
  if (mode === 'stale') {
    store.putRecords([{ table: 'meta', key: `backfill:${location}`, value: mark }]);
    console.log(JSON.stringify({ ok: true }));
  } else {
    const rssBefore = process.memoryUsage().rss;
    const cpuBefore = process.cpuUsage();
    const t0 = performance.now();
    const { historyImportNeeded } = await dist('opencode/history/import-needed.js');
    const need = await historyImportNeeded(store, location, mark, Date.now(), Number(maxArg) || Number.MAX_SAFE_INTEGER);
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpuBefore);
    const rssAfter = process.memoryUsage().rss;
    console.log(JSON.stringify({ need, wallMs, cpuMs: (cpu.user + cpu.system) / 1000, rssGrowthMiB: (rssAfter - rssBefore) / 1048576, rssMiB: rssAfter / 1048576 }));
  }
} finally {
  store.close();
}

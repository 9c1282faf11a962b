#!/usr/bin/env node
/**
 * Paired CPU of a fresh backfill of two builds (or more) in ONE process: every build's dist/ is loaded
 * and their imports of the same OpenCode store (argument: its data folder, e.g. one written by
 * backfill-pair.mjs's generator) into fresh databases alternate round by round, the order reversing
 * each round, so they share the machine's state; process start and module loading are left out.
 * The first round warms up and is not counted. Prints each build's median CPU (process.cpuUsage)
 * and its ratio to the first build's. Not a benchmark of the runner (not `*.bench.mjs`).
 *
 *   node bench/backfill-cpu-pair.mjs OPENCODE_DATA_DIR ROUNDS ROOT_A ROOT_B ...   (each ROOT holds a built dist/)
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, removeDir, silentLogger, tempDir } from './support.mjs';

async function load(root) {
  const module = (relative) => import(pathToFileURL(path.join(root, 'dist', relative)).href);
  // Builds before the search split kept the indexer in core/query.
  const indexer = fs.existsSync(path.join(root, 'dist', 'core', 'search', 'indexer.js')) ? 'core/search/indexer.js' : 'core/query/indexer.js';
  return {
    root,
    resolveConfig: (await module('core/config.js')).resolveConfig,
    Store: (await module('core/store/store.js')).Store,
    termIndexer: (await module(indexer)).termIndexer,
    TrackingService: (await module('core/tracking/service.js')).TrackingService,
    importHistory: (await module('opencode/history/import.js')).importHistory,
    cpuS: [],
  };
}

async function backfillOnce(build, dataDir) {
  const dbDir = tempDir('backfill-cpu-pair');
  try {
    const config = build.resolveConfig({ options: { databasePath: path.join(dbDir, 'db.lmdb') }, env: {}, home: dbDir });
    const started = process.cpuUsage();
    const store = build.Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: build.termIndexer });
    const service = new build.TrackingService({ store, config, logger: silentLogger, project: dbDir });
    const outcome = await build.importHistory(service, dataDir);
    store.close();
    const used = process.cpuUsage(started);
    if (outcome.upToDate || outcome.summary.sessions === 0) throw new Error(`${build.root} imported nothing from ${dataDir}`);
    return (used.user + used.system) / 1e6;
  } finally {
    removeDir(dbDir);
  }
}

const [dataDir, roundsArg, ...roots] = process.argv.slice(2);
const rounds = Number(roundsArg);
if (!dataDir || !(rounds > 0) || roots.length === 0) {
  console.error('usage: node bench/backfill-cpu-pair.mjs OPENCODE_DATA_DIR ROUNDS ROOT_A [ROOT_B ...]');
  process.exit(2);
}
const builds = [];
for (const root of roots) builds.push(await load(root));
for (let round = 0; round <= rounds; round += 1) {
  for (const build of round % 2 ? [...builds].reverse() : builds) {
    const cpuS = await backfillOnce(build, dataDir);
    if (round > 0) build.cpuS.push(cpuS);
  }
}
const first = median(builds[0].cpuS);
for (const build of builds) {
  const value = median(build.cpuS);
  console.log(JSON.stringify({ root: build.root, cpuS: build.cpuS.map((s) => Number(s.toFixed(3))), medianS: Number(value.toFixed(3)), ratio: Number((value / first).toFixed(3)) }));
}
console.log(JSON.stringify({ loadAverage: fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ') }));

#!/usr/bin/env node
/**
 * Paired `recommend` cost of two builds (or more), for a regression check: every build's dist/ is
 * loaded into ONE process, each build's store is filled with the history of its own
 * bench/report.bench.mjs (10,000 sessions), each build runs the bench's 15 reports first (as
 * report.bench.mjs does before its recommend row), and then their `recommendForProject` calls
 * alternate round by round, the order rotating, so both see the same machine state. The figure is a
 * call's CPU time (process.cpuUsage), median over the rounds, and the median of the per-round ratios
 * against the first build. Not a benchmark of the runner (not `*.bench.mjs`).
 *
 *   node bench/recommend-pair.mjs ROUNDS ROOT_A ROOT_B ...   (each ROOT holds a built dist/)
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, removeDir, tempDir } from './support.mjs';

const REPORTS_FIRST = 15;
const WARM_UP_ROUNDS = 3;

async function open(root, dir) {
  const module = (relative) => import(pathToFileURL(path.join(root, relative)).href);
  const { resolveConfig } = await module('dist/core/config.js');
  const { Store } = await module('dist/core/store/store.js');
  // Builds before the search split kept the indexer in core/query.
  const indexer = fs.existsSync(path.join(root, 'dist', 'core', 'search', 'indexer.js')) ? 'dist/core/search/indexer.js' : 'dist/core/query/indexer.js';
  const { termIndexer } = await module(indexer);
  const { loadHistory } = await module('dist/core/report/history.js');
  const { buildReport } = await module('dist/core/report/report.js');
  const { recommendForProject } = await module('dist/core/report/recommend-project.js');
  const { buildHistory } = await module('bench/report.bench.mjs');
  const config = resolveConfig({ options: { databasePath: path.join(dir, 'bench.lmdb') }, env: {}, home: dir });
  const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
  buildHistory(store, config.rules);
  return { root, store, report: () => buildReport(loadHistory(store)), recommend: (target) => recommendForProject(store, target), cpu: [] };
}

async function cpuOf(action) {
  const start = process.cpuUsage();
  await action();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

const [roundsArg, ...roots] = process.argv.slice(2);
if (!roundsArg || roots.length === 0) {
  console.error('usage: node bench/recommend-pair.mjs ROUNDS ROOT_A [ROOT_B ...]');
  process.exit(1);
}
const dirs = [];
const builds = [];
try {
  for (const root of roots) {
    const dir = tempDir('recommend-pair');
    dirs.push(dir);
    builds.push(await open(path.resolve(root), dir));
  }
  // The target folder recommend classifies: the one report.bench.mjs writes.
  const target = path.join(dirs[0], 'target');
  fs.mkdirSync(target);
  fs.writeFileSync(path.join(target, 'Cargo.toml'), '[package]\nname = "target"\nversion = "0.1.0"\n\n[dependencies]\ntokio = "1"\naxum = "0.7"\n');
  for (const build of builds) {
    build.report();
    await build.recommend(target);
  }
  for (let i = 0; i < REPORTS_FIRST; i += 1) for (const build of builds) build.report();
  for (let i = -WARM_UP_ROUNDS; i < Number(roundsArg); i += 1) {
    for (const build of i % 2 === 0 ? builds : [...builds].reverse()) {
      const cpu = await cpuOf(() => build.recommend(target));
      if (i >= 0) build.cpu.push(cpu);
    }
  }
  const [first] = builds;
  for (const build of builds) {
    const paired = median(build.cpu.map((cpu, i) => cpu / first.cpu[i]));
    console.log(`${build.root}: recommendForProject CPU median ${median(build.cpu).toFixed(1)} ms (min ${Math.min(...build.cpu).toFixed(1)}), paired ratio against the first build ${paired.toFixed(3)}`);
  }
} finally {
  for (const build of builds) build.store.close();
  for (const dir of dirs) removeDir(dir);
}

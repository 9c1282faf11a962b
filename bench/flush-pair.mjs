#!/usr/bin/env node
/**
 * Paired flush cost of two builds (or more), for a regression check: every build's dist/ is loaded
 * into ONE process and their flushes alternate round by round, so both see the same machine state
 * (a shared machine's load moves wall and CPU times by more than the differences looked for). Each
 * round records SIZE mutations (the mix of flush.bench.mjs) into a fresh database and flushes them;
 * the figure is the flush's CPU time (process.cpuUsage), median over the rounds, and the median of
 * the per-round ratios against the first build. Not a benchmark of the runner (not `*.bench.mjs`).
 *
 *   node bench/flush-pair.mjs SIZE ROUNDS ROOT_A ROOT_B ...   (each ROOT holds a built dist/)
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { median, removeDir, silentLogger, tempDir } from './support.mjs';

const WARM_UP_ROUNDS = 3;
const NEVER_MUTATIONS = 1_000_000;
const NEVER_MS = 24 * 60 * 60_000;

async function load(root) {
  const module = (relative) => import(pathToFileURL(path.join(root, 'dist', relative)).href);
  const { resolveConfig } = await module('core/config.js');
  const { Store } = await module('core/store/store.js');
  // Builds before the search split kept the indexer in core/query.
  const indexer = fs.existsSync(path.join(root, 'dist', 'core', 'search', 'indexer.js')) ? 'core/search/indexer.js' : 'core/query/indexer.js';
  const { termIndexer } = await module(indexer);
  const { TrackingService } = await module('core/tracking/service.js');
  return { root, resolveConfig, Store, termIndexer, TrackingService, cpu: [], wall: [] };
}

function recordRound(service, count) {
  const agent = 'bench-agent';
  for (let i = 0; service.pendingMutations < count; i += 1) {
    const toolCallFits = count - service.pendingMutations >= (service.knowsAgent(agent) ? 1 : 2);
    if (i % 2 === 0 && toolCallFits) {
      const session = `ses-${String(i).padStart(6, '0')}`;
      service.noteModelRequest(session, agent, 'bench/model');
      service.recordToolCall(session, `call-${i}`, 'bash', true);
    } else {
      service.logActivity({ agent, project: '/bench/project', task: `implement feature ${i} of the parser and its tests`, actions: 'read the grammar, edited src/parser.ts, ran the tests', outcome: 'tests pass', decisions: 'kept the recursive descent design' });
    }
  }
}

function round(build, size, keep) {
  const dir = tempDir('flush-pair');
  try {
    const config = build.resolveConfig({ options: { databasePath: path.join(dir, 'f.lmdb'), maxDatabaseSize: 2047 * 1024 * 1024, flushMaxMutations: NEVER_MUTATIONS, flushMaxAgeMs: NEVER_MS }, env: {}, home: dir });
    const store = build.Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: build.termIndexer });
    try {
      const service = new build.TrackingService({ store, config, logger: silentLogger, project: '/bench/project' });
      recordRound(service, size);
      const cpu = process.cpuUsage();
      const started = performance.now();
      const outcome = service.flush('bench');
      const wall = performance.now() - started;
      const used = process.cpuUsage(cpu);
      if (!outcome.ok) throw outcome.error;
      if (keep) {
        build.cpu.push((used.user + used.system) / 1000);
        build.wall.push(wall);
      }
    } finally {
      store.close();
    }
  } finally {
    removeDir(dir);
  }
}

const [sizeArg, roundsArg, ...roots] = process.argv.slice(2);
if (!sizeArg || !roundsArg || roots.length === 0) {
  console.error('usage: node bench/flush-pair.mjs SIZE ROUNDS ROOT_A [ROOT_B ...]');
  process.exit(1);
}
const builds = [];
for (const root of roots) builds.push(await load(path.resolve(root)));
for (let i = -WARM_UP_ROUNDS; i < Number(roundsArg); i += 1) {
  for (const build of i % 2 === 0 ? builds : [...builds].reverse()) round(build, Number(sizeArg), i >= 0);
}
const [first] = builds;
for (const build of builds) {
  const paired = median(build.cpu.map((cpu, i) => cpu / first.cpu[i]));
  console.log(`${build.root}: flush of ${sizeArg}: CPU ${median(build.cpu).toFixed(3)} ms, wall ${median(build.wall).toFixed(2)} ms, paired CPU ratio against the first build ${paired.toFixed(3)}`);
}

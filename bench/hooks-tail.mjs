#!/usr/bin/env node
/**
 * What the hook path's p99 is made of: runs the hooks benchmark's workload event by event and
 * attributes every slow event (over the 20 µs target) to its position after the turn's flush,
 * to a garbage collection that overlapped it, or to neither. Not a benchmark (the runner only
 * picks up `*.bench.mjs`); run `node --expose-gc bench/hooks-tail.mjs [service|adapter] [flush|sleep|none]`.
 *
 *   flush    the turn ends with endTurn (a flush, as in the benchmark)
 *   nowrite  endTurn, but the store's write is skipped (the buffer is handed over and dropped)
 *   sleep    as nowrite, after a sleep as long as a real flush: the thread idles, nothing is written
 *   nosync   a real flush into a database opened without fsync (lmdb noSync)
 *   pause    a real flush, then a pause (SLEEP_MS, default 2) before the next event: the model thinking
 *   prime    a real flush, then unrelated work (a few thousand Map/Date/JSON operations on other data)
 *   spin     a real flush, then 1 ms of arithmetic that touches no memory (the CPU kept busy, caches not refilled)
 *   settle   a real flush, then the event loop runs once (setImmediate) before the next event, as it does
 *            in a real session, where the next event arrives in a later task
 *
 * ALLOC=1 adds the heap bytes allocated per event (events during which no GC ran), by kind.
 */
import path from 'node:path';
import { setImmediate } from 'node:timers';
import v8 from 'node:v8';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { dist, percentile, removeDir, silentLogger, tempDir } from './support.mjs';

const TARGET_NS = 20_000;
const TURN_EVENTS = 40;
const SESSIONS = 8;
const TOOLS = ['bash', 'read', 'edit', 'grep', 'glob'];
const MESSAGE_EVERY = 4;

const [mode = 'adapter', ending = 'flush'] = process.argv.slice(2);
const events = Number(process.env.EVENTS ?? 60_000);
const warmup = 5_000;
const measureAlloc = process.env.ALLOC === '1';

const gcs = [];
let gcTotal = 0;
/** GCs reported so far (the observer reports late: only a rough guard for the allocation figures). */
const gcCount = () => gcTotal;
new PerformanceObserver((list) => {
  gcTotal += list.getEntries().length;
  for (const entry of list.getEntries()) gcs.push({ start: entry.startTime, end: entry.startTime + entry.duration, kind: entry.detail?.kind ?? entry.kind });
}).observe({ entryTypes: ['gc'] });

function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const dir = tempDir('hooks-tail');
const { resolveConfig } = await dist('core/config.js');
const { Store } = await dist('core/store/store.js');
const { termIndexer } = await dist('core/search/indexer.js');
const { TrackingService } = await dist('core/tracking/service.js');
const { createHooks } = await dist('opencode/hooks.js');
const config = resolveConfig({ options: { databasePath: path.join(dir, 'tail.lmdb') }, env: {}, home: dir });
if (ending === 'nosync') {
  const { open } = await import('lmdb');
  Store.openRoot = (options) => open({ path: options.path, mapSize: options.maxDatabaseSize, maxDbs: 64, compression: true, noSync: true });
}
const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
if (ending === 'nowrite' || ending === 'sleep') store.applyBatch = (mutations) => ({ mutations: mutations.length, durationMs: 0, counted: [] });
const service = new TrackingService({ store, config, logger: silentLogger, project: dir });
for (let s = 0; s < SESSIONS; s += 1) service.noteModelRequest(`ses_bench_${s}`, 'build', 'bench/model');
const hooks = createHooks({ service, logger: silentLogger, directory: dir, ownTools: new Set() });

const samples = [];
const flushTimes = [];
const scratch = new Map();
function spin() {
  const until = performance.now() + 1;
  let x = 1;
  while (performance.now() < until) for (let k = 0; k < 1000; k += 1) x = (x * 1103515245 + 12345) % 2147483648;
  globalThis.spinSink = x; // keeps the loop from being optimized away
}
function prime() {
  for (let k = 0; k < 2000; k += 1) scratch.set(`k${k % 50}`, JSON.stringify([k, new Date().toISOString()]));
}
const flushMs = Number(process.env.SLEEP_MS ?? 2);
try {
  for (let i = 0; i < events + warmup; i += 1) {
    const turn = Math.floor(i / TURN_EVENTS);
    const session = `ses_bench_${turn % SESSIONS}`;
    const kind = i % MESSAGE_EVERY === MESSAGE_EVERY - 1 ? 'message' : 'tool';
    const tool = TOOLS[i % TOOLS.length];
    const tokens = { input: 1000 + i, output: 10 * (i % TURN_EVENTS), reasoning: 0, cacheRead: 500, cacheWrite: 0 };
    const cost = 0.0001 * (i % TURN_EVENTS);
    const heapBefore = measureAlloc ? v8.getHeapStatistics().used_heap_size : 0;
    const gcsBefore = gcCount();
    const at = performance.now();
    let took;
    if (mode === 'service') {
      const started = process.hrtime.bigint();
      if (kind === 'tool') service.recordToolCall(session, `call_${i}`, tool, true);
      else service.recordAssistantMessage(session, `msg_${turn}`, { agent: 'build', model: 'bench/model' }, tokens, cost);
      took = Number(process.hrtime.bigint() - started);
    } else if (kind === 'tool') {
      const input = { tool, sessionID: session, callID: `call_${i}` };
      const beforeOutput = { args: { filePath: 'src/index.ts' } };
      const afterOutput = { title: tool, output: 'ok', metadata: {} };
      const started = process.hrtime.bigint();
      await hooks['tool.execute.before'](input, beforeOutput);
      await hooks['tool.execute.after']({ ...input, args: beforeOutput.args }, afterOutput);
      took = Number(process.hrtime.bigint() - started);
    } else {
      const info = {
        role: 'assistant', id: `msg_${turn}`, sessionID: session, agent: 'build', providerID: 'bench', modelID: 'model',
        tokens: { input: tokens.input, output: tokens.output, reasoning: 0, cache: { read: tokens.cacheRead, write: 0 } }, cost,
      };
      const started = process.hrtime.bigint();
      await hooks.event({ event: { type: 'message.updated', properties: { info } } });
      took = Number(process.hrtime.bigint() - started);
    }
    const end = performance.now();
    const allocated = measureAlloc ? v8.getHeapStatistics().used_heap_size - heapBefore : 0;
    if (i >= warmup) samples.push({ took, at, end, position: i % TURN_EVENTS, kind, allocated, gcDuring: gcCount() !== gcsBefore });
    if (i % TURN_EVENTS === TURN_EVENTS - 1) {
      if (ending === 'sleep') sleepSync(flushMs);
      const t = performance.now();
      service.endTurn(session);
      flushTimes.push(performance.now() - t);
      if (ending === 'pause') sleepSync(flushMs);
      if (ending === 'prime') prime();
      if (ending === 'spin') spin();
      if (ending === 'settle') await new Promise((resolve) => setImmediate(resolve));
    }
  }
} finally {
  store.close();
  removeDir(dir);
}
await new Promise((resolve) => setTimeout(resolve, 50));

const mean = (values) => Math.round(values.reduce((a, b) => a + b, 0) / values.length);
const overlapsGc = (s) => gcs.some((gc) => gc.start < s.end && gc.end > s.at);
const took = samples.map((s) => s.took / 1000);
const slow = samples.filter((s) => s.took > TARGET_NS);
const byPosition = new Map();
for (const s of slow) byPosition.set(s.position, (byPosition.get(s.position) ?? 0) + 1);
const gcSlow = slow.filter(overlapsGc);
const firstAfterFlush = slow.filter((s) => s.position === 0 && !overlapsGc(s));
const withoutFirst = samples.filter((s) => s.position !== 0).map((s) => s.took / 1000);
const withoutFirstOrGc = samples.filter((s) => s.position !== 0 && !overlapsGc(s)).map((s) => s.took / 1000);
console.log(JSON.stringify({
  mode, ending, events: samples.length, gcs: gcs.length, flushMsP50: percentile(flushTimes, 50),
  p50: percentile(took, 50), p99: percentile(took, 99), p999: percentile(took, 99.9),
  p99WithoutFirstAfterFlush: percentile(withoutFirst, 99),
  p99WithoutFirstOrGc: percentile(withoutFirstOrGc, 99),
  slow: slow.length, slowShare: slow.length / samples.length,
  slowOverlappingGc: gcSlow.length, slowFirstAfterFlush: firstAfterFlush.length,
  slowByPosition: Object.fromEntries([...byPosition].sort((a, b) => a[0] - b[0])),
  slowByKind: { tool: slow.filter((s) => s.kind === 'tool').length, message: slow.filter((s) => s.kind === 'message').length },
  firstAfterFlushP50: percentile(samples.filter((s) => s.position === 0).map((s) => s.took / 1000), 50),
  p99FirstHalf: percentile(took.slice(0, took.length / 2), 99),
  p99SecondHalf: percentile(took.slice(took.length / 2), 99),
  ...(measureAlloc ? {
    bytesPerToolEvent: mean(samples.filter((s) => s.kind === 'tool' && !overlapsGc(s) && s.allocated > 0).map((s) => s.allocated)),
    bytesPerMessageEvent: mean(samples.filter((s) => s.kind === 'message' && !overlapsGc(s) && s.allocated > 0).map((s) => s.allocated)),
  } : {}),
  secondAfterFlushP50: percentile(samples.filter((s) => s.position === 1).map((s) => s.took / 1000), 50),
}, null, 1));

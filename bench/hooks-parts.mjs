#!/usr/bin/env node
/**
 * Where the hook path's time goes as the plugin wires it: runs the hooks benchmark's workload
 * through the adapter with the plugin's wiring, times every part of the wiring per event (the
 * two guards, the grep rewriter, the tracker-file check, masking) and reports, per tool and for
 * the first event after a flush, the p50/p99 of each part and of the rest (the hooks themselves).
 * Not a benchmark (the runner only picks up `*.bench.mjs`); run
 * `node bench/hooks-parts.mjs [plain|env] [ablate]`, where `ablate` runs the workload once per
 * part left out (the whole path's p50/p99 without that part) instead of timing the parts, and
 * ENDING=nowrite skips the flush's write (see below).
 */
import fs from 'node:fs';
import path from 'node:path';
import { setImmediate } from 'node:timers';
import { dist, percentile, removeDir, silentLogger, tempDir } from './support.mjs';
import { ENV_FILE, TOOL_ARGS, TOOL_OUTPUT, eventPlan, pluginWiring, TURN_EVENTS } from './hooks.bench.mjs';

const [wiringName = 'env', how = 'parts'] = process.argv.slice(2);
const events = Number(process.env.EVENTS ?? 40_000);
const warmup = 5_000;
const now = () => process.hrtime.bigint();

async function runOnce(dir, name, drop, timed) {
  const { resolveConfig } = await dist('core/config.js');
  const { Store } = await dist('core/store/store.js');
  const { termIndexer } = await dist('core/search/indexer.js');
  const { TrackingService } = await dist('core/tracking/service.js');
  const { createHooks } = await dist('opencode/hooks.js');
  const project = path.join(dir, name);
  fs.mkdirSync(project, { recursive: true });
  if (wiringName === 'env') fs.writeFileSync(path.join(project, '.env'), ENV_FILE);
  const databasePath = path.join(dir, `${name}.lmdb`);
  const config = resolveConfig({ options: { databasePath }, env: {}, home: dir });
  const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
  // ENDING=nowrite: the turn's flush hands its buffer over and drops it (no write, no fsync), to tell
  // what the first event after a flush pays for the write from what it pays for our own work.
  if (process.env.ENDING === 'nowrite') store.applyBatch = (mutations) => ({ mutations: mutations.length, durationMs: 0, counted: [] });
  const service = new TrackingService({ store, config, logger: silentLogger, project: dir });
  for (let s = 0; s < 8; s += 1) service.noteModelRequest(`ses_bench_${s}`, 'build', 'bench/model');
  const wiring = await pluginWiring(project, databasePath, service);
  const parts = {};
  const time = (label, fn) => (...args) => {
    const started = now();
    const result = fn(...args);
    parts[label] = (parts[label] ?? 0n) + (now() - started);
    return result;
  };
  // Masking in two parts: the freshness check of the env files (masker()) and the masking itself.
  const timeMask = ({ secrets, maskToolOutput }) => (output) => {
    let started = now();
    const masker = secrets.masker();
    parts.maskCheck = (parts.maskCheck ?? 0n) + (now() - started);
    started = now();
    const pending = maskToolOutput(output, () => masker);
    parts.mask = (parts.mask ?? 0n) + (now() - started);
    return pending;
  };
  const guards = [];
  if (!drop.has('userOnly')) guards.push(timed ? time('userOnly', wiring.context.guards[0]) : wiring.context.guards[0]);
  if (!drop.has('envGuard')) guards.push(timed ? time('envGuard', wiring.context.guards[1]) : wiring.context.guards[1]);
  const ctx = {
    service, logger: silentLogger, directory: project, ownTools: new Set(), guards,
    argumentRewriters: drop.has('rewriter') ? [] : [timed ? time('rewriter', wiring.context.argumentRewriters[0]) : wiring.context.argumentRewriters[0]],
    ...(drop.has('trackerFiles') ? {} : { editsTrackerFiles: timed ? time('trackerFiles', wiring.context.editsTrackerFiles) : wiring.context.editsTrackerFiles }),
    ...(drop.has('mask') ? {} : { maskOutput: timed ? timeMask(wiring) : wiring.context.maskOutput }),
  };
  const hooks = wiring.wrap(createHooks(ctx));
  const samples = [];
  try {
    for (const event of eventPlan(events + warmup)) {
      for (const key of Object.keys(parts)) parts[key] = 0n;
      let took;
      if (event.kind === 'tool') {
        const input = { tool: event.tool, sessionID: event.session, callID: event.callId };
        const beforeOutput = { args: { ...TOOL_ARGS[event.tool] } };
        const afterOutput = { title: event.tool, output: TOOL_OUTPUT, metadata: event.tool === 'bash' ? { output: TOOL_OUTPUT, exit: 0 } : {} };
        const started = now();
        await hooks['tool.execute.before'](input, beforeOutput);
        const between = now();
        await hooks['tool.execute.after']({ ...input, args: beforeOutput.args }, afterOutput);
        const ended = now();
        took = Number(ended - started) / 1000;
        parts.before = between - started;
        parts.after = ended - between;
      } else {
        const info = {
          role: 'assistant', id: event.messageId, sessionID: event.session, agent: 'build', providerID: 'bench', modelID: 'model',
          tokens: { input: event.tokens.input, output: event.tokens.output, reasoning: 0, cache: { read: event.tokens.cacheRead, write: 0 } }, cost: event.cost,
        };
        const started = now();
        await hooks.event({ event: { type: 'message.updated', properties: { info } } });
        took = Number(now() - started) / 1000;
      }
      if (event.i >= warmup) {
        const row = { took, first: event.i % TURN_EVENTS === 0, kind: event.kind === 'tool' ? event.tool : 'message' };
        for (const [key, value] of Object.entries(parts)) row[key] = Number(value) / 1000;
        samples.push(row);
      }
      if (event.lastOfTurn) {
        service.endTurn(event.session);
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  } finally {
    store.close();
  }
  return samples;
}

const round = (x) => Math.round(x * 10) / 10;
const stats = (values) => (values.length === 0 ? '-' : `${round(percentile(values, 50))}/${round(percentile(values, 99))}`);

const dir = tempDir('hooks-parts');
try {
  if (how === 'ablate') {
    const drops = ['none', 'userOnly', 'envGuard', 'rewriter', 'trackerFiles', 'mask', 'all'];
    for (const round_ of [1, 2]) {
      for (const drop of drops) {
        const set = new Set(drop === 'all' ? drops : [drop]);
        const samples = await runOnce(dir, `${drop}-${round_}`, set, false);
        const all = samples.map((s) => s.took);
        const steady = samples.filter((s) => !s.first).map((s) => s.took);
        const first = samples.filter((s) => s.first).map((s) => s.took);
        console.log(`${wiringName} without ${drop.padEnd(12)} all p50/p99 ${stats(all).padEnd(12)} steady ${stats(steady).padEnd(12)} first ${stats(first)}`);
      }
    }
  } else {
    const samples = await runOnce(dir, 'parts', new Set(), true);
    const groups = new Map();
    for (const s of samples) {
      const key = s.first ? `first:${s.kind}` : s.kind;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(s);
    }
    const labels = ['took', 'before', 'userOnly', 'envGuard', 'rewriter', 'after', 'maskCheck', 'mask', 'trackerFiles'];
    console.log(`${wiringName}: p50/p99 µs per part\n${'kind'.padEnd(14)}${labels.map((l) => l.padEnd(13)).join('')}`);
    for (const [key, rows] of [...groups].sort()) {
      console.log(`${key.padEnd(14)}${labels.map((l) => stats(rows.filter((r) => r[l] !== undefined).map((r) => r[l])).padEnd(13)).join('')} n=${rows.length}`);
    }
    const all = samples.map((s) => s.took);
    console.log(`every event p50/p99 ${stats(all)}; steady ${stats(samples.filter((s) => !s.first).map((s) => s.took))}`);
    const cut = percentile(all, 99);
    const tail = samples.filter((s) => s.took >= cut);
    const byKind = {};
    for (const s of tail) byKind[s.first ? `first:${s.kind}` : s.kind] = (byKind[s.first ? `first:${s.kind}` : s.kind] ?? 0) + 1;
    console.log(`events at or over the p99 (${round(cut)} µs), by kind:`, byKind);
  }
} finally {
  removeDir(dir);
}

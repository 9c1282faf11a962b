/**
 * A plugin that only loads a native addon (no JavaScript of its package, no database): what an
 * addon's presence costs OpenCode's process (plugin-cost-variants.ts). PLUGIN_COST_ADDON picks it:
 * `lmdb` (default, the tracker's), `msgpackr-extract` (the same author's build, the same Node-API
 * registration), `unrs-resolver` (a napi-rs addon); PLUGIN_COST_ADDON_DELAY_MS loads it that long
 * after the plugin's start instead. Two more, to test what lmdb's addon does at load (it allocates a
 * 16 MiB shared read buffer with napi_create_buffer): `buffer16` (or any size in MiB), no addon, a
 * 16 MiB Buffer kept alive; `buffer16-dropped`, the same dropped and collected at once; `lmdb-freed`, lmdb's addon with that buffer swapped for a 4 KiB one and dropped.
 * Not a benchmark itself.
 */
import { Buffer } from 'node:buffer';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** Kept alive for the process's life, as an addon's buffer would be. */
const kept = [];

function load(name) {
  // bufferN: an N MiB Buffer kept alive; bufferN-dropped: allocated, dropped and collected at once.
  const buffer = /^buffer(\d+)(-dropped)?$/.exec(name);
  if (buffer) {
    const bytes = Buffer.allocUnsafeSlow(Number(buffer[1]) * 1024 * 1024);
    if (!buffer[2]) return kept.push(bytes);
    return globalThis.Bun?.gc(true);
  }
  // workerN: the same Buffer in a worker thread of its own (its own heap), kept alive there.
  const inWorker = /^worker(\d+)$/.exec(name);
  if (inWorker) {
    const source = `globalThis.kept = Buffer.allocUnsafeSlow(${Number(inWorker[1])} * 1024 * 1024); setInterval(() => {}, 60000);`;
    const worker = new Worker(source, { eval: true });
    worker.unref?.();
    return kept.push(worker);
  }
  // worker-lmdb: lmdb loaded and a database opened in a worker thread (lmdb-worker.mjs).
  if (name === 'worker-lmdb') {
    const worker = new Worker(new URL('./lmdb-worker.mjs', import.meta.url), { workerData: { path: path.join(process.env.PLUGIN_COST_WORKER_DB ?? '/tmp', 'worker-lmdb.mdb') } });
    worker.unref?.();
    return kept.push(worker);
  }
  const loadAddon = require('node-gyp-build-optional-packages');
  if (name === 'lmdb-freed') {
    const addon = loadAddon(path.dirname(require.resolve('lmdb/package.json')));
    addon.setGlobalBuffer(Buffer.allocUnsafeSlow(4096));
    delete addon.globalBuffer;
    globalThis.Bun?.gc(true);
    return addon;
  }
  if (name === 'msgpackr-extract') return loadAddon(path.dirname(require.resolve('msgpackr-extract/package.json')));
  if (name === 'unrs-resolver') return require('@unrs/resolver-binding-linux-x64-gnu');
  return loadAddon(path.dirname(require.resolve('lmdb/package.json')));
}

async function server() {
  const delayMs = Number(process.env.PLUGIN_COST_ADDON_DELAY_MS ?? 0);
  if (delayMs > 0) setTimeout(() => load(process.env.PLUGIN_COST_ADDON ?? 'lmdb'), delayMs).unref();
  else load(process.env.PLUGIN_COST_ADDON ?? 'lmdb');
  return {};
}

export default { id: 'addon-only', server };

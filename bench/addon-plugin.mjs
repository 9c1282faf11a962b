/**
 * A plugin that only loads a native addon (no JavaScript of its package, no database): what an
 * addon's presence costs OpenCode's process (plugin-cost-variants.ts). PLUGIN_COST_ADDON picks it:
 * `lmdb` (default, the tracker's), `msgpackr-extract` (the same author's build, the same Node-API
 * registration), `unrs-resolver` (a napi-rs addon); PLUGIN_COST_ADDON_DELAY_MS loads it that long
 * after the plugin's start instead. Not a benchmark itself.
 */
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

function load(name) {
  const loadAddon = require('node-gyp-build-optional-packages');
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

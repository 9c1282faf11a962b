/**
 * Plugin start: importing the built plugin, then its `server()` (settings, opening the database,
 * the migration check, wiring hooks and tools), each in a fresh process. Once under Node and once
 * under the Bun compiled into the `opencode` binary (`BUN_BE_BUN=1 opencode run script.mjs` runs a
 * script on that Bun, which is where OpenCode runs plugins). The database already exists, as it
 * does on every start but the first. Figures are medians; one untimed start warms the file cache.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, removeDir, ROOT, tempDir } from './support.mjs';

const OPENCODE_BIN = path.join(ROOT, 'node_modules', '.bin', 'opencode');
const PLUGIN_ENTRY = path.join(ROOT, 'dist', 'opencode', 'plugin.js');
const START_TARGET_MS = 50;
const RUNS = 10;
const QUICK_RUNS = 3;
const CHILD_TIMEOUT_MS = 60_000;
const RESULT_MARK = 'START-BENCH ';

/** The script each child runs: time the import and the plugin's server(), print one JSON line. */
function startScript(pluginUrl) {
  return `
const errors = [];
const client = { app: { log: async ({ body }) => { if (body.level === 'error') errors.push(body.message); return {}; } } };
const directory = process.cwd();
const startedAt = performance.now();
const { default: plugin } = await import(${JSON.stringify(pluginUrl)});
const importedAt = performance.now();
const hooks = await plugin.server(
  { client, project: { id: 'bench', worktree: directory }, directory, worktree: directory, serverUrl: new URL('http://127.0.0.1:1'), $: undefined },
  { databasePath: process.env.START_BENCH_DB },
);
const readyAt = performance.now();
await hooks.dispose?.();
if (Object.keys(hooks).length === 0 || errors.length > 0) {
  console.error('the plugin did not start: ' + errors.join('; '));
  process.exit(1);
}
console.log(${JSON.stringify(RESULT_MARK)} + JSON.stringify({ importMs: importedAt - startedAt, serverMs: readyAt - importedAt }));
`;
}

function runOnce(command, args, dir, extraEnv) {
  const env = { PATH: process.env.PATH, HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'config'), START_BENCH_DB: path.join(dir, 'start.lmdb'), ...extraEnv };
  const result = spawnSync(command, args, { cwd: dir, env, encoding: 'utf8', timeout: CHILD_TIMEOUT_MS });
  const line = (result.stdout ?? '').split('\n').find((text) => text.startsWith(RESULT_MARK));
  if (result.status !== 0 || !line) {
    throw new Error(`${path.basename(command)} start failed (exit ${result.status}): ${(result.stderr || result.stdout || String(result.error)).trim().split('\n')[0]}`);
  }
  return JSON.parse(line.slice(RESULT_MARK.length));
}

function measure(label, command, args, dir, extraEnv, runs) {
  runOnce(command, args, dir, extraEnv);
  const starts = [];
  for (let i = 0; i < runs; i += 1) starts.push(runOnce(command, args, dir, extraEnv));
  const importMs = median(starts.map((s) => s.importMs));
  const serverMs = median(starts.map((s) => s.serverMs));
  const totalMs = median(starts.map((s) => s.importMs + s.serverMs));
  const name = `plugin start (${label})`;
  return [
    { name, metric: `import, median of ${runs}`, value: importMs, unit: 'ms' },
    { name, metric: 'server(): open + migration check + wiring', value: serverMs, unit: 'ms' },
    { name, metric: 'total', value: totalMs, unit: 'ms', target: `<= ${START_TARGET_MS} ms`, pass: totalMs <= START_TARGET_MS },
  ];
}

export default async function run({ quick }) {
  const runs = quick ? QUICK_RUNS : RUNS;
  const dir = tempDir('start');
  try {
    // Bun inside the binary resolves the script and the plugin by absolute path, like Node.
    const script = path.join(dir, 'start-plugin.mjs');
    fs.writeFileSync(script, startScript(pathToFileURL(PLUGIN_ENTRY).href));
    const rows = measure(`Node ${process.version}`, process.execPath, [script], dir, {}, runs);
    const version = spawnSync(OPENCODE_BIN, ['--version'], { encoding: 'utf8', timeout: CHILD_TIMEOUT_MS }).stdout?.trim();
    rows.push(...measure(`Bun in opencode ${version || '?'}`, OPENCODE_BIN, ['run', script], dir, { BUN_BE_BUN: '1' }, runs));
    return rows;
  } finally {
    removeDir(dir);
  }
}

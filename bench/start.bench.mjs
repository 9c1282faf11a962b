/**
 * Plugin start: importing the built plugin, then its `server()` (settings, wiring hooks and tools; the
 * store's worker starts at a session's first hook, which the script then calls, so the settled row
 * counts the database's open and migration check), each in a fresh process. Once under Node and once
 * under the Bun compiled into the `opencode` binary (`BUN_BE_BUN=1 opencode run script.mjs` runs a
 * script on that Bun, which is where OpenCode runs plugins). The database already exists, as it
 * does on every start but the first. Figures are medians; one untimed start warms the file cache.
 *
 * Baseline, in the same harness and interleaved run by run: `floor-plugin.mjs`, a plugin that only
 * opens the same lmdb database (the floor of our choices: lmdb and its native module must load).
 * `START_BENCH_COMPARE=/path/to/other/dist/opencode/plugin.js` adds a third contender (e.g. a build
 * of an earlier commit) to the same interleaved runs. A last row gives the CPU time until SETTLE_MS
 * after server(): what the plugin loads just after its start (the term indexer) is counted there.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, removeDir, ROOT, tempDir } from './support.mjs';

const OPENCODE_BIN = path.join(ROOT, 'node_modules', '.bin', 'opencode');
const PLUGIN_ENTRY = path.join(ROOT, 'dist', 'opencode', 'plugin.js');
const FLOOR_ENTRY = path.join(ROOT, 'bench', 'floor-plugin.mjs');
const START_TARGET_MS = 50;
const FLOOR_RATIO_TARGET = 1.3;
const RUNS = 15;
const QUICK_RUNS = 3;
const CHILD_TIMEOUT_MS = 60_000;
const RESULT_MARK = 'START-BENCH ';
/** How long each start idles after server() before its CPU time is read again (and it is disposed). */
const SETTLE_MS = 250;

/**
 * The script each child runs: time the import and the plugin's server(), print one JSON line. The
 * database path comes from AGENT_TRACKER_DB_PATH (a plugin option from a project config is distrusted).
 */
function startScript(pluginUrl) {
  return `
const errors = [];
const client = { app: { log: async ({ body }) => { if (body.level === 'error') errors.push(body.message); return {}; } } };
const directory = process.cwd();
const cpuAtStart = process.cpuUsage();
const startedAt = performance.now();
const { default: plugin } = await import(${JSON.stringify(pluginUrl)});
const importedAt = performance.now();
const hooks = await plugin.server(
  { client, project: { id: 'bench', worktree: directory }, directory, worktree: directory, serverUrl: new URL('http://127.0.0.1:1'), $: undefined },
  {},
);
const readyAt = performance.now();
const cpu = process.cpuUsage(cpuAtStart);
// A session's first event starts the store (its worker opens the database): counted in the settled figure, as
// what the plugin loads just after server() returned is.
await hooks.event?.({ event: { type: 'server.connected', properties: {} } });
await new Promise((resolve) => setTimeout(resolve, ${SETTLE_MS}));
const settled = process.cpuUsage(cpuAtStart);
await hooks.dispose?.();
if (Object.keys(hooks).length === 0 || errors.length > 0) {
  console.error('the plugin did not start: ' + errors.join('; '));
  process.exit(1);
}
console.log(${JSON.stringify(RESULT_MARK)} + JSON.stringify({ importMs: importedAt - startedAt, serverMs: readyAt - importedAt, cpuMs: (cpu.user + cpu.system) / 1000, settledCpuMs: (settled.user + settled.system) / 1000 }));
`;
}

function runOnce(command, args, dir, extraEnv) {
  const env = { PATH: process.env.PATH, HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'config'), AGENT_TRACKER_DB_PATH: path.join(dir, 'start.lmdb'), ...extraEnv };
  const result = spawnSync(command, args, { cwd: dir, env, encoding: 'utf8', timeout: CHILD_TIMEOUT_MS });
  const line = (result.stdout ?? '').split('\n').find((text) => text.startsWith(RESULT_MARK));
  if (result.status !== 0 || !line) {
    throw new Error(`${path.basename(command)} start failed (exit ${result.status}): ${(result.stderr || result.stdout || String(result.error)).trim().split('\n')[0]}`);
  }
  return JSON.parse(line.slice(RESULT_MARK.length));
}

/** Runs every contender `runs` times, interleaved (the order rotates each round), after one untimed start each. */
function measureInterleaved(contenders, command, args, dir, extraEnv, runs) {
  for (const contender of contenders) runOnce(command, [...args, contender.script], dir, extraEnv);
  const starts = new Map(contenders.map((contender) => [contender.key, []]));
  for (let i = 0; i < runs; i += 1) {
    for (let j = 0; j < contenders.length; j += 1) {
      const contender = contenders[(i + j) % contenders.length];
      starts.get(contender.key).push(runOnce(command, [...args, contender.script], dir, extraEnv));
    }
  }
  return new Map(
    [...starts].map(([key, list]) => [
      key,
      {
        importMs: median(list.map((s) => s.importMs)),
        serverMs: median(list.map((s) => s.serverMs)),
        totalMs: median(list.map((s) => s.importMs + s.serverMs)),
        cpuMs: median(list.map((s) => s.cpuMs)),
        settledCpuMs: median(list.map((s) => s.settledCpuMs)),
      },
    ]),
  );
}

function rowsFor(label, medians, runs) {
  const floor = medians.get('floor');
  const rows = [];
  for (const [key, title] of [['plugin', 'plugin start'], ['compare', 'plugin start, START_BENCH_COMPARE build']]) {
    const own = medians.get(key);
    if (!own) continue;
    const name = `${title} (${label})`;
    rows.push(
      { name, metric: `import, median of ${runs} (floor plugin = baseline)`, value: own.importMs, unit: 'ms', baseline: floor.importMs },
      { name, metric: 'server(): settings + wiring', value: own.serverMs, unit: 'ms', baseline: floor.serverMs },
      { name, metric: 'total', value: own.totalMs, unit: 'ms', target: `<= ${START_TARGET_MS} ms`, pass: own.totalMs <= START_TARGET_MS },
      {
        name,
        metric: 'total vs the floor plugin (lmdb open only)',
        value: own.totalMs,
        unit: 'ms',
        baseline: floor.totalMs,
        target: `<= ${FLOOR_RATIO_TARGET}x floor`,
        pass: own.totalMs <= FLOOR_RATIO_TARGET * floor.totalMs,
      },
      // CPU time (all threads) of the same span: steadier than wall time when other jobs load the machine.
      { name, metric: 'CPU time of import + server() vs the floor plugin', value: own.cpuMs, unit: 'ms', baseline: floor.cpuMs },
      // The same until SETTLE_MS after server(): what is loaded just after the start is not hidden.
      { name, metric: `CPU time until ${SETTLE_MS} ms after server() vs the floor plugin`, value: own.settledCpuMs, unit: 'ms', baseline: floor.settledCpuMs },
    );
  }
  return rows;
}

export default async function run({ quick }) {
  const runs = quick ? QUICK_RUNS : RUNS;
  const dir = tempDir('start');
  try {
    // Bun inside the binary resolves the script and the plugin by absolute path, like Node.
    const contenders = [
      { key: 'plugin', entry: PLUGIN_ENTRY },
      { key: 'floor', entry: FLOOR_ENTRY },
      ...(process.env.START_BENCH_COMPARE ? [{ key: 'compare', entry: path.resolve(process.env.START_BENCH_COMPARE) }] : []),
    ].map((contender) => {
      const script = path.join(dir, `start-${contender.key}.mjs`);
      fs.writeFileSync(script, startScript(pathToFileURL(contender.entry).href));
      return { ...contender, script };
    });
    // The real plugin creates the database first (at its first hook): the floor plugin only opens it.
    runOnce(process.execPath, [contenders[0].script], dir, {});
    const rows = rowsFor(`Node ${process.version}`, measureInterleaved(contenders, process.execPath, [], dir, {}, runs), runs);
    const version = spawnSync(OPENCODE_BIN, ['--version'], { encoding: 'utf8', timeout: CHILD_TIMEOUT_MS }).stdout?.trim();
    rows.push(...rowsFor(`Bun in opencode ${version || '?'}`, measureInterleaved(contenders, OPENCODE_BIN, ['run'], dir, { BUN_BE_BUN: '1' }, runs), runs));
    return rows;
  } finally {
    removeDir(dir);
  }
}

/**
 * The built plugin keeps lmdb off OpenCode's main thread: its store lives in a worker thread, and
 * lmdb's native start (a large buffer that keeps the host's heap high all session) never runs on the
 * main thread, under Node nor under the Bun of the pinned opencode binary. The child records which
 * native addons its main thread loads (process.dlopen is per thread), asks the prior-art tool (answered
 * in the worker), logs an activity and exits without dispose: the exit flush must still reach the file.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { Store } from '../../src/core/store/store.js';
import { OPENCODE_BIN, ROOT } from '../helpers/sandbox.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const BUILT_ENTRY = path.join(ROOT, 'dist', 'opencode', 'plugin.js');
const CHILD_TIMEOUT_MS = 60_000;
const MARK = 'MAIN-THREAD ';

const SCRIPT = `
const loaded = [];
const dlopen = process.dlopen;
process.dlopen = function (...args) { loaded.push(String(args[1])); return dlopen.apply(this, args); };
const logs = [];
const client = { app: { log: async ({ body }) => (logs.push(body.level + ': ' + body.message), {}) }, tui: { showToast: async () => ({}) } };
const directory = process.cwd();
const keepAlive = setInterval(() => undefined, 1000);
const { default: plugin } = await import(${JSON.stringify(pathToFileURL(BUILT_ENTRY).href)});
const hooks = await plugin.server({ client, project: { id: 'p', worktree: directory }, directory, worktree: directory, serverUrl: new URL('http://127.0.0.1:1'), $: undefined }, {});
const context = { sessionID: 'ses_main', messageID: 'msg_1', agent: 'build', directory, worktree: directory, abort: new AbortController().signal, metadata: () => undefined };
const priorArt = await hooks.tool['prior-art'].execute({ task: 'parse the config file' }, context);
await hooks.tool['log-activity'].execute({ task: process.env.TASK_TEXT }, context);
clearInterval(keepAlive);
console.log(${JSON.stringify(MARK)} + JSON.stringify({ loaded, priorArt: String(priorArt), logs }));
`;

const tempDir = useTempDirs('agent-tracker-main-thread-');

function run(runtime: 'node' | 'bun', home: string, task: string) {
  const script = path.join(home, 'start.mjs');
  fs.writeFileSync(script, SCRIPT);
  const [command, args, extra] = runtime === 'node' ? [process.execPath, [script], {}] : [OPENCODE_BIN, ['run', script], { BUN_BE_BUN: '1' }];
  const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, 'config'), XDG_DATA_HOME: path.join(home, 'data'), AGENT_TRACKER_DB_PATH: path.join(home, 'db.lmdb'), AGENT_TRACKER_IMPORT_HISTORY: '0', AGENT_TRACKER_SKIP_SETUP: '1', TASK_TEXT: task, ...extra };
  const result = spawnSync(command, args, { cwd: home, env, encoding: 'utf8', timeout: CHILD_TIMEOUT_MS });
  const line = result.stdout.split('\n').find((text) => text.startsWith(MARK));
  if (!line) throw new Error(`the built plugin did not run under ${runtime} (exit ${result.status}): ${result.stderr}`);
  // Ended by itself (the worker does not hold the process open), not by the timeout's signal.
  return { ...(JSON.parse(line.slice(MARK.length)) as { loaded: string[]; priorArt: string; logs: string[] }), status: result.status, signal: result.signal };
}

describe('the plugin on the main thread', () => {
  it.each(['node', 'bun'] as const)('under %s, loads no lmdb there, answers prior-art and writes at exit', (runtime) => {
    const home = tempDir();
    const task = `main thread check ${runtime} ${Date.now()}`;
    const result = run(runtime, home, task);
    expect({ status: result.status, signal: result.signal }).toEqual({ status: 0, signal: null });
    // The probe works: msgpackr's or another addon may load on main; lmdb's must not.
    expect(result.loaded.filter((file) => /lmdb/i.test(file))).toEqual([]);
    expect(result.priorArt.length).toBeGreaterThan(0);
    expect(result.logs.filter((line) => line.startsWith('error'))).toEqual([]);
    const store = Store.open({ path: path.join(home, 'db.lmdb'), maxDatabaseSize: 64 * 1024 * 1024 });
    try {
      const tasks = [...store.tables.activities.getRange()].map((entry) => entry.value.task);
      expect(tasks).toContain(task);
    } finally {
      store.close();
    }
  });
});

/**
 * The built plugin entry, as package.json "main" names it and OpenCode loads it: dist/opencode/plugin.js,
 * bundled by scripts/bundle-dist.mjs (own code in one entry and a few chunks, npm packages external).
 * What the bundle moves must still be found from it: the out-of-process check of a database that changed
 * since it was last verified (dist/core/store/verify-child.js), the chunks loaded late. The tool schemas
 * are made with the few functions of zod's mini build the bundle carries: the zod package never loads. Run under Node and under the Bun of the pinned opencode binary.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BUILT_ENTRY = path.join(ROOT, 'dist', 'opencode', 'plugin.js');
const OPENCODE_BIN = path.join(ROOT, 'node_modules', '.bin', 'opencode');
const CHILD_TIMEOUT_MS = 60_000;
const MARK = 'BUILT-PLUGIN ';

/**
 * Starts the built plugin; on an existing database, waits until the child's check let it open (the "verified"
 * sidecar is written then; a new database gets it when it is closed). Reads one tool's schema; keeps warnings and errors.
 */
const SCRIPT = `
import fs from 'node:fs';
import { createRequire } from 'node:module';
const logs = [];
const client = { app: { log: async ({ body }) => (body.level === 'warn' || body.level === 'error' ? logs.push(body.level + ': ' + body.message) : 0, {}) }, tui: { showToast: async () => ({}) } };
const sidecar = process.env.AGENT_TRACKER_DB_PATH + '.verified';
const existed = fs.existsSync(process.env.AGENT_TRACKER_DB_PATH);
const directory = process.cwd();
const { default: plugin } = await import(${JSON.stringify(pathToFileURL(BUILT_ENTRY).href)});
const hooks = await plugin.server({ client, project: { id: 'p', worktree: directory }, directory, worktree: directory, serverUrl: new URL('http://127.0.0.1:1'), $: undefined }, {});
// A session's first sign starts the store (without one, nothing is opened: the last test).
if (process.env.SESSION !== '0') await hooks['chat.params']({ sessionID: 'ses_1', agent: 'build', model: { providerID: 'fake', id: 'model' } }, {});
for (let waited = 0; existed && !fs.existsSync(sidecar) && logs.length === 0 && waited < 20000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
const args = hooks.tool['log-activity'].args;
const schemaKeys = Object.keys(args).sort();
// Even once the host has read a tool's schema, the zod package is not loaded (about 30 ms under OpenCode's Bun).
const zodPackage = Object.keys(createRequire(import.meta.url).cache).some((file) => /[\\/]zod[\\/]/.test(file));
const described = Object.values(args).every((shape) => typeof shape.description === 'string' && shape.description.length > 0);
await hooks.dispose?.();
console.log(${JSON.stringify(MARK)} + JSON.stringify({ verified: fs.existsSync(sidecar), zodPackage, schemaKeys, zod: Object.values(args).every((shape) => typeof shape === 'object' && shape !== null && '_zod' in shape), described, logs }));
`;

let dir: string;
let script: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-built-plugin-'));
  script = path.join(dir, 'start.mjs');
  fs.writeFileSync(script, SCRIPT);
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function start(runtime: 'node' | 'bun', home: string, session = true) {
  const [command, args, extra] = runtime === 'node' ? [process.execPath, [script], {}] : [OPENCODE_BIN, ['run', script], { BUN_BE_BUN: '1' }];
  const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, 'config'), AGENT_TRACKER_DB_PATH: path.join(home, 'db.lmdb'), AGENT_TRACKER_IMPORT_HISTORY: '0', SESSION: session ? '1' : '0', ...extra };
  const result = spawnSync(command, args, { cwd: home, env, encoding: 'utf8', timeout: CHILD_TIMEOUT_MS });
  const line = result.stdout.split('\n').find((text) => text.startsWith(MARK));
  if (!line) throw new Error(`the built plugin did not start under ${runtime} (exit ${result.status}): ${result.stderr}`);
  return JSON.parse(line.slice(MARK.length)) as { verified: boolean; zodPackage: boolean; schemaKeys: string[]; zod: boolean; described: boolean; logs: string[] };
}

describe('the built plugin entry', () => {
  it('is the bundle: one entry with its chunks beside it', () => {
    expect(fs.readFileSync(BUILT_ENTRY, 'utf8').startsWith('// @bun\n')).toBe(true);
    const chunks = fs.readdirSync(path.dirname(BUILT_ENTRY)).filter((file) => file.startsWith('chunk-') && file.endsWith('.js'));
    expect(chunks.length).toBeGreaterThan(0);
  });

  it.each(['node', 'bun'] as const)('under %s, checks a database that changed since its last check out of process, opens it and builds the tool schemas', (runtime) => {
    const home = fs.mkdtempSync(path.join(dir, `${runtime}-`));
    const first = start(runtime, home);
    expect(first).toMatchObject({ verified: true, zodPackage: false, zod: true, described: true, logs: [] });
    // A database without its "verified" sidecar is read by the child process before it is opened here.
    fs.rmSync(path.join(home, 'db.lmdb.verified'));
    const second = start(runtime, home);
    expect(second).toEqual({ verified: true, zodPackage: false, schemaKeys: first.schemaKeys, zod: true, described: true, logs: [] });
    expect(second.schemaKeys).toContain('task');
  });

  it.each(['node', 'bun'] as const)('under %s, opens nothing in a process that runs no session (`opencode models`, `opencode session list`)', (runtime) => {
    const home = fs.mkdtempSync(path.join(dir, `${runtime}-idle-`));
    expect(start(runtime, home, false)).toMatchObject({ verified: false, zod: true, logs: [] });
    expect(fs.readdirSync(home).filter((name) => name.startsWith('db.lmdb'))).toEqual([]);
  });
});

/**
 * The built plugin entry, as package.json "main" names it and OpenCode loads it: dist/opencode/plugin.js,
 * bundled by scripts/bundle-dist.mjs (own code in one entry and a few chunks, npm packages external but
 * lmdb and its msgpackr, which the store's worker loads from its bundle, their add-on from the installed lmdb).
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
const { default: plugin } = await import(process.env.PLUGIN_ENTRY ?? ${JSON.stringify(pathToFileURL(BUILT_ENTRY).href)});
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

function start(runtime: 'node' | 'bun', home: string, session = true, entry = BUILT_ENTRY) {
  const [command, args, extra] = runtime === 'node' ? [process.execPath, [script], {}] : [OPENCODE_BIN, ['run', script], { BUN_BE_BUN: '1' }];
  const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, 'config'), AGENT_TRACKER_DB_PATH: path.join(home, 'db.lmdb'), AGENT_TRACKER_IMPORT_HISTORY: '0', SESSION: session ? '1' : '0', PLUGIN_ENTRY: pathToFileURL(entry).href, ...extra };
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

  it("carries lmdb and msgpackr in the store worker's bundle, finding their own files where they are installed", () => {
    const folder = path.dirname(BUILT_ENTRY);
    const files = [BUILT_ENTRY, path.join(folder, 'remote', 'host.js'), ...fs.readdirSync(folder).filter((file) => file.startsWith('chunk-') && file.endsWith('.js')).map((file) => path.join(folder, file))];
    const texts = files.map((file) => fs.readFileSync(file, 'utf8'));
    const loadsPackage = /(?:from\s*|import\s*\(?\s*)["'](?:lmdb|msgpackr)(?:\/[^"']*)?["']/;
    expect(files.filter((_, at) => loadsPackage.test(texts[at] as string))).toEqual([]);
    // lmdb's add-on and compression dictionary, msgpackr's extractor: looked up in the installed packages, not beside the bundle.
    const version = (JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', 'lmdb', 'package.json'), 'utf8')) as { version: string }).version;
    const carrier = texts.find((text) => text.includes(`installedUrl(["lmdb"],"native.js","${version}")`));
    expect(carrier).toBeDefined();
    expect(carrier).toContain(`installedUrl(["lmdb"],"open.js","${version}")`);
    // Nothing of the machine that built it: a path there would not exist where the package is installed.
    expect(texts.filter((text) => text.includes(ROOT))).toEqual([]);
    // ordered-binary (lmdb's keys) is loaded from node_modules: it makes its key reader by a direct eval of code naming its
    // module's variables, which a bundle renames (Node's workers then read keys as garbage). No bundled file calls eval.
    expect(texts.some((text) => /from\s*["']ordered-binary["']/.test(text))).toBe(true);
    expect(files.filter((_, at) => /(?<![.\w$])eval\s*\(/.test(texts[at] as string))).toEqual([]);
  });

  it('says in one line what to do, and opens no database, when the lmdb installed beside it is not the version its bundle carries', () => {
    // A copy of the package whose node_modules has every package of this checkout but lmdb, which reports another version.
    const copy = fs.mkdtempSync(path.join(dir, 'other-lmdb-'));
    fs.cpSync(path.join(ROOT, 'dist'), path.join(copy, 'dist'), { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(copy, 'package.json'));
    fs.mkdirSync(path.join(copy, 'node_modules'));
    for (const name of fs.readdirSync(path.join(ROOT, 'node_modules'))) {
      if (name !== 'lmdb') fs.symlinkSync(path.join(ROOT, 'node_modules', name), path.join(copy, 'node_modules', name));
    }
    const lmdb = path.join(copy, 'node_modules', 'lmdb');
    fs.cpSync(path.join(ROOT, 'node_modules', 'lmdb'), lmdb, { recursive: true });
    const manifest = JSON.parse(fs.readFileSync(path.join(lmdb, 'package.json'), 'utf8')) as { version: string };
    const built = manifest.version;
    fs.writeFileSync(path.join(lmdb, 'package.json'), JSON.stringify({ ...manifest, version: `${built}-other` }));
    const home = fs.mkdtempSync(path.join(dir, 'other-lmdb-home-'));
    const started = start('node', home, true, path.join(copy, 'dist', 'opencode', 'plugin.js'));
    expect(started.logs.join('\n')).toContain(`lmdb ${built}-other is installed at ${lmdb}, but agent-tracker was built with ${built}; reinstall agent-tracker`);
    expect(fs.existsSync(path.join(home, 'db.lmdb'))).toBe(false);
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

/**
 * Test sandboxes: a temporary HOME and XDG folders (tests never touch the real ones), throwaway git
 * repositories with a local bare origin, and runners for the real `opencode` binary and the
 * `agent-tracker` CLI. Every child process is bounded by a timeout.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentSummary } from '../../src/core/answers/status.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const OPENCODE_BIN = path.join(ROOT, 'node_modules', '.bin', 'opencode');
export const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');

export interface Sandbox {
  root: string;
  home: string;
  configDir: string;
  env: NodeJS.ProcessEnv;
  /** The database path the plugin and CLI resolve by default in this sandbox. */
  dbPath: string;
}

const PLUGIN_API = '@opencode-ai/plugin';

/**
 * A config folder (the global one, or a project's `.opencode`) as OpenCode leaves it after its first
 * start: at every start it makes sure each such folder holds its plugin API package (`npm install
 * @opencode-ai/plugin` there, from the public registry, ~25 s) unless `node_modules` exists and
 * `package-lock.json` already lists the package. The package is linked from this checkout (the same
 * version OpenCode asks for), so each sandbox starts as an installed user's folder, and no test
 * reaches beyond 127.0.0.1.
 */
export function seedConfigDependencies(configDir: string): void {
  const source = path.join(ROOT, 'node_modules', PLUGIN_API);
  const { version } = JSON.parse(fs.readFileSync(path.join(source, 'package.json'), 'utf8')) as { version: string };
  const dependencies = { [PLUGIN_API]: version };
  fs.mkdirSync(path.join(configDir, 'node_modules', '@opencode-ai'), { recursive: true });
  fs.symlinkSync(source, path.join(configDir, 'node_modules', PLUGIN_API));
  fs.writeFileSync(path.join(configDir, 'package.json'), `${JSON.stringify({ dependencies }, null, 2)}\n`);
  const lock = { lockfileVersion: 3, requires: true, packages: { '': { dependencies }, [`node_modules/${PLUGIN_API}`]: { resolved: source, link: true } } };
  fs.writeFileSync(path.join(configDir, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
}

/** A fresh temporary HOME with XDG folders, and the environment that isolates OpenCode in it. */
export function makeSandbox(prefix = 'agent-tracker-'): Sandbox {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const home = path.join(root, 'home');
  const xdg = {
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
  };
  // The temp folder of every child too: what OpenCode, the plugin (a spill file when the database's own
  // folder refuses it) or the CLI put there is removed with the sandbox, never left in the machine's /tmp.
  const tmp = path.join(root, 'tmp');
  for (const dir of [...Object.values(xdg), tmp]) fs.mkdirSync(dir, { recursive: true });
  // As /tmp is: any user may write there (tests run OpenCode as an unprivileged user too), only the owner removes.
  fs.chmodSync(tmp, 0o1777);
  const configDir = path.join(xdg.XDG_CONFIG_HOME, 'opencode');
  fs.mkdirSync(configDir, { recursive: true });
  seedConfigDependencies(configDir);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    HOME: home,
    USERPROFILE: home,
    ...xdg,
    TMPDIR: tmp,
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_SHARE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    GIT_AUTHOR_NAME: 'Test Agent',
    GIT_AUTHOR_EMAIL: 'agent@example.test',
    GIT_COMMITTER_NAME: 'Test Agent',
    GIT_COMMITTER_EMAIL: 'agent@example.test',
    GIT_CONFIG_NOSYSTEM: '1',
    npm_config_cache: path.join(home, '.npm'),
    // The plugin's self-provisioning (and npm's postinstall) stay off unless a test removes this:
    // otherwise every start would add agents and skills to the sandbox's config folder.
    AGENT_TRACKER_SKIP_SETUP: '1',
    // The sessions of a test file share one OpenCode data folder; only the backfill tests import it.
    AGENT_TRACKER_IMPORT_HISTORY: '0',
  };
  return { root, home, configDir, env, dbPath: path.join(configDir, 'agent-tracker.lmdb') };
}

export function removeSandbox(sandbox: Sandbox): void {
  fs.rmSync(sandbox.root, { recursive: true, force: true });
}

export function git(cwd: string, args: string[], env: NodeJS.ProcessEnv = process.env): string {
  return execFileSync('git', args, { cwd, env, encoding: 'utf8', timeout: 30_000 });
}

/** A git repository with one commit and a local bare `origin`, so `git push` works offline. */
export function makeRepo(sandbox: Sandbox, name = 'project'): string {
  const repo = path.join(sandbox.root, name);
  const origin = path.join(sandbox.root, `${name}-origin.git`);
  fs.mkdirSync(repo, { recursive: true });
  git(sandbox.root, ['init', '--bare', '--quiet', '--initial-branch=main', origin], sandbox.env);
  git(repo, ['init', '--quiet', '--initial-branch=main'], sandbox.env);
  fs.writeFileSync(path.join(repo, 'README.md'), `# ${name}\n`);
  git(repo, ['add', '-A'], sandbox.env);
  git(repo, ['commit', '--quiet', '-m', 'initial commit'], sandbox.env);
  git(repo, ['remote', 'add', 'origin', origin], sandbox.env);
  git(repo, ['push', '--quiet', '-u', 'origin', 'main'], sandbox.env);
  return repo;
}

export interface OpencodeConfigInput {
  modelUrl: string;
  /** Plugin spec; defaults to this checkout as a package folder. */
  pluginSpec?: string;
  pluginOptions?: Record<string, unknown>;
  extra?: Record<string, unknown>;
}

/** The config that points OpenCode at the fake model and loads the plugin. */
export function opencodeConfig(input: OpencodeConfigInput): Record<string, unknown> {
  const spec = input.pluginSpec ?? `file://${ROOT}`;
  return {
    $schema: 'https://opencode.ai/config.json',
    model: 'fake/fake-model',
    small_model: 'fake/fake-model',
    enabled_providers: ['fake'],
    provider: {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Fake',
        options: { baseURL: input.modelUrl, apiKey: 'x' },
        models: { 'fake-model': { name: 'Fake model', tool_call: true, limit: { context: 128000, output: 4096 } } },
      },
    },
    permission: { bash: 'allow', edit: 'allow', external_directory: 'allow' },
    autoupdate: false,
    share: 'disabled',
    plugin: [input.pluginOptions ? [spec, input.pluginOptions] : spec],
    ...input.extra,
  };
}

/** Writes the global config of the sandbox (where the CLI reads the plugin's options too). */
export function writeGlobalConfig(sandbox: Sandbox, input: OpencodeConfigInput): void {
  fs.writeFileSync(path.join(sandbox.configDir, 'opencode.json'), JSON.stringify(opencodeConfig(input), null, 2));
}

/** `agent-tracker status --json`, as the CLI contract gives it. */
export interface StatusJson {
  agents: AgentSummary[];
}

/** The part of `agent-tracker doctor --json` the tests read. */
export interface DoctorJson {
  flushes: number;
  counts: Record<string, number>;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A tool call as `opencode run --format json` prints it. */
export interface ToolPart {
  tool: string;
  state: { status: string; input?: Record<string, unknown>; output?: string; error?: string };
}

/** The tool parts `opencode run --format json` printed, one JSON event per line. */
export function toolParts(run: RunResult): ToolPart[] {
  return run.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { type: string; part?: ToolPart })
    .flatMap((event) => (event.type === 'tool_use' && event.part ? [event.part] : []));
}

/** Runs `opencode run` in `cwd`, bounded by `timeoutMs`. */
export function runOpencode(
  sandbox: Sandbox,
  cwd: string,
  prompt: string,
  options: { agent?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv; extraArgs?: string[] } = {},
): Promise<RunResult> {
  const args = ['run', '--format', 'json', '--print-logs', ...(options.agent ? ['--agent', options.agent] : []), ...(options.extraArgs ?? []), prompt];
  return runBounded(OPENCODE_BIN, args, { cwd, env: { ...sandbox.env, ...options.env }, timeoutMs: options.timeoutMs ?? 150_000 });
}

export function runBounded(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs the built `agent-tracker` CLI with the sandbox's environment, in the sandbox's root folder. */
export function runCli(sandbox: Sandbox, args: string[], env: NodeJS.ProcessEnv = {}, cwd = sandbox.root): RunResult {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd, env: { ...sandbox.env, ...env }, encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `agent-tracker <args> --json`, parsed; throws with the CLI's stderr when it fails. */
export function cliJson<T>(sandbox: Sandbox, args: string[], env: NodeJS.ProcessEnv = {}): T {
  const result = runCli(sandbox, [...args, '--json'], env);
  if (result.code !== 0) throw new Error(`agent-tracker ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/**
 * Options that restrain agents are the user's: an unknown option never turns tracking off, and a
 * restraining option changed outside `agent-tracker config` is shown and applies its stricter value
 * until the user confirms it. The plugin is started for real (its server function, a temp HOME);
 * the CLI is the built one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { PluginInput } from '@opencode-ai/plugin';
import { resolveSessionConfig } from '../../src/core/config.js';
import { applyPins, pinsPath, writePins } from '../../src/core/integrity/option-pins.js';
import { pinnedOptionMismatchLines } from '../../src/opencode/option-trust.js';
import plugin from '../../src/opencode/plugin.js';
import { makeSandbox, opencodeConfig, removeSandbox, runCli } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';

const KEYS = ['HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'AGENT_TRACKER_DB_PATH', 'AGENT_TRACKER_IMPORT_HISTORY', 'AGENT_TRACKER_SKIP_SETUP'] as const;
const saved: Partial<Record<(typeof KEYS)[number], string | undefined>> = {};
let dir: string;
let configDir: string;
const toasts: string[] = [];
const logged: { level: string; message: string }[] = [];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-pins-'));
  configDir = path.join(dir, 'config', 'opencode');
  fs.mkdirSync(configDir, { recursive: true });
  for (const key of KEYS) saved[key] = process.env[key];
  Object.assign(process.env, {
    HOME: dir,
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDG_DATA_HOME: path.join(dir, 'data'),
    AGENT_TRACKER_DB_PATH: path.join(dir, 'db.lmdb'),
    AGENT_TRACKER_IMPORT_HISTORY: '0',
    AGENT_TRACKER_SKIP_SETUP: '1',
  });
});

afterAll(() => {
  for (const key of KEYS) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

function input(project: string): PluginInput {
  const client = {
    app: { log: async ({ body }: { body: { level: string; message: string } }) => (logged.push(body), {}) },
    tui: { showToast: async ({ body }: { body: { message: string } }) => (toasts.push(body.message), {}) },
  };
  return { client, project: { id: 'p', worktree: project }, directory: project, worktree: project, serverUrl: new URL('http://127.0.0.1:1'), $: undefined } as unknown as PluginInput;
}

/** The global config with this plugin's entry and `options`, as a script of the agent's could write it. */
function writeGlobalOptions(options: Record<string, unknown>): void {
  fs.writeFileSync(path.join(configDir, 'opencode.json'), JSON.stringify(opencodeConfig({ modelUrl: 'http://127.0.0.1:9', pluginOptions: options }), null, 2));
}

async function refusesEnvRead(hooks: Awaited<ReturnType<typeof plugin.server>>): Promise<boolean> {
  try {
    await hooks['tool.execute.before']?.({ tool: 'bash', sessionID: 's1', callID: `c${Math.random()}` }, { args: { command: 'cat .env' } });
    return false;
  } catch {
    return true;
  }
}

describe('unknown options', () => {
  it('set aside with a warning naming them; tracking stays on', () => {
    const { config, warnings } = resolveSessionConfig({ options: { exportStatus: true, trackNothing: true, flushMaxAgeMs: 'soon' }, env: {}, home: dir });
    expect(config.exportStatus).toBe(true);
    expect(warnings).toEqual([expect.stringContaining('unknown option "trackNothing"'), expect.stringContaining('option "flushMaxAgeMs"')]);
  });

  it('given by a project config: the plugin starts with its hooks, the toast names the option', async () => {
    toasts.length = 0;
    const project = path.join(dir, 'project-unknown');
    fs.mkdirSync(project, { recursive: true });
    const hooks = await plugin.server(input(project), { thisOptionDoesNotExist: true });
    try {
      expect(hooks['tool.execute.before']).toBeDefined();
      expect(hooks.tool?.['agent-status']).toBeDefined();
      expect(toasts.join('\n')).toContain('unknown option "thisOptionDoesNotExist"');
      expect(logged.map((line) => line.message).join('\n')).not.toMatch(/off for this session/);
    } finally {
      await hooks.dispose?.();
    }
  });
});

describe('pinned restraining options', () => {
  it('applies the stricter value of each pair while config and pin differ', () => {
    const pins = { values: { protectEnvFiles: false, rules: { xpPerCommit: 3 }, databasePath: '/pinned.lmdb' }, pinnedAt: '' };
    const { options, mismatches } = applyPins({ haltBlocksTools: false, protectEnvFiles: false, rules: { xpPerCommit: 50, xpPerLevelFactor: 5 }, databasePath: '/elsewhere.lmdb' }, pins);
    expect(options).toEqual({ haltBlocksTools: true, protectEnvFiles: false, rules: { xpPerCommit: 3 }, databasePath: '/pinned.lmdb' });
    expect(mismatches.map((m) => m.key).sort()).toEqual(['databasePath', 'haltBlocksTools', 'rules']);
  });

  it('before anything was pinned, keeps the database where the config puts it and holds the restraints to their defaults', () => {
    const { options, mismatches } = applyPins({ databasePath: 'data/mine.lmdb', maxDatabaseSize: 1 << 28, haltBlocksTools: false }, undefined);
    expect(options).toEqual({ databasePath: 'data/mine.lmdb', maxDatabaseSize: 1 << 28, haltBlocksTools: true });
    expect(mismatches.map((m) => m.key)).toEqual(['haltBlocksTools']);
  });

  it('an edit of the global config made by a script: shown at plugin start, the stricter value applies until confirmed', async () => {
    const project = path.join(dir, 'project-pins');
    fs.mkdirSync(project, { recursive: true });
    fs.writeFileSync(path.join(project, '.env'), 'API_KEY=sk-live-1234567890abcdef\n');
    const edited = { haltBlocksTools: false, protectEnvFiles: false };
    writeGlobalOptions(edited);
    toasts.length = 0;
    const hooks = await plugin.server(input(project), edited);
    try {
      expect(toasts.join('\n')).toMatch(/option "protectEnvFiles" in the global OpenCode config is false but was pinned as not set.*true applies until you run "agent-tracker config confirm"/);
      expect(toasts.join('\n')).toMatch(/option "haltBlocksTools"/);
      expect(await refusesEnvRead(hooks)).toBe(true);
    } finally {
      await hooks.dispose?.();
    }
    expect(pinnedOptionMismatchLines()).toHaveLength(2);

    // The user confirms: the config's values are pinned and obeyed.
    writePins(pinsPath(configDir), edited);
    expect(pinnedOptionMismatchLines()).toEqual([]);
    toasts.length = 0;
    const confirmed = await plugin.server(input(project), edited);
    try {
      expect(toasts.join('\n')).not.toMatch(/pinned/);
      expect(await refusesEnvRead(confirmed)).toBe(false);
    } finally {
      await confirmed.dispose?.();
    }
  });
});

describe('agent-tracker config', () => {
  let sandbox: Sandbox;
  beforeAll(() => {
    sandbox = makeSandbox('agent-tracker-config-cli-');
    fs.writeFileSync(path.join(sandbox.configDir, 'opencode.json'), JSON.stringify(opencodeConfig({ modelUrl: 'http://127.0.0.1:9' }), null, 2));
  });
  afterAll(() => removeSandbox(sandbox));

  interface Row {
    key: string;
    configured?: unknown;
    pinned?: unknown;
    mismatch?: boolean;
    applies?: unknown;
  }
  const list = (): Row[] => (JSON.parse(runCli(sandbox, ['config', 'list', '--json']).stdout) as { options: Row[] }).options;

  it('set writes the global config and pins it; an edit made elsewhere shows as a mismatch until confirm', () => {
    const set = runCli(sandbox, ['config', 'set', 'haltBlocksTools', 'false']);
    expect(set.stderr).toBe('');
    expect(set.code).toBe(0);
    const global = JSON.parse(fs.readFileSync(path.join(sandbox.configDir, 'opencode.json'), 'utf8')) as { plugin: unknown[] };
    expect(global.plugin[0]).toEqual([expect.any(String), { haltBlocksTools: false }]);
    expect(list().find((row) => row.key === 'haltBlocksTools')).toMatchObject({ configured: false, pinned: false, mismatch: false, applies: false });

    // Edited by something else: the file name never appears in the agent's command, but the pin notices.
    const text = fs.readFileSync(path.join(sandbox.configDir, 'opencode.json'), 'utf8').replace('"haltBlocksTools": false', '"haltBlocksTools": false, "protectEnvFiles": false');
    fs.writeFileSync(path.join(sandbox.configDir, 'opencode.json'), text);
    expect(list().find((row) => row.key === 'protectEnvFiles')).toMatchObject({ configured: false, mismatch: true, applies: true });
    const status = runCli(sandbox, ['status']);
    expect(status.stderr).toMatch(/1 restraining option\(s\) differ from what you pinned; "agent-tracker config list" shows them/);

    expect(runCli(sandbox, ['config', 'confirm']).code).toBe(0);
    expect(list().every((row) => row.mismatch === false)).toBe(true);
    expect(runCli(sandbox, ['config', 'get', 'protectEnvFiles']).stdout).toMatch(/protectEnvFiles: false \(as pinned\)/);
  });

  it('refuses a bad value or an unknown key in one line, changing nothing', () => {
    const before = fs.readFileSync(path.join(sandbox.configDir, 'opencode.json'), 'utf8');
    for (const args of [['config', 'set', 'haltBlocksTools', 'maybe'], ['config', 'set', 'noSuchOption', '1'], ['config', 'set', 'maxDatabaseSize', '1e300'], ['config', 'get', 'maxdatabasesize']]) {
      const result = runCli(sandbox, args);
      expect(result.code).toBe(1);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
    expect(fs.readFileSync(path.join(sandbox.configDir, 'opencode.json'), 'utf8')).toBe(before);
    // A misspelt key is named with the known ones, not shown as "not set".
    expect(runCli(sandbox, ['config', 'get', 'maxdatabasesize']).stderr).toMatch(/^agent-tracker config: unknown option "maxdatabasesize"; known options: databasePath, maxDatabaseSize, /);
  });
});

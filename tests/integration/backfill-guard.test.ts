/**
 * The plugin's tool guard refuses `agent-tracker backfill --from …` before the agent's bash call
 * runs, with one line, like the other user-only commands; a plain `backfill` (OpenCode's own data
 * folder) and a dry run stay open. The plugin is started for real (its server function, a temp HOME)
 * and its before hook is called as OpenCode calls it (the arguments in the hook's output).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { PluginInput } from '@opencode-ai/plugin';
import plugin from '../../src/opencode/plugin.js';

const KEYS = ['HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'AGENT_TRACKER_DB_PATH', 'AGENT_TRACKER_IMPORT_HISTORY', 'AGENT_TRACKER_SKIP_SETUP'] as const;
const saved: Partial<Record<(typeof KEYS)[number], string | undefined>> = {};
let dir: string;
let hooks: Awaited<ReturnType<typeof plugin.server>>;

function input(project: string): PluginInput {
  const client = {
    app: { log: async () => ({}) },
    tui: { showToast: async () => ({}) },
  };
  return { client, project: { id: 'p', worktree: project }, directory: project, worktree: project, serverUrl: new URL('http://127.0.0.1:1'), $: undefined } as unknown as PluginInput;
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-backfill-guard-'));
  for (const key of KEYS) saved[key] = process.env[key];
  Object.assign(process.env, {
    HOME: dir,
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDG_DATA_HOME: path.join(dir, 'data'),
    AGENT_TRACKER_DB_PATH: path.join(dir, 'db.lmdb'),
    AGENT_TRACKER_IMPORT_HISTORY: '0',
    AGENT_TRACKER_SKIP_SETUP: '1',
  });
  const project = path.join(dir, 'project');
  fs.mkdirSync(project, { recursive: true });
  hooks = await plugin.server(input(project), {});
});

afterAll(async () => {
  await hooks?.dispose?.();
  for (const key of KEYS) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The refusal the before hook gives a bash call, or undefined when the call may run. */
async function refusalOf(command: string): Promise<string | undefined> {
  const output = { args: { command } };
  try {
    await hooks['tool.execute.before']?.({ tool: 'bash', sessionID: 'ses_guard', callID: `call_${Math.random()}` }, output);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('backfill --from under an agent, at the tool guard', () => {
  it.each([
    'agent-tracker backfill --from /tmp/copied-history',
    'agent-tracker backfill --from=/tmp/copied-history --since 2025-01-01',
    'cd /tmp && npx opencode-agent-tracker backfill --json --from "$HOME/clone"',
    `node ${path.join('node_modules', 'opencode-agent-tracker', 'dist', 'cli', 'main.js')} --db /tmp/x.lmdb backfill --from ./clone`,
  ])('refuses %j with one line that names it and says to ask the user', async (command) => {
    const refusal = await refusalOf(command);
    expect(refusal).toBeDefined();
    expect((refusal as string).split('\n')).toHaveLength(1);
    expect(refusal).toMatch(/"agent-tracker backfill --from" is the user's decision, not an agent's\. Stop and ask the user/);
  });

  it.each([
    'agent-tracker backfill',
    'agent-tracker backfill --since 2025-01-01 --json',
    'agent-tracker backfill --dry-run --from /tmp/copied-history',
    'agent-tracker prior-art "backfill --from a folder"',
    'ls --from-file backfill',
  ])('lets %j run', async (command) => {
    expect(await refusalOf(command)).toBeUndefined();
  });
});

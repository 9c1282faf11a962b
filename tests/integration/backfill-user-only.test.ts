/**
 * `agent-tracker backfill --from` a folder that is not OpenCode's own data folder is a user-only
 * action: refused under an agent with one line and nothing written, and recorded with how it came
 * when the user runs it. OpenCode's own folder stays open to the plugin and to anyone (built CLI).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Store } from '../../src/core/store/store.js';
import { writeSqliteHistory } from '../helpers/opencode-history.js';
import type { FixtureSession } from '../helpers/opencode-history.js';
import { makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';

// Real git and real processes on a shared machine: seconds each, more under load.
jest.setTimeout(60_000);

let sandbox: Sandbox | undefined;
afterEach(() => {
  if (sandbox) removeSandbox(sandbox);
  sandbox = undefined;
});

const T0 = Date.UTC(2025, 5, 1, 9, 0, 0);
/** What OpenCode's bash tool puts in the environment of the commands an agent runs. */
const AGENT_ENV = { OPENCODE: '1', AGENT: '1' };

function sessions(project: string): FixtureSession[] {
  return [{
    id: 'ses_x', directory: project, created: T0, updated: T0 + 10_000,
    messages: [{
      id: 'msg_x1', role: 'assistant', agent: 'build', providerID: 'anthropic', modelID: 'claude', created: T0 + 1000,
      tools: [{ callId: 'call_x1', tool: 'bash', status: 'completed', command: 'git commit -am x', output: '[main 1234567] x\n', exit: 0 }],
    }],
  }];
}

/** The user-only actions the journal holds. */
function userActions(dbPath: string): unknown[] {
  const store = Store.open({ path: dbPath, maxDatabaseSize: 1 << 26, readOnly: true });
  try {
    return [...store.tables.activities.getRange({})].map(({ value }) => value.userAction).filter((action) => action !== undefined);
  } finally {
    store.close();
  }
}

describe('backfill of a store that is not OpenCode\'s own data folder', () => {
  it('is refused under an agent: one line, exit 1, nothing written', async () => {
    sandbox = makeSandbox('agent-tracker-backfill-user-only-');
    const copy = path.join(sandbox.root, 'copied-history');
    await writeSqliteHistory(copy, sessions(sandbox.root));
    const result = runCli(sandbox, ['backfill', '--from', copy, '--db', sandbox.dbPath], AGENT_ENV);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/"agent-tracker backfill" is the user's decision.*OPENCODE=1.*nothing was changed/);
    expect(fs.existsSync(sandbox.dbPath)).toBe(false);
  });

  it('is recorded with how it came when the user runs it', async () => {
    sandbox = makeSandbox('agent-tracker-backfill-user-only-');
    const copy = path.join(sandbox.root, 'copied-history');
    await writeSqliteHistory(copy, sessions(sandbox.root));
    const result = runCli(sandbox, ['backfill', '--from', copy, '--db', sandbox.dbPath, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ sessions: 1, commits: 1 });
    // No terminal here (spawned with pipes): stored as such, for review to show.
    expect(userActions(sandbox.dbPath)).toEqual([expect.objectContaining({ action: 'backfill', via: 'terminal-no-tty' })]);
  });

  it("stays open for OpenCode's own data folder, as the plugin's background import reads it", async () => {
    sandbox = makeSandbox('agent-tracker-backfill-user-only-');
    const own = path.join(sandbox.env.XDG_DATA_HOME as string, 'opencode');
    await writeSqliteHistory(own, sessions(sandbox.root));
    const result = runCli(sandbox, ['backfill', '--db', sandbox.dbPath, '--json'], AGENT_ENV);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ sessions: 1 });
    expect(userActions(sandbox.dbPath)).toEqual([]);
  });
});

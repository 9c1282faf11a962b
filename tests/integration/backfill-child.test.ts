/**
 * `agent-tracker backfill` imports in a process of its own; what fails there is still the command's
 * failure, told as it was told when the import ran in the command's own process: one line on stderr,
 * naming the cause and what to do, exit code 1, nothing on stdout, and nothing recorded. On a terminal
 * the progress line is still drawn, from the import's messages (built CLI; `script` gives it a
 * terminal). The import gets the user's options (test commands too), and it stops when the command is
 * killed rather than go on writing on its own.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Store } from '../../src/core/store/store.js';
import { openHistory } from '../../src/opencode/history/locate.js';
import { writeSqliteHistory } from '../helpers/opencode-history.js';
import type { FixtureSession } from '../helpers/opencode-history.js';
import { recognizeTestRun } from '../../src/core/outcomes/test-runs.js';
import type { UsageRecord } from '../../src/core/types.js';
import { CLI, makeSandbox, removeSandbox, runCli, writeGlobalConfig } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';

// Real processes on a shared machine: seconds each, more under load.
jest.setTimeout(60_000);

let sandbox: Sandbox | undefined;
afterEach(() => {
  if (sandbox) removeSandbox(sandbox);
  sandbox = undefined;
});

/** How many usage records the database at `dbPath` holds (0 when there is no database). */
function usageRecords(dbPath: string): number {
  if (!fs.existsSync(dbPath)) return 0;
  const store = Store.open({ path: dbPath, maxDatabaseSize: 1 << 26, readOnly: true });
  try {
    return store.tables.usage.getKeysCount();
  } finally {
    store.close();
  }
}

/** The reader's own words for why it cannot read `dataDir` (what the CLI line must carry whole). */
async function readerRefusal(dataDir: string): Promise<string> {
  try {
    (await openHistory(dataDir)).close();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${dataDir} was readable`);
}

describe('backfill: a failure inside the import', () => {
  it('of a history layout it does not know is one line with the reader\'s words and the advice, exit 1, nothing recorded', async () => {
    sandbox = makeSandbox('agent-tracker-backfill-child-');
    const dataDir = path.join(sandbox.root, 'opencode-data');
    await writeSqliteHistory(dataDir, [], 'CREATE TABLE session (id text, title text); CREATE TABLE message (id text);');
    const reason = await readerRefusal(dataDir);

    const result = runCli(sandbox, ['backfill', '--from', dataDir, '--db', sandbox.dbPath]);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`agent-tracker backfill: ${reason}. Nothing was written; an update of agent-tracker may know it.\n`);
    expect(usageRecords(sandbox.dbPath)).toBe(0);
  });

  it('with no history where it looked says where and what to pass, exit 1', async () => {
    sandbox = makeSandbox('agent-tracker-backfill-child-');
    const empty = path.join(sandbox.root, 'not-opencode');
    fs.mkdirSync(empty);
    const reason = await readerRefusal(empty);

    const result = runCli(sandbox, ['backfill', '--from', empty, '--json', '--db', sandbox.dbPath]);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`agent-tracker backfill: ${reason}. Pass --from with OpenCode's data folder, or run OpenCode once first.\n`);
  });

  it('of a database that cannot be opened for writing is one line naming it, exit 1, and the history is left as it was', async () => {
    sandbox = makeSandbox('agent-tracker-backfill-child-');
    const dataDir = path.join(sandbox.root, 'opencode-data');
    await writeSqliteHistory(dataDir, []);
    const history = fs.readFileSync(path.join(dataDir, 'opencode.db'));
    // A regular file where the database's folder should be: no database can be made there.
    const blocker = path.join(sandbox.root, 'in-the-way');
    fs.writeFileSync(blocker, 'not a folder');
    const dbPath = path.join(blocker, 'tracker.lmdb');

    const result = runCli(sandbox, ['backfill', '--from', dataDir, '--db', dbPath]);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.split('\n').filter((line) => line !== '');
    expect(lines).toEqual([expect.stringMatching(/^agent-tracker backfill: agent-tracker is off: /)]);
    expect(lines[0]).toContain(blocker);
    expect(fs.readFileSync(blocker, 'utf8')).toBe('not a folder');
    expect(fs.readFileSync(path.join(dataDir, 'opencode.db')).equals(history)).toBe(true);
  });
});

/** `text` as one word for the shell `script` hands its command to. */
const shellWord = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;

describe('backfill on a terminal', () => {
  it('draws the progress line up to every session, then prints the summary', async () => {
    sandbox = makeSandbox('agent-tracker-backfill-child-');
    const dataDir = path.join(sandbox.root, 'opencode-data');
    const project = path.join(sandbox.root, 'project');
    fs.mkdirSync(project);
    const at = Date.UTC(2025, 2, 1, 9, 0, 0);
    const sessions: FixtureSession[] = [0, 1, 2].map((k) => ({
      id: `ses_${k}`, directory: project, created: at + k * 60_000, updated: at + k * 60_000 + 5_000,
      messages: [{ id: `msg_${k}`, role: 'assistant', agent: 'build', providerID: 'anthropic', modelID: 'claude', created: at + k * 60_000 + 1_000 }],
    }));
    await writeSqliteHistory(dataDir, sessions);
    const command = [process.execPath, CLI, 'backfill', '--from', dataDir, '--db', sandbox.dbPath].map(shellWord).join(' ');

    // `script` runs the command on a pseudo-terminal (stdout and stderr both) and copies what it wrote.
    const result = spawnSync('script', ['-q', '-e', '-c', command, '/dev/null'], { cwd: sandbox.root, env: sandbox.env, encoding: 'utf8', timeout: 60_000 });

    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`backfill: ${sessions.length}/${sessions.length} sessions (100%)`);
    expect(result.stdout).toContain(`Imported ${sessions.length} session(s), ${sessions.length} message(s)`);
    expect(usageRecords(sandbox.dbPath)).toBe(sessions.length);
  });
});

describe('backfill: the import process', () => {
  it('gets the test commands of the plugin options: a session running one counts its test runs', async () => {
    sandbox = makeSandbox('agent-tracker-backfill-child-');
    // A command no built-in test runner matches, named a test command by the user.
    const command = './ci/verify-all --fast';
    expect(recognizeTestRun(command)).toBeUndefined();
    writeGlobalConfig(sandbox, { modelUrl: 'http://127.0.0.1:9/v1', pluginOptions: { testCommands: ['^\\./ci/verify-all\\b'] } });
    const dataDir = path.join(sandbox.root, 'opencode-data');
    const project = path.join(sandbox.root, 'project');
    fs.mkdirSync(project);
    const at = Date.UTC(2025, 2, 1, 9, 0, 0);
    const answer = { role: 'assistant', agent: 'build', providerID: 'anthropic', modelID: 'claude' } as const;
    await writeSqliteHistory(dataDir, [{
      id: 'ses_tests', directory: project, created: at, updated: at + 5_000,
      messages: [
        { id: 'msg_1', ...answer, created: at + 1_000, tools: [{ callId: 'call_1', tool: 'bash', status: 'completed', command, output: '2 failed', exit: 1 }] },
        { id: 'msg_2', ...answer, created: at + 2_000, tools: [{ callId: 'call_2', tool: 'bash', status: 'completed', command, output: 'all passed', exit: 0 }] },
        { id: 'msg_3', ...answer, created: at + 3_000, tools: [{ callId: 'call_3', tool: 'bash', status: 'completed', command: 'ls', output: '', exit: 0 }] },
      ],
    }]);

    const result = runCli(sandbox, ['backfill', '--from', dataDir, '--db', sandbox.dbPath]);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const store = Store.open({ path: sandbox.dbPath, maxDatabaseSize: 1 << 26, readOnly: true });
    try {
      const records = [...store.tables.usage.getRange()].map(({ value }) => value as UsageRecord);
      expect(records.map((record) => [record.testRuns, record.testPasses])).toEqual([[2, 1]]);
    } finally {
      store.close();
    }
  });

  it('stops when the command is killed, instead of importing on by itself', async () => {
    sandbox = makeSandbox('agent-tracker-backfill-child-');
    const dataDir = path.join(sandbox.root, 'opencode-data');
    const at = Date.UTC(2025, 2, 1, 9, 0, 0);
    const sessions: FixtureSession[] = Array.from({ length: 3000 }, (_, k) => ({
      id: `ses_${String(k).padStart(4, '0')}`, directory: sandbox!.root, created: at + k * 60_000, updated: at + k * 60_000 + 5_000,
      messages: [{ id: `msg_${k}`, role: 'assistant', agent: 'build', providerID: 'anthropic', modelID: 'claude', created: at + k * 60_000 + 1_000 }],
    }));
    await writeSqliteHistory(dataDir, sessions);
    const command = spawn(process.execPath, [CLI, 'backfill', '--from', dataDir, '--db', sandbox.dbPath], { cwd: sandbox.root, env: sandbox.env, stdio: 'ignore' });
    const ended = new Promise((resolve) => command.on('exit', resolve));

    // Once the import process has opened (made) the database, the command goes, as under `kill -9`.
    const importPid = await until(() => childOf(command.pid as number), 20_000);
    await until(() => (fs.existsSync(sandbox!.dbPath) ? true : undefined), 20_000);
    command.kill('SIGKILL');
    await ended;

    await until(() => (fs.existsSync(`/proc/${importPid}`) ? undefined : true), 30_000);
    expect(usageRecords(sandbox.dbPath)).toBeLessThan(sessions.length);
  });
});

/** The first child process of `pid` (Linux /proc), undefined while it has none. */
function childOf(pid: number): number | undefined {
  const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return children === '' ? undefined : Number(children.split(' ')[0]);
}

/** Polls `probe` every 5 ms until it gives a value; throws after `limitMs`. */
async function until<T>(probe: () => T | undefined, limitMs: number): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`nothing after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

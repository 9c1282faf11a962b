/**
 * `agent-tracker backfill` imports in a worker thread; what fails there is still the command's failure,
 * told as it was told when the import ran on the command's own thread: one line on stderr, naming the
 * cause and what to do, exit code 1, nothing on stdout, and nothing recorded. On a terminal the
 * progress line is still drawn, from the worker's messages (built CLI; `script` gives it a terminal).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Store } from '../../src/core/store/store.js';
import { openHistory } from '../../src/opencode/history/locate.js';
import { writeSqliteHistory } from '../helpers/opencode-history.js';
import type { FixtureSession } from '../helpers/opencode-history.js';
import { CLI, makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';
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
    sandbox = makeSandbox('agent-tracker-backfill-worker-');
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
    sandbox = makeSandbox('agent-tracker-backfill-worker-');
    const empty = path.join(sandbox.root, 'not-opencode');
    fs.mkdirSync(empty);
    const reason = await readerRefusal(empty);

    const result = runCli(sandbox, ['backfill', '--from', empty, '--json', '--db', sandbox.dbPath]);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`agent-tracker backfill: ${reason}. Pass --from with OpenCode's data folder, or run OpenCode once first.\n`);
  });

  it('of a database that cannot be opened for writing is one line naming it, exit 1, and the history is left as it was', async () => {
    sandbox = makeSandbox('agent-tracker-backfill-worker-');
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
    sandbox = makeSandbox('agent-tracker-backfill-worker-');
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

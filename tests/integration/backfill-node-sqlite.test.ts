/**
 * The CLI under Bun (the `opencode` binary as Bun: `bunx --bun agent-tracker`) backfills with bun:sqlite.
 * The CLI on a Node that has node:sqlite (the pinned Node of scripts/newer-node.mjs where this one has
 * none) reads OpenCode's SQLite with it: on a real-schema store (tables made by the real `opencode`
 * binary, sessions written through its own bun:sqlite by bench/opencode-store-gen.mjs) it records
 * what the store holds, names its reader in the summary, prints no ExperimentalWarning, reads what
 * OpenCode adds to its WAL without counting anything twice, and falls back to sql.js with one line when the store is locked.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { nodeWithSqlite } from '../helpers/newer-node.js';
import { CLI, makeSandbox, OPENCODE_BIN, removeSandbox, ROOT } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';

/** What bench/opencode-store-gen.mjs writes per session: 40 assistant messages, each one bash call. */
const SESSIONS = 6;
const MESSAGES = 40;
/** Its messages m with m % 10 === 9 commit, those with m % 7 === 6 exit 1; each has 1200 input tokens. */
const COMMITS = Array.from({ length: MESSAGES }, (_, m) => m).filter((m) => m % 10 === 9).length;
const FAILURES = Array.from({ length: MESSAGES }, (_, m) => m).filter((m) => m % 7 === 6).length;
const INPUT_TOKENS = 1200;
const CHILD_TIMEOUT_MS = 120_000;

interface Summary {
  source: string;
  sessions: number;
  messages: number;
  toolCalls: number;
  commits: number;
}
interface Report {
  rows: { sessions: number; messages: number; toolCalls: number; toolFailures: number; commits: number; tokensInput: number }[];
}

/** A sandbox whose OpenCode data folder holds a real-schema store. */
interface OpenCodeStore {
  sandbox: Sandbox;
  database: string;
}

/** Every sandbox made, removed after the file. */
const sandboxes: Sandbox[] = [];
let shared: OpenCodeStore;
let newerNode: string;

/** The tables made by the real `opencode` binary, then SESSIONS sessions written through its bun:sqlite. */
function opencodeStore(): OpenCodeStore {
  const sandbox = makeSandbox('agent-tracker-node-sqlite-');
  sandboxes.push(sandbox);
  // Any command that opens OpenCode's database makes it, with its migrations run.
  execFileSync(OPENCODE_BIN, ['session', 'list'], { env: sandbox.env, cwd: sandbox.root, stdio: 'ignore', timeout: CHILD_TIMEOUT_MS });
  const database = path.join(sandbox.env.XDG_DATA_HOME ?? '', 'opencode', 'opencode.db');
  execFileSync(OPENCODE_BIN, [path.join(ROOT, 'bench', 'opencode-store-gen.mjs'), database, String(SESSIONS)], { env: { ...sandbox.env, BUN_BE_BUN: '1' }, stdio: 'ignore', timeout: CHILD_TIMEOUT_MS });
  return { sandbox, database };
}

beforeAll(() => {
  newerNode = nodeWithSqlite();
  shared = opencodeStore();
}, 600_000);

afterAll(() => {
  for (const sandbox of sandboxes) removeSandbox(sandbox);
});

/** `agent-tracker ARGS --db DB` under `node` (or OpenCode's Bun), DB in the store's sandbox: exit code, stdout and stderr. */
function cli(store: OpenCodeStore, node: string, db: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const { root } = store.sandbox;
  const env = node === OPENCODE_BIN ? { ...store.sandbox.env, BUN_BE_BUN: '1' } : store.sandbox.env;
  const result = spawnSync(node, [CLI, ...args, '--db', path.join(root, db)], { env, cwd: root, encoding: 'utf8', timeout: CHILD_TIMEOUT_MS });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function backfill(store: OpenCodeStore, node: string, db: string): Summary {
  const result = cli(store, node, db, 'backfill', '--json');
  expect(result).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(result.stdout) as Summary;
}

function report(store: OpenCodeStore, node: string, db: string): { text: string; parsed: Report } {
  const result = cli(store, node, db, 'report', '--json');
  expect(result).toMatchObject({ code: 0, stderr: '' });
  return { text: result.stdout, parsed: JSON.parse(result.stdout) as Report };
}

function expectTheStoresFigures(summary: Summary, rows: Report['rows']): void {
  expect(summary).toMatchObject({ sessions: SESSIONS, messages: SESSIONS * MESSAGES, toolCalls: SESSIONS * MESSAGES, commits: SESSIONS * COMMITS });
  const total = (field: keyof Report['rows'][number]) => rows.reduce((sum, row) => sum + row[field], 0);
  expect([total('messages'), total('toolCalls'), total('toolFailures'), total('commits'), total('tokensInput')]).toEqual([
    SESSIONS * MESSAGES, SESSIONS * MESSAGES, SESSIONS * FAILURES, SESSIONS * COMMITS, SESSIONS * MESSAGES * INPUT_TOKENS,
  ]);
}

/** A writer holding an exclusive lock on the store until it is killed (or for a bounded minute). */
async function lockStore(store: OpenCodeStore): Promise<ChildProcess> {
  const script = `const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(process.argv[1]);
db.exec('PRAGMA locking_mode = EXCLUSIVE');
db.exec('BEGIN EXCLUSIVE');
db.prepare('SELECT COUNT(*) FROM session').all();
console.log('locked');
setTimeout(() => process.exit(0), 60000);`;
  const holder = spawn(newerNode, ['--no-warnings', '-e', script, store.database], { stdio: ['ignore', 'pipe', 'inherit'] });
  await untilPrinted(holder, 'locked');
  return holder;
}

/**
 * OpenCode (its own Bun) adds a session like the first, a month later under new ids and commit hashes,
 * updated last, and keeps the database open, so the rows are still in the WAL (SQLite checkpoints when the last connection closes).
 */
async function writeOneMoreSession(store: OpenCodeStore): Promise<ChildProcess> {
  const script = path.join(store.sandbox.root, 'write-more.mjs');
  fs.writeFileSync(
    script,
    `import { Database } from 'bun:sqlite';
const db = new Database(process.argv[2]);
const shift = 30 * 86400000;
const later = (t) => t + shift;
db.transaction(() => {
  const head = db.query("SELECT * FROM session WHERE id = 'ses_000000'").get();
  db.query('INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES (?,?,?,?,?,?,?,?,?)')
    .run('ses_extra', head.project_id, null, 'slug-extra', head.directory, 'extra', head.version, later(head.time_created), later(db.query('SELECT MAX(time_updated) AS t FROM session').get().t));
  for (const row of db.query("SELECT * FROM message WHERE session_id = 'ses_000000'").all()) {
    const data = JSON.parse(row.data);
    data.time = { created: later(data.time.created), completed: later(data.time.completed) };
    db.query('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?)').run(row.id + '_x', 'ses_extra', later(row.time_created), later(row.time_updated), JSON.stringify(data));
  }
  let commit = 0;
  for (const row of db.query("SELECT * FROM part WHERE session_id = 'ses_000000'").all()) {
    const data = JSON.parse(row.data);
    if (data.type === 'tool') {
      data.callID += '_x';
      data.state.time = { start: later(data.state.time.start), end: later(data.state.time.end) };
      const hash = (0xe000000 + (commit += 1)).toString(16);
      data.state.output = data.state.output.replace(/\\[main [0-9a-f]+\\]/, '[main ' + hash + ']');
      data.state.metadata.output = data.state.output;
    }
    db.query('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?,?)').run(row.id + '_x', row.message_id + '_x', 'ses_extra', later(row.time_created), later(row.time_updated), JSON.stringify(data));
  }
})();
console.log('written');
setTimeout(() => process.exit(0), 60000);`,
  );
  const writer = spawn(OPENCODE_BIN, [script, store.database], { env: { ...store.sandbox.env, BUN_BE_BUN: '1' }, stdio: ['ignore', 'pipe', 'inherit'] });
  await untilPrinted(writer, 'written');
  return writer;
}

/** Resolves when `child` prints `word`; rejects when it exits first. */
function untilPrinted(child: ChildProcess, word: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes(word) && resolve());
    child.on('exit', (code) => reject(new Error(`${path.basename(String(child.spawnfile))} exited (${code}) before it printed "${word}"`)));
  });
}

describe('the CLI under Bun', () => {
  it("backfills a real OpenCode store in its import process with bun:sqlite: the store's figures, nothing on stderr", () => {
    const summary = backfill(shared, OPENCODE_BIN, 'bun.lmdb');
    expect(summary.source).toBe(`OpenCode's database at ${shared.database} (read with bun:sqlite)`);
    expectTheStoresFigures(summary, report(shared, process.execPath, 'bun.lmdb').parsed.rows);
  }, CHILD_TIMEOUT_MS);
});

describe('the CLI on a Node with node:sqlite', () => {
  it('backfills a real OpenCode store with node:sqlite: the store\'s figures, the reader named, no warning printed', () => {
    const summary = backfill(shared, newerNode, 'native.lmdb');
    expect(summary.source).toBe(`OpenCode's database at ${shared.database} (read with node:sqlite)`);
    expectTheStoresFigures(summary, report(shared, newerNode, 'native.lmdb').parsed.rows);
  }, CHILD_TIMEOUT_MS);

  it('reads what OpenCode adds to its WAL while it keeps the store open, and counts nothing twice', async () => {
    const store = opencodeStore();
    const first = backfill(store, newerNode, 'again.lmdb');
    const before = report(store, newerNode, 'again.lmdb').parsed.rows;
    const writer = await writeOneMoreSession(store);
    try {
      expect(fs.statSync(`${store.database}-wal`).size).toBeGreaterThan(0);
      const again = backfill(store, newerNode, 'again.lmdb');
      expect(again.source).toBe(`OpenCode's database at ${store.database} (read with node:sqlite)`);
      // The new session is read, and the one updated at the watermark's millisecond (read again):
      // the summary counts what was added, the new session's alone.
      expect(again).toMatchObject({ sessions: 1, messages: MESSAGES, commits: COMMITS });
      const after = report(store, newerNode, 'again.lmdb').parsed.rows;
      const total = (rows: Report['rows'], field: 'messages' | 'commits' | 'tokensInput') => rows.reduce((sum, row) => sum + row[field], 0);
      expect([total(after, 'messages'), total(after, 'commits'), total(after, 'tokensInput')]).toEqual([
        total(before, 'messages') + MESSAGES, total(before, 'commits') + COMMITS, total(before, 'tokensInput') + MESSAGES * INPUT_TOKENS,
      ]);
      expect(first.sessions).toBe(SESSIONS);
    } finally {
      writer.kill('SIGKILL');
    }
  }, CHILD_TIMEOUT_MS);

  it('falls back to sql.js with one line when node:sqlite cannot open a locked store, and records the same figures', async () => {
    backfill(shared, newerNode, 'unlocked.lmdb');
    const native = report(shared, newerNode, 'unlocked.lmdb').text;
    const holder = await lockStore(shared);
    try {
      const summary = backfill(shared, newerNode, 'locked.lmdb');
      expect(summary.source).toBe(`OpenCode's database at ${shared.database} (read with sql.js: node:sqlite could not open it: database is locked)`);
      const locked = report(shared, newerNode, 'locked.lmdb');
      expectTheStoresFigures(summary, locked.parsed.rows);
      expect(locked.text).toBe(native);
    } finally {
      holder.kill('SIGKILL');
    }
  }, CHILD_TIMEOUT_MS);

  it('records the same report as the Node running the tests', () => {
    const here = backfill(shared, process.execPath, 'here.lmdb');
    const native = backfill(shared, newerNode, 'there.lmdb');
    expect({ ...here, source: '' }).toEqual({ ...native, source: '' });
    expect(report(shared, process.execPath, 'here.lmdb').text).toBe(report(shared, newerNode, 'there.lmdb').text);
  }, CHILD_TIMEOUT_MS);
});

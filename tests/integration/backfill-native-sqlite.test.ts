/**
 * The native readers of OpenCode's SQLite history (bun:sqlite, where the tracker runs on Bun: the
 * plugin's import child under OpenCode's own binary; node:sqlite, where the CLI runs on a Node that
 * has it, here the pinned Node of scripts/newer-node.mjs) read exactly what the portable sql.js reader
 * reads, from the same store, including a WAL with a committed and a half-written transaction.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import sqlJs from 'sql.js';
import { describe, expect, it } from '@jest/globals';
import type { HostSession } from '../../src/core/backfill/history.js';
import { openHistory } from '../../src/opencode/history/locate.js';
import { asWalMode, sqliteHistoryImage, writeWal } from '../helpers/opencode-history.js';
import type { FixtureSession } from '../helpers/opencode-history.js';
import { writeV2History } from '../helpers/opencode-v2-store.js';
import type { V2FixtureSession } from '../helpers/opencode-v2-store.js';
import { nodeWithSqlite } from '../helpers/newer-node.js';
import { OPENCODE_BIN, ROOT } from '../helpers/sandbox.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('agent-tracker-native-sqlite-');
const T0 = Date.UTC(2025, 2, 1);

function session(index: number, directory: string): FixtureSession {
  const id = `ses_${index}`;
  return {
    id,
    directory,
    created: T0 + index * 1000,
    updated: T0 + index * 1000 + 500,
    messages: [
      { id: `${id}_u`, role: 'user', created: T0 + index * 1000 },
      {
        id: `${id}_a`, role: 'assistant', agent: index % 2 ? 'plan' : 'build', providerID: 'anthropic', modelID: 'claude', cost: 0.25 * index,
        tokens: { input: 10 * index, output: 3, reasoning: 1, cache: { read: 2, write: 1 } }, created: T0 + index * 1000 + 100,
        tools: [
          { callId: `${id}_c1`, tool: 'bash', status: 'completed', command: 'git commit -am "x"', output: `[main ${String(index).padStart(7, 'a')}] x\n`, exit: 0 },
          { callId: `${id}_c2`, tool: 'read', status: 'error' },
          // A revert's output is read as a commit's is (it prints the same summary line).
          { callId: `${id}_c3`, tool: 'bash', status: 'completed', command: 'git revert --no-edit HEAD', output: `[main ${String(index).padStart(7, 'b')}] Revert "x"\n`, exit: 0 },
        ],
      },
    ],
  };
}

/** A query of the sessions created from this time on (the second session's creation, less half a second). */
const CREATED_SINCE = T0 + 1500;

/** What the reader in this process (Node: sql.js) reads, and when it says its oldest session (of all, and from CREATED_SINCE on) was created. */
async function readHere(dataDir: string): Promise<{ description: string; sessions: unknown[]; earliest: (number | null)[] }> {
  const source = await openHistory(dataDir);
  const sessions: unknown[] = [];
  try {
    for await (const item of source.sessions({})) sessions.push(item);
    return { description: source.description, sessions, earliest: [source.earliestCreated({}) ?? null, source.earliestCreated({ createdSince: CREATED_SINCE }) ?? null] };
  } finally {
    source.close();
  }
}

type Engine = 'bun:sqlite' | 'node:sqlite';
const ENGINES: Engine[] = ['bun:sqlite', 'node:sqlite'];

/** What the same reader reads under the Bun inside the `opencode` binary (bun:sqlite) or a Node with node:sqlite. */
function readNatively(engine: Engine, dataDir: string): { description: string; sessions: HostSession[]; earliest: (number | null)[] } {
  const script = path.join(tempDir(), 'read.mjs');
  const locate = path.join(ROOT, 'dist', 'opencode', 'history', 'locate.js');
  fs.writeFileSync(
    script,
    `const { openHistory } = await import(${JSON.stringify(locate)});
const source = await openHistory(process.argv[2]);
const sessions = [];
for await (const item of source.sessions({})) sessions.push(item);
const earliest = [source.earliestCreated({}) ?? null, source.earliestCreated({ createdSince: ${CREATED_SINCE} }) ?? null];
source.close();
console.log(JSON.stringify({ description: source.description, sessions, earliest }));`,
  );
  const env = { PATH: process.env.PATH, HOME: path.dirname(script), ...(engine === 'bun:sqlite' ? { BUN_BE_BUN: '1' } : {}) };
  const runtime = engine === 'bun:sqlite' ? OPENCODE_BIN : nodeWithSqlite();
  const result = spawnSync(runtime, [script, dataDir], { env, encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`${engine} read failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop() ?? '') as { description: string; sessions: HostSession[]; earliest: (number | null)[] };
}

/** `image` with one more part row for `messageId` whose data is `data` as it is (sql.js, as the fixtures are written). */
async function withPartRow(image: Uint8Array, sessionId: string, messageId: string, data: string): Promise<Uint8Array> {
  const wasm = createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm');
  type Db = { run(sql: string, params: unknown[]): void; export(): Uint8Array; close(): void };
  const SQL = await (sqlJs as unknown as (config: { locateFile: () => string }) => Promise<{ Database: new (data: Uint8Array) => Db }>)({ locateFile: () => wasm });
  const db = new SQL.Database(image);
  db.run('INSERT INTO part VALUES (?,?,?,?,?,?)', ['prt_broken', messageId, sessionId, T0, T0, data]);
  const changed = db.export();
  db.close();
  return changed;
}

describe.each(ENGINES)('reading OpenCode history with %s', (engine) => {
  it("reads the same tool calls as sql.js from large outputs, a commit's summary and a part written half, keeping an output only where a commit is read from it", async () => {
    const dataDir = tempDir();
    const project = tempDir();
    const log = 'PASS src/a.test.ts\n'.repeat(3000);
    const heavy: FixtureSession = {
      id: 'ses_9',
      directory: project,
      created: T0,
      updated: T0 + 500,
      messages: [
        {
          id: 'ses_9_a', role: 'assistant', agent: 'build', providerID: 'anthropic', modelID: 'claude', cost: 0.1,
          tokens: { input: 5, output: 1, reasoning: 0, cache: { read: 0, write: 0 } }, created: T0 + 100,
          tools: [
            { callId: 'ses_9_c1', tool: 'bash', status: 'completed', command: 'npm test', output: log, exit: 1 },
            { callId: 'ses_9_c2', tool: 'bash', status: 'completed', command: 'git add -A && git commit -m "fix"', output: `${log}[main 1234abc] fix\n 1 file changed`, exit: 0 },
            { callId: 'ses_9_c3', tool: 'read', status: 'completed', output: log },
          ],
        },
      ],
    };
    const image = await sqliteHistoryImage([heavy]);
    fs.writeFileSync(path.join(dataDir, 'opencode.db'), await withPartRow(image, 'ses_9', 'ses_9_a', '{"type":"tool","tool":"bash","callID":"x","state":{"status":"comp'));
    const here = await readHere(dataDir);
    const native = readNatively(engine, dataDir);
    expect(native.sessions).toEqual(here.sessions);
    const calls = native.sessions[0]?.messages[0]?.tools ?? [];
    expect(calls.map((call) => [call.providerCallId, call.exit, call.output === undefined])).toEqual([
      ['ses_9_c1', 1, true],
      ['ses_9_c2', 0, false],
      ['ses_9_c3', undefined, true],
    ]);
    expect(calls[1]?.output).toContain('[main 1234abc] fix');
  }, 120_000);


  it('reads the same sessions as sql.js, committed WAL frames included and a half-written transaction left out', async () => {
    const dataDir = tempDir();
    const project = tempDir();
    const database = path.join(dataDir, 'opencode.db');
    fs.writeFileSync(database, asWalMode(await sqliteHistoryImage([session(1, project), session(2, project)])));
    writeWal(`${database}-wal`, [
      { image: await sqliteHistoryImage([session(1, project), session(2, project), session(3, project)]), committed: true },
      { image: await sqliteHistoryImage([session(1, project), session(2, project), session(3, project), session(4, project)]), committed: false },
    ]);
    const here = await readHere(dataDir);
    const native = readNatively(engine, dataDir);
    expect(native.sessions.map((s) => s.id)).toEqual(['ses_1', 'ses_2', 'ses_3']);
    expect(native.sessions).toEqual(here.sessions);
    // The oldest session each reads (its creation bounds which commits a backfill asks git for).
    expect(native.earliest).toEqual([T0 + 1000, T0 + 2000]);
    expect(here.earliest).toEqual(native.earliest);
    // The native path opened it, and says so: no fallback line in the description.
    expect(native.description).toBe(`OpenCode's database at ${database} (read with ${engine})`);
  }, 120_000);

  it('leaves a database with version 2 tables (alone or beside version 1) to the version-2 reader, as sql.js does', async () => {
    const project = tempDir();
    const v2: V2FixtureSession[] = [1, 2].map((index) => ({
      id: `ses_v2_${index}`,
      directory: project,
      created: T0 + index * 1000,
      updated: T0 + index * 1000 + 500,
      prompt: 'work',
      steps: [
        {
          id: `msg_v2_${index}`, agent: 'build', model: { providerID: 'anthropic', id: 'claude' }, created: T0 + index * 1000 + 100,
          tokens: { input: 7 * index, output: 2, reasoning: 0, cache: { read: 0, write: 0 } }, cost: 0.5,
          tools: [{ id: 'call_0', name: 'bash', status: 'completed', input: { command: 'ls' }, text: 'a', exit: 0 }],
        },
      ],
    }));
    const alone = tempDir();
    await writeV2History(alone, v2);
    const both = tempDir();
    await writeV2History(both, v2, await sqliteHistoryImage([session(3, project)]));
    for (const [dataDir, ids] of [[alone, ['ses_v2_1', 'ses_v2_2']], [both, ['ses_3', 'ses_v2_1', 'ses_v2_2']]] as const) {
      const here = await readHere(dataDir);
      const native = readNatively(engine, dataDir);
      expect(native.sessions.map((s) => s.id).sort()).toEqual([...ids]);
      expect(native.sessions).toEqual(here.sessions);
      expect(native.description).toBe(here.description);
    }
  }, 120_000);
});

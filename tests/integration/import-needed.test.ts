/**
 * The plugin's check "would the history-import child import anything?" (import-needed.ts), run as in
 * OpenCode: under the Bun inside the `opencode` binary (bun:sqlite), on a real-schema SQLite store
 * and a temporary LMDB that the real import filled. Where a session holds a message or a tool call the
 * store does not, the child is needed (and the real import then does add it); where all is held, not;
 * a session created since the plugin started is live tracking's, never a reason.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { silentLogger } from '../../src/core/logger.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { Store } from '../../src/core/store/store.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { DEFAULT_MAX_DATABASE_SIZE, resolveConfig } from '../../src/core/config.js';
import { historyImportNeeded } from '../../src/opencode/history/import-needed.js';
import { importHistory } from '../../src/opencode/history/import.js';
import { writeSqliteHistory } from '../helpers/opencode-history.js';
import type { FixtureSession, FixtureTool } from '../helpers/opencode-history.js';
import { OPENCODE_BIN, ROOT } from '../helpers/sandbox.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('agent-tracker-import-needed-');
const T0 = Date.UTC(2026, 0, 5);
const NEVER = Number.MAX_SAFE_INTEGER;

function assistant(id: string, created: number, tools: FixtureTool[] = [], input = 100): FixtureSession['messages'][number] {
  return { id, role: 'assistant', agent: 'build', providerID: 'fake', modelID: 'm', cost: 0.01, tokens: { input, output: 20, reasoning: 0, cache: { read: 0, write: 0 } }, created, tools };
}

function sessions(directory: string): FixtureSession[] {
  return [
    {
      id: 'ses_a', directory, created: T0, updated: T0 + 5000,
      messages: [{ id: 'msg_a0', role: 'user', created: T0 }, assistant('msg_a1', T0 + 1000, [{ callId: 'prt_a1', tool: 'bash', status: 'completed', command: 'ls', output: 'x', exit: 0 }]), assistant('msg_a2', T0 + 3000)],
    },
    {
      id: 'ses_b', directory, created: T0 + 10_000, updated: T0 + 15_000,
      messages: [{ id: 'msg_b0', role: 'user', created: T0 + 10_000 }, assistant('msg_b1', T0 + 11_000, [{ callId: 'prt_b1', tool: 'read', status: 'error' }])],
    },
  ];
}

type Need = { needed: false; sessions: number; newestUpdate: number } | { needed: true; reason: string };

let dataDir: string;
let dbPath: string;
let project: string;

/** Runs the check under the `opencode` binary's Bun, as the plugin runs in OpenCode. */
function checkUnderBun(createdBefore: number, maxSessions = 0): Need {
  const script = path.join(tempDir(), 'check.mjs');
  const dist = (file: string): string => JSON.stringify(path.join(ROOT, 'dist', ...file.split('/')));
  fs.writeFileSync(
    script,
    `const { Store } = await import(${dist('core/store/store.js')});
const { historyImportNeeded } = await import(${dist('opencode/history/import-needed.js')});
const store = Store.open({ path: process.argv[2], maxDatabaseSize: ${DEFAULT_MAX_DATABASE_SIZE} });
try {
  console.log(JSON.stringify(await historyImportNeeded(store, process.argv[3], undefined, Number(process.argv[4]), ...(Number(process.argv[5]) > 0 ? [Number(process.argv[5])] : []))));
} finally {
  store.close();
}`,
  );
  const result = spawnSync(OPENCODE_BIN, [script, dbPath, dataDir, String(createdBefore), String(maxSessions)], { env: { PATH: process.env.PATH, HOME: tempDir(), BUN_BE_BUN: '1' }, encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`the check failed under Bun: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop() ?? '') as Need;
}

/** The real import (what the child runs), into the temporary LMDB; what it added. */
async function importAll(): Promise<{ messages: number; toolCalls: number }> {
  // Opened as the child opens it: with the term index, which the import's journal entries go into.
  const store = Store.open({ path: dbPath, maxDatabaseSize: DEFAULT_MAX_DATABASE_SIZE, indexer: termIndexer });
  try {
    const config = resolveConfig({ options: { databasePath: dbPath }, env: {}, home: tempDir() });
    const service = new TrackingService({ store, config, logger: silentLogger, project });
    const outcome = await importHistory(service, dataDir, { full: true });
    if (outcome.upToDate) throw new Error('a full import is never up to date');
    const usage = [...store.tables.usage.getRange({})].map(({ value }) => value);
    return { messages: usage.reduce((sum, u) => sum + (u.messages ?? 0), 0), toolCalls: usage.reduce((sum, u) => sum + (u.toolCalls ?? 0), 0) };
  } finally {
    store.close();
  }
}

beforeEach(async () => {
  const root = tempDir();
  dataDir = path.join(root, 'opencode');
  dbPath = path.join(root, 'tracker', 'agent-tracker.lmdb');
  project = path.join(root, 'project');
  fs.mkdirSync(project);
  await writeSqliteHistory(dataDir, sessions(project));
});

describe('whether the history-import child has anything to import', () => {
  it('is needed for sessions the store does not hold, and not once the import holds them all', async () => {
    expect(checkUnderBun(NEVER)).toMatchObject({ needed: true });
    expect(await importAll()).toEqual({ messages: 3, toolCalls: 2 });
    expect(checkUnderBun(NEVER)).toEqual({ needed: false, sessions: 2, newestUpdate: T0 + 15_000 });
  });

  it('is needed when a session holds one more message than the store, and the import then adds exactly it', async () => {
    await importAll();
    const grown = sessions(project);
    grown[1]?.messages.push(assistant('msg_b2', T0 + 14_000, [], 7));
    await writeSqliteHistory(dataDir, grown);
    expect(checkUnderBun(NEVER)).toMatchObject({ needed: true, reason: expect.stringContaining('ses_b') });
    expect(await importAll()).toEqual({ messages: 4, toolCalls: 2 });
    expect(checkUnderBun(NEVER)).toMatchObject({ needed: false, sessions: 2 });
  });

  it('is needed when a held message gained a tool call or tokens since it was recorded', async () => {
    await importAll();
    const withCall = sessions(project);
    withCall[0]?.messages[2]?.tools?.push({ callId: 'prt_a2', tool: 'bash', status: 'completed', command: 'pwd', output: '/', exit: 0 });
    await writeSqliteHistory(dataDir, withCall);
    expect(checkUnderBun(NEVER)).toMatchObject({ needed: true, reason: expect.stringContaining('ses_a') });

    const moreTokens = sessions(project);
    const message = moreTokens[1]?.messages[1];
    if (message?.tokens) message.tokens.input += 1;
    await writeSqliteHistory(dataDir, moreTokens);
    expect(checkUnderBun(NEVER)).toMatchObject({ needed: true, reason: expect.stringContaining('ses_b') });
  });

  it('leaves more sessions than it reads in OpenCode\'s process to the child, held or not', async () => {
    await importAll();
    expect(checkUnderBun(NEVER, 1)).toEqual({ needed: true, reason: '2 sessions to read' });
    expect(checkUnderBun(NEVER, 2)).toMatchObject({ needed: false, sessions: 2 });
  });

  it('leaves a session created since the plugin started to live tracking: not a reason to start the child', async () => {
    await importAll();
    const later = sessions(project);
    later[1]?.messages.push(assistant('msg_b2', T0 + 14_000));
    await writeSqliteHistory(dataDir, later);
    const startedAt = T0 + 10_000; // ses_b was created at this moment: after the plugin's start, as live tracking counts it
    expect(checkUnderBun(startedAt)).toEqual({ needed: false, sessions: 1, newestUpdate: T0 + 5000 });
  });

  it('under Node runs the child where Node has no node:sqlite (Node 20: the child reads with sql.js), else answers as under Bun', async () => {
    const lookup = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
    const nodeSqlite = typeof lookup === 'function' && lookup.call(process, 'node:sqlite') !== undefined;
    const store = Store.open({ path: dbPath, maxDatabaseSize: DEFAULT_MAX_DATABASE_SIZE });
    try {
      const need = await historyImportNeeded(store, dataDir, undefined, NEVER);
      expect(need).toEqual(nodeSqlite ? { needed: true, reason: 'session ses_a holds work not recorded' } : { needed: true, reason: 'no native SQLite engine in this runtime' });
    } finally {
      store.close();
    }
  });
});

/**
 * The plugin's start, in process, on a real temporary database: the term indexer loads just after
 * server() returns, so an entry recorded (and a flush asked for) before it is there must wait in
 * memory, not be written unindexed, and be written and found once it is.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { PluginInput, ToolContext } from '@opencode-ai/plugin';
import { DEFAULT_RULES } from '../../src/core/rules.js';
import { QueryService } from '../../src/core/search/service.js';
import { TermIndexReader } from '../../src/core/search/index/reader.js';
import { Store } from '../../src/core/store/store.js';
import plugin from '../../src/opencode/plugin.js';
import { MAINTENANCE_DELAY_MS } from '../../src/opencode/store-health.js';

const KEYS = ['HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'AGENT_TRACKER_DB_PATH', 'AGENT_TRACKER_IMPORT_HISTORY'] as const;
const saved: Partial<Record<(typeof KEYS)[number], string | undefined>> = {};
let dir: string;
let dbPath: string;
const logged: { level: string; message: string }[] = [];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-plugin-start-'));
  dbPath = path.join(dir, 'db.lmdb');
  for (const key of KEYS) saved[key] = process.env[key];
  Object.assign(process.env, {
    HOME: dir,
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDG_DATA_HOME: path.join(dir, 'data'),
    AGENT_TRACKER_DB_PATH: dbPath,
    AGENT_TRACKER_IMPORT_HISTORY: '0',
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
    tui: { showToast: async () => ({}) },
  };
  return { client, project: { id: 'p', worktree: project }, directory: project, worktree: project, serverUrl: new URL('http://127.0.0.1:1'), $: undefined } as unknown as PluginInput;
}

describe('plugin start', () => {
  it('writes and indexes an entry recorded before the term indexer loaded', async () => {
    const project = path.join(dir, 'project');
    fs.mkdirSync(project, { recursive: true });
    const hooks = await plugin.server(input(project), {});
    const logActivity = hooks.tool?.['log-activity'];
    expect(logActivity).toBeDefined();
    const context = { sessionID: 'ses_1', messageID: 'msg_1', agent: 'build', abort: new AbortController().signal } as unknown as ToolContext;
    // Right after server() returned, before any timer ran: the indexer is not loaded yet.
    await logActivity!.execute({ task: 'teach the tokenizer about unicode quotation marks', outcome: 'done' }, context);
    await hooks.event?.({ event: { type: 'session.deleted', properties: { info: { id: 'ses_1' } } } as never });
    await hooks.dispose?.();

    const store = Store.open({ path: dbPath, maxDatabaseSize: 64 * 1024 * 1024, readOnly: true });
    try {
      expect(store.tables.activities.getKeysCount()).toBe(1);
      const found = new QueryService(store).searchPriorArt({ taskDescription: 'unicode quotation marks', scope: project, maxResults: 3 });
      expect(found.positivePatterns).toHaveLength(1);
    } finally {
      store.close();
    }
    expect(logged.filter((line) => line.level === 'error')).toEqual([]);
  });

  it("merges the index's run a moment after a turn's flush, while the session goes on", async () => {
    const project = path.join(dir, 'project-2');
    fs.mkdirSync(project, { recursive: true });
    const hooks = await plugin.server(input(project), {});
    const context = { sessionID: 'ses_2', messageID: 'msg_1', agent: 'build', abort: new AbortController().signal } as unknown as ToolContext;
    await hooks.tool?.['log-activity']?.execute({ task: 'merge the recent postings after the turn', outcome: 'done' }, context);
    // The indexer loads on the next timers; the turn's end flushes and the merge step follows.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await hooks.event?.({ event: { type: 'session.idle', properties: { sessionID: 'ses_2' } } as never });
    await new Promise((resolve) => setTimeout(resolve, MAINTENANCE_DELAY_MS + 500));
    await hooks.dispose?.();

    const store = Store.open({ path: dbPath, maxDatabaseSize: 64 * 1024 * 1024, readOnly: true });
    try {
      expect(new TermIndexReader(store.tables.terms).pendingRuns()).toEqual({ runs: 0, terms: 0 });
      const found = new QueryService(store).searchPriorArt({ taskDescription: 'recent postings', scope: project, maxResults: 3 });
      expect(found.positivePatterns.map((match) => match.task)).toEqual(['merge the recent postings after the turn']);
    } finally {
      store.close();
    }
    expect(logged.filter((line) => line.level === 'error')).toEqual([]);
  });
});

describe('the first tool call after start', () => {
  it('refuses a halted agent before the database is open: the call waits for the open, not for nothing', async () => {
    // Halted in an earlier session: more bugs than its SP, in a file another process wrote (the plugin checks it before it opens it).
    const seeded = Store.open({ path: dbPath, maxDatabaseSize: 64 * 1024 * 1024 });
    const bugs = Array.from({ length: DEFAULT_RULES.initialSp + 1 }, () => ({ kind: 'bug' as const }));
    seeded.applyBatch([{ table: 'agents', key: 'build', ops: bugs }], DEFAULT_RULES, new Date().toISOString());
    seeded.close();
    const project = path.join(dir, 'project-3');
    fs.mkdirSync(project, { recursive: true });
    const hooks = await plugin.server(input(project), {});
    try {
      await hooks['chat.params']?.({ sessionID: 'ses_3', agent: 'build', model: { providerID: 'fake', id: 'model' } } as never, {} as never);
      // Right after server() returned: the worker thread has not opened the file yet.
      const call = hooks['tool.execute.before']?.({ tool: 'bash', sessionID: 'ses_3', callID: 'call_1' }, { args: { command: 'ls' } });
      await expect(call).rejects.toThrow(/Agent "build" is halted/);
    } finally {
      await hooks.dispose?.();
    }
  });

  it("greets a session with the agent's sheet from the record, though the greeting comes before the database is open", async () => {
    const seeded = Store.open({ path: dbPath, maxDatabaseSize: 64 * 1024 * 1024 });
    seeded.applyBatch([{ table: 'agents', key: 'scout', ops: [{ kind: 'xp', amount: 7 }] }], DEFAULT_RULES, new Date().toISOString());
    seeded.close();
    const project = path.join(dir, 'project-4');
    fs.mkdirSync(project, { recursive: true });
    const toasts: { title: string; message: string }[] = [];
    const client = { ...input(project).client, tui: { showToast: async ({ body }: { body: { title: string; message: string } }) => (toasts.push(body), {}) } };
    const hooks = await plugin.server({ ...input(project), client } as unknown as PluginInput, {});
    try {
      await hooks['chat.params']?.({ sessionID: 'ses_4', agent: 'scout', model: { providerID: 'fake', id: 'model' } } as never, {} as never);
      for (let waited = 0; toasts.length === 0 && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(toasts.map((toast) => toast.title)).toEqual(['scout: session start']);
      expect(toasts[0]?.message).toMatch(/XP \.+ 7\//);
    } finally {
      await hooks.dispose?.();
    }
  });
});

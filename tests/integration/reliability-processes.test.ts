/**
 * Reliability under concurrency and crashes: real child processes (tests/helpers/workers/record.mjs,
 * running the built TrackingService) write into one temporary database.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { DEFAULT_RULES, applyAgentOp, newAgent } from '../../src/core/rules.js';
import { Store } from '../../src/core/store/store.js';
import { ROOT } from '../helpers/sandbox.js';
import { termIndexer } from '../../src/core/search/indexer.js';

jest.setTimeout(120_000);

const WORKER = path.join(ROOT, 'tests', 'helpers', 'workers', 'record.mjs');
const MAX_SIZE = 512 * 1024 * 1024;
const CHILD_TIMEOUT_MS = 90_000;
// The worker's event plan (kept in step with record.mjs).
const SHARED_SESSIONS = 6;
const FAIL_EVERY = 13;
const COMMIT_EVERY = 25;
const AGENT = 'build';
const MODEL = 'fake/fake-model';

type Child = ChildProcessByStdio<null, Readable, Readable>;

function startWorker(args: string[]): { child: Child; output: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [WORKER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
  const output = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, output };
}

/** Resolves once the child's stdout has printed `count` lines starting with `prefix`. */
function waitForLines(child: Child, prefix: string, count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = 0;
    let pending = '';
    const onData = (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      seen += lines.filter((line) => line.startsWith(prefix)).length;
      if (seen >= count) {
        child.stdout.off('data', onData);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.on('close', () => reject(new Error(`worker ended after ${seen} of ${count} "${prefix}" lines`)));
  });
}

/** What one worker's plan records, computed from the plan itself. */
function planTotals(events: number) {
  const perSession = Array.from({ length: SHARED_SESSIONS }, () => ({ toolCalls: 0, toolFailures: 0, commits: 0 }));
  let ok = 0;
  let commits = 0;
  for (let i = 0; i < events; i += 1) {
    const session = perSession[i % SHARED_SESSIONS]!;
    session.toolCalls += 1;
    if (i % FAIL_EVERY === 0) session.toolFailures += 1;
    else ok += 1;
    if (i % COMMIT_EVERY === 0) {
      session.commits += 1;
      commits += 1;
    }
  }
  return { ok, commits, perSession };
}

describe('several processes and crashes, one database', () => {
  let dir: string;
  let dbPath: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-reliability-'));
    dbPath = path.join(dir, 'tracker.lmdb');
  });

  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps exact totals when 4 processes record 5,000 events each with flushes interleaving', async () => {
    const workers = 4;
    const events = 5_000;
    const flushMaxMutations = 8;
    const runs = Array.from({ length: workers }, (_, id) => startWorker(['record', dbPath, `w${id}`, String(events), String(flushMaxMutations)]));
    const results = await Promise.all(runs.map((run) => run.output));
    for (const result of results) expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const reports = results.map((result) => JSON.parse(result.stdout.trim()) as { flushes: number; lastFlushOk: boolean; errors: string[]; startedAt: number; endedAt: number });

    // They really overlapped in time, each flushing many times.
    expect(Math.max(...reports.map((r) => r.startedAt))).toBeLessThan(Math.min(...reports.map((r) => r.endedAt)));
    for (const report of reports) {
      expect(report).toMatchObject({ lastFlushOk: true, errors: [] });
      expect(report.flushes).toBeGreaterThan(events / (COMMIT_EVERY * 2));
    }

    const plan = planTotals(events);
    const expected = newAgent(AGENT, '', DEFAULT_RULES);
    applyAgentOp(expected, { kind: 'xp', amount: workers * (plan.ok * DEFAULT_RULES.xpPerToolCall + plan.commits * DEFAULT_RULES.xpPerCommit) }, DEFAULT_RULES);
    applyAgentOp(expected, { kind: 'commits', amount: workers * plan.commits }, DEFAULT_RULES);

    const store = Store.open({ path: dbPath, maxDatabaseSize: MAX_SIZE, readOnly: true });
    try {
      expect(store.tables.agents.get(AGENT)).toMatchObject({ sp: expected.sp, xp: expected.xp, commits: expected.commits });
      for (let s = 0; s < SHARED_SESSIONS; s += 1) {
        const want = plan.perSession[s]!;
        expect(store.tables.usage.get([`ses-${s}`, AGENT, MODEL])).toMatchObject({
          toolCalls: workers * want.toolCalls,
          toolFailures: workers * want.toolFailures,
          commits: workers * want.commits,
        });
      }
      expect(store.tables.commits.getKeysCount()).toBe(workers * plan.commits);
      expect(store.meta().flushes).toBe(reports.reduce((sum, r) => sum + r.flushes, 0));
    } finally {
      store.close();
    }
  });

  it('keeps everything flushed before a SIGKILL and opens cleanly afterwards', async () => {
    const roundEvents = 40;
    const rounds = 3;
    const run = startWorker(['rounds', dbPath, String(roundEvents), String(rounds)]);
    await waitForLines(run.child, 'UNFLUSHED', 1);
    run.child.kill('SIGKILL');
    const result = await run.output;
    expect(result.signal).toBe('SIGKILL');

    const expected = newAgent(AGENT, '', DEFAULT_RULES);
    applyAgentOp(expected, { kind: 'xp', amount: rounds * roundEvents * DEFAULT_RULES.xpPerToolCall }, DEFAULT_RULES);
    const store = Store.open({ path: dbPath, maxDatabaseSize: MAX_SIZE, indexer: termIndexer });
    try {
      expect(store.tables.agents.get(AGENT)).toMatchObject({ sp: expected.sp, xp: expected.xp });
      expect(store.tables.usage.get(['ses-rounds', AGENT, MODEL])).toMatchObject({ toolCalls: rounds * roundEvents });
      expect(store.meta().flushes).toBe(rounds);
      // Still writable after the crash.
      store.write((tables) => tables.meta.putSync('afterCrash', true));
      expect(store.tables.meta.get('afterCrash')).toBe(true);
    } finally {
      store.close();
    }
  });

  it('leaves whole flushes only (never a part of one) when killed at an arbitrary moment', async () => {
    const roundEvents = 50;
    const run = startWorker(['rounds', dbPath, String(roundEvents)]);
    await waitForLines(run.child, 'FLUSHED', 5);
    // Let it run on for a moment chosen at random, then kill it mid-stream.
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.floor(Math.random() * 200)));
    run.child.kill('SIGKILL');
    const result = await run.output;
    expect(result.signal).toBe('SIGKILL');

    const store = Store.open({ path: dbPath, maxDatabaseSize: MAX_SIZE, indexer: termIndexer });
    try {
      const flushes = store.meta().flushes;
      expect(flushes).toBeGreaterThanOrEqual(5);
      // Each flush adds exactly one round: the counters and the flush count agree.
      expect(store.tables.usage.get(['ses-rounds', AGENT, MODEL])).toMatchObject({ toolCalls: flushes * roundEvents });
      const expected = newAgent(AGENT, '', DEFAULT_RULES);
      applyAgentOp(expected, { kind: 'xp', amount: flushes * roundEvents * DEFAULT_RULES.xpPerToolCall }, DEFAULT_RULES);
      expect(store.tables.agents.get(AGENT)).toMatchObject({ sp: expected.sp, xp: expected.xp });
    } finally {
      store.close();
    }
  });
});

/**
 * A flush the plugin gave up on counts once. The plugin's store lives in a worker thread (the built
 * dist/opencode/remote/host.js) and its main thread waits a bounded time for a flush. When another
 * process holds lmdb's write lock past that time, the main thread spills the batch; the worker, which
 * got the batch in time, must not write it once it gets the lock, or the next start's merge of the
 * spill counts it a second time. A flush in time writes once and leaves no marker behind.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from '@jest/globals';
import { resolveConfig } from '../../src/core/config.js';
import { silentLogger } from '../../src/core/logger.js';
import { DEFAULT_RULES } from '../../src/core/rules.js';
import { spillFilesOf } from '../../src/core/store/spill.js';
import { Store } from '../../src/core/store/store.js';
import { finalFlush } from '../../src/core/tracking/final-flush.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { Channel } from '../../src/opencode/remote/channel.js';
import { RemoteStore } from '../../src/opencode/remote/client.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('agent-tracker-late-write-');
const SIZE = 64 * 1024 * 1024;
const HOLDER = fileURLToPath(new URL('../helpers/workers/hold-write-lock.mjs', import.meta.url));
const SESSION = 'ses-late';
const AGENT = 'build';
const MODEL = 'fake/fake-model';
/** How long the plugin's flush waits in the reproduction: far shorter than the other process holds the lock. */
const SHORT_WAIT_MS = 400;
const HOLD_MS = 2_000;
/** After the holder is gone: the abandoned worker's own write (milliseconds) is long done by then. */
const SETTLE_MS = 1_500;
const CHILD_BOUND_MS = 20_000;
/** A wait whose last second is its marking margin, and a lock held into that second. */
const NEAR_WAIT_MS = 3_000;
const NEAR_HOLD_MS = 2_500;

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** A fresh database file, made and closed by the test's own Store. */
function created(dir: string): string {
  const file = path.join(dir, 'db.lmdb');
  Store.open({ path: file, maxDatabaseSize: SIZE }).close();
  return file;
}

/** The plugin's store for `file` once it is ready (spills merged), through its own worker thread. */
function started(file: string, writeTimeoutMs?: number): Promise<RemoteStore> {
  return new Promise((resolve, reject) => {
    const store = new RemoteStore(file, SIZE, new Channel(), silentLogger, writeTimeoutMs);
    const timer = setTimeout(() => reject(new Error('the store did not open in time')), CHILD_BOUND_MS);
    store.join(path.dirname(file), DEFAULT_RULES, {
      problem: (line) => {
        clearTimeout(timer);
        reject(new Error(line));
      },
      ready: () => {
        clearTimeout(timer);
        resolve(store);
      },
    });
  });
}

/** Another process inside a write transaction on `file`; resolves once it holds the lock, with its exit. */
function holdWriteLock(file: string, holdMs: number): Promise<{ exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [HOLDER, file, String(holdMs)], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the lock holder did not start in time')), CHILD_BOUND_MS);
    let out = '';
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('HOLDING')) {
        clearTimeout(timer);
        resolve({ exited });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the lock holder ended before it held the lock (exit ${code}): ${err}`));
    });
  });
}

function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What one turn of the test records, and the totals it must leave in the database, computed here. */
const TOOL_CALLS = 3;
const TEST_RUNS = 2;
const COMMANDS = 1;

function recordTurn(service: TrackingService<RemoteStore>, turn: number): void {
  service.noteModelRequest(SESSION, AGENT, MODEL);
  for (let call = 0; call < TOOL_CALLS; call += 1) service.recordToolCall(SESSION, `call-${turn}-${call}`, 'read', true);
  for (let run = 0; run < TEST_RUNS; run += 1) service.recordShellCommand(SESSION, 'npm test', 0);
  for (let command = 0; command < COMMANDS; command += 1) service.recordCommand(SESSION);
}

interface Counted {
  toolCalls: number;
  testRuns: number;
  commands: number;
  xp: number;
  sp: number;
}

function expectedAfter(turns: number): Counted {
  // The level-up rule (DESIGN.md): while XP >= factor x SP, XP -= factor x SP and SP += 1.
  let xp = DEFAULT_RULES.initialXp + turns * (TOOL_CALLS * DEFAULT_RULES.xpPerToolCall + COMMANDS * DEFAULT_RULES.xpPerCommand);
  let sp = DEFAULT_RULES.initialSp;
  while (xp >= DEFAULT_RULES.xpPerLevelFactor * sp) {
    xp -= DEFAULT_RULES.xpPerLevelFactor * sp;
    sp += 1;
  }
  return { toolCalls: TOOL_CALLS * turns, testRuns: TEST_RUNS * turns, commands: COMMANDS * turns, xp, sp };
}

function serviceOn(store: RemoteStore, dir: string): TrackingService<RemoteStore> {
  const config = resolveConfig({ options: { databasePath: store.path }, env: {}, home: dir });
  return new TrackingService({ store, config, logger: silentLogger, project: '/late/project' });
}

function countedIn(store: RemoteStore): Counted {
  const usage = store.tables.usage.get([SESSION, AGENT, MODEL]);
  const agent = store.tables.agents.get(AGENT);
  return { toolCalls: usage?.toolCalls ?? 0, testRuns: usage?.testRuns ?? 0, commands: usage?.commands ?? 0, xp: agent?.xp ?? 0, sp: agent?.sp ?? 0 };
}

describe('a flush the plugin gave up on', () => {
  it('counts once: the worker that gets the write lock after its caller spilled the batch writes nothing of it', async () => {
    const dir = tempDir();
    const file = created(dir);
    const store = await started(file, SHORT_WAIT_MS);
    const service = serviceOn(store, dir);
    recordTurn(service, 0);

    const holder = await holdWriteLock(file, HOLD_MS);
    const flushed = service.flush('turn');
    expect(flushed.ok).toBe(false);
    // The batch given up on is spilled at once and alone; what is recorded later waits in memory.
    expect(service.pendingMutations).toBe(0);
    expect(spillFilesOf(file)).toHaveLength(1);
    recordTurn(service, 1);
    // The session ends: the rest goes to a spill of its own, nothing waits in memory.
    finalFlush(service, 'dispose', silentLogger);
    expect(service.pendingMutations).toBe(0);
    expect(spillFilesOf(file)).toHaveLength(2);

    expect(await bounded(holder.exited, CHILD_BOUND_MS, 'the lock holder')).toBe(0);
    await sleep(SETTLE_MS);

    const next = await started(file);
    expect(countedIn(next)).toEqual(expectedAfter(2));
    expect(spillFilesOf(file)).toEqual([]);
  }, 60_000);

  it('leaves its marker when a flush commits near its deadline (had the caller given up, its spill would count nothing), and counts it once', async () => {
    const dir = tempDir();
    const file = created(dir);
    const store = await started(file, NEAR_WAIT_MS);
    const service = serviceOn(store, dir);
    recordTurn(service, 0);
    // The lock is released inside the last third of the wait (lateMarkMarginMs: 1 s of 3 s).
    const holder = await holdWriteLock(file, NEAR_HOLD_MS);
    expect(service.flush('turn').ok).toBe(true);
    expect(spillFilesOf(file)).toEqual([]);
    expect([...store.tables.meta.getKeys({ start: 'spill:', end: 'spill;' })]).toHaveLength(1);
    expect(countedIn(store)).toEqual(expectedAfter(1));
    expect(await bounded(holder.exited, CHILD_BOUND_MS, 'the lock holder')).toBe(0);
  }, 60_000);

  it('writes a flush in time once and leaves no marker in meta', async () => {
    const dir = tempDir();
    const file = created(dir);
    const store = await started(file);
    const service = serviceOn(store, dir);
    recordTurn(service, 0);
    expect(service.flush('turn').ok).toBe(true);
    const metaKeys = [...store.tables.meta.getKeys()];
    const turns = 4;
    for (let turn = 1; turn < turns; turn += 1) {
      recordTurn(service, turn);
      expect(service.flush('turn').ok).toBe(true);
    }
    expect(countedIn(store)).toEqual(expectedAfter(turns));
    // Every write adds its entry to the integrity chain (one per write, by design); nothing else is added.
    const chainEntries = (keys: string[]) => keys.filter((key) => key.startsWith('chain:entry:')).length;
    const after = [...store.tables.meta.getKeys()];
    expect(after.filter((key) => !key.startsWith('chain:entry:'))).toEqual(metaKeys.filter((key) => !key.startsWith('chain:entry:')));
    expect(store.tables.meta.getKeysCount()).toBe(metaKeys.length + (chainEntries(after) - chainEntries(metaKeys)));
    expect(chainEntries(after) - chainEntries(metaKeys)).toBe(turns - 1);
    expect(after.filter((key) => key.startsWith('spill:'))).toEqual([]);
    expect(spillFilesOf(file)).toEqual([]);
  }, 60_000);
});

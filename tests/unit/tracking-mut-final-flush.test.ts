/**
 * The last write of a service: what the final flush cannot write goes to a spill file with one line
 * saying where; a store that refused writes leaves the verified record alone; and the exit flush runs
 * for every registered service on exit and on SIGINT/SIGTERM/SIGHUP, re-raising a signal nobody
 * else handles. Real temporary LMDB files. The signal handlers are run on this test's `process`
 * (each test file has its own); the re-raised signal goes to `process.pid`, here a real stand-in
 * child process, so that it reaches a process this test watches instead of the test runner.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { resolveConfig } from '../../src/core/config.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { openCheckedSync } from '../../src/core/store/open-checked.js';
import { spillFilesOf } from '../../src/core/store/spill.js';
import { SCHEMA_VERSION, Store } from '../../src/core/store/store.js';
import { isVerified, sidecarPath } from '../../src/core/store/verify.js';
import { flushOnExit } from '../../src/core/tracking/exit-flush.js';
import { finalFlush } from '../../src/core/tracking/final-flush.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('agent-tracker-mut-final-flush-');
const SIZE = 64 * 1024 * 1024;
const STAND_IN_BOUND_MS = 10_000;
/** How long a signal that should not come is waited for. */
const STAND_IN_WATCH_MS = 300;

interface Logged {
  warn: string[];
  error: string[];
}

function loggerInto(logged: Logged) {
  return { info: () => undefined, warn: (line: string) => void logged.warn.push(line), error: (line: string) => void logged.error.push(line) };
}

function serviceOn(store: Store, dir: string, logged: Logged = { warn: [], error: [] }): TrackingService {
  const config = resolveConfig({ options: { databasePath: store.path }, env: {}, home: dir });
  return new TrackingService({ store, config, logger: loggerInto(logged), project: '/final/project' });
}

/** Records one tool call (buffered, not yet flushed); answers how many mutations wait. */
function recordCall(service: TrackingService, call: string): number {
  service.noteSession('ses_final', { project: '/final/project' });
  service.noteModelRequest('ses_final', 'build', 'anthropic/claude-sonnet');
  service.recordToolCall('ses_final', call, 'bash', true);
  return service.pendingMutations;
}

function flushesOf(store: Store): number {
  return Number(store.tables.meta.get('flushes') ?? 0);
}

function opened(dir = tempDir()): { store: Store; dir: string } {
  return { store: Store.open({ path: path.join(dir, 'agent-tracker.lmdb'), maxDatabaseSize: SIZE, indexer: termIndexer }), dir };
}

describe('the final flush', () => {
  it('with nothing left: nothing spilled, nothing to report', () => {
    const { store, dir } = opened();
    const service = serviceOn(store, dir);
    expect(finalFlush(service, 'dispose')).toEqual({ mutations: 0 });
    store.close();
  });

  it('keeps what it cannot write in a spill file and says how many changes, from where, to where', () => {
    const dir = tempDir();
    const file = path.join(dir, 'agent-tracker.lmdb');
    const store = Store.pending({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer }, 'still being checked');
    const logged: Logged = { warn: [], error: [] };
    const service = serviceOn(store, dir, logged);
    const waiting = recordCall(service, 'call_1');
    expect(waiting).toBeGreaterThan(0);
    const result = finalFlush(service, 'dispose', loggerInto(logged));
    expect(result).toEqual({ spilled: spillFilesOf(file)[0], mutations: waiting });
    expect(spillFilesOf(file)).toHaveLength(1);
    expect(service.pendingMutations).toBe(0);
    expect(logged.warn).toEqual([
      `agent-tracker: ${waiting} change(s) could not be saved in ${file}; they are kept in ${result.spilled} and merged into the database at the next start`,
    ]);
    expect(logged.error).toEqual([]);
  });

  it('that writes cleanly to a checked file keeps it verified: the next start needs no check', () => {
    const dir = tempDir();
    const file = path.join(dir, 'agent-tracker.lmdb');
    Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer }).close();
    const store = openCheckedSync({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
    expect(store.refusal).toBeUndefined();
    expect(isVerified(file)).toBe(true);
    const service = serviceOn(store, dir);
    recordCall(service, 'call_clean');
    const before = flushesOf(store);
    expect(finalFlush(service, 'dispose')).toEqual({ mutations: 0 });
    expect(flushesOf(store)).toBe(before + 1);
    store.close();
    expect(isVerified(file)).toBe(true);
  });

  it('of a store that refused writes (a newer schema) leaves the verified record as the check wrote it', () => {
    const dir = tempDir();
    const file = path.join(dir, 'agent-tracker.lmdb');
    const newer = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
    newer.write((tables) => tables.meta.putSync('schemaVersion', SCHEMA_VERSION + 1));
    newer.close();
    const store = openCheckedSync({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
    expect(store.refusal).toMatch(/newer/);
    expect(isVerified(file)).toBe(true);
    const recorded = fs.readFileSync(sidecarPath(file), 'utf8');
    // A record written now would differ in its time.
    const until = Date.now() + 5;
    while (Date.now() <= until);
    expect(finalFlush(serviceOn(store, dir), 'dispose')).toEqual({ mutations: 0 });
    store.close();
    expect(fs.readFileSync(sidecarPath(file), 'utf8')).toBe(recorded);
  });
});

describe('the exit flush', () => {
  const realPid = process.pid;
  /** The exit handler the tracker installs: run alone (lmdb's own exit handler would close every open file). */
  let trackerOnExit: () => void = () => undefined;

  beforeAll(() => {
    const { store, dir } = opened();
    const before = process.listeners('exit');
    const stop = flushOnExit(serviceOn(store, dir));
    const added = process.listeners('exit').filter((listener) => !before.includes(listener));
    expect(added).toHaveLength(1);
    trackerOnExit = () => added[0]?.(0);
    stop();
    store.close();
  });

  afterEach(() => {
    Object.defineProperty(process, 'pid', { value: realPid });
  });

  /** Where a re-raised signal goes: a real process this test watches (bounded: it ends by itself). */
  function standIn(): { signalled: () => Promise<NodeJS.Signals | null | 'still running'> } {
    const child = spawn(process.execPath, ['-e', `setTimeout(() => undefined, ${STAND_IN_BOUND_MS})`], { stdio: 'ignore' });
    const ended = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    if (child.pid === undefined) throw new Error('the stand-in did not start');
    Object.defineProperty(process, 'pid', { value: child.pid });
    return {
      signalled: async () => {
        const seen = await Promise.race([ended, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), STAND_IN_WATCH_MS))]);
        child.kill('SIGKILL');
        return seen;
      },
    };
  }

  it('flushes every registered service on exit, adding no exit handler however many more register', () => {
    const exitHandlers = process.listenerCount('exit');
    const services = Array.from({ length: 12 }, () => {
      const { store, dir } = opened();
      const service = serviceOn(store, dir);
      recordCall(service, 'call_exit');
      return { store, service, stop: flushOnExit(service) };
    });
    expect(process.listenerCount('exit')).toBe(exitHandlers);
    const before = services.map(({ store }) => flushesOf(store));
    trackerOnExit();
    expect(services.map(({ service }) => service.pendingMutations)).toEqual(services.map(() => 0));
    expect(services.map(({ store }) => flushesOf(store))).toEqual(before.map((count) => count + 1));
    for (const { store, stop } of services) {
      stop();
      store.close();
    }
  });

  it('names the exit in the one line a failing flush logs, and spills what waits', () => {
    const { store: made, dir } = opened();
    made.close();
    // A limit the file already reaches: every write is refused as full.
    const full = Store.open({ path: made.path, maxDatabaseSize: fs.statSync(made.path).size, indexer: termIndexer });
    const logged: Logged = { warn: [], error: [] };
    const service = serviceOn(full, dir, logged);
    const stop = flushOnExit(service);
    recordCall(service, 'call_full');
    trackerOnExit();
    expect(logged.error).toHaveLength(1);
    expect(logged.error[0]).toMatch(/^agent-tracker: could not save tracking data \(exit\): the agent-tracker database at .* is full/);
    expect(service.pendingMutations).toBe(0);
    expect(spillFilesOf(made.path)).toHaveLength(1);
    stop();
    full.close();
  });

  it('leaves a service that unregistered alone', () => {
    const { store, dir } = opened();
    const service = serviceOn(store, dir);
    flushOnExit(service)();
    const waiting = recordCall(service, 'call_gone');
    trackerOnExit();
    expect(service.pendingMutations).toBe(waiting);
    store.close();
  });

  it('on a signal another handler takes care of: flushes, and leaves the ending to that handler', async () => {
    const watched = standIn();
    const { store, dir } = opened();
    const service = serviceOn(store, dir);
    const stop = flushOnExit(service);
    recordCall(service, 'call_int');
    let handled = 0;
    const other = (): void => void (handled += 1);
    process.on('SIGINT', other);
    process.emit('SIGINT', 'SIGINT');
    process.off('SIGINT', other);
    expect(service.pendingMutations).toBe(0);
    expect(handled).toBe(1);
    expect(await watched.signalled()).toBe('still running');
    stop();
    store.close();
  });

  it.each(['SIGTERM', 'SIGHUP'] as const)('on %s that nobody else handles: flushes, then raises it again', async (signal) => {
    const watched = standIn();
    const { store, dir } = opened();
    const service = serviceOn(store, dir);
    const stop = flushOnExit(service);
    recordCall(service, `call_${signal}`);
    const before = flushesOf(store);
    process.emit(signal, signal);
    expect(service.pendingMutations).toBe(0);
    expect(flushesOf(store)).toBe(before + 1);
    expect(await watched.signalled()).toBe(signal);
    stop();
    store.close();
  });
});

/**
 * The plugin's store as its main thread sees it: a RemoteStore whose tables and writes are calls into
 * the worker thread that holds lmdb (the built dist/opencode/remote/host.js). Range reads come in pages
 * and read the same as the file; a worker that cannot start or stops answering leaves a store that
 * reads empty, refuses writes quietly and says so once, and no call waits past its bound.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { silentLogger } from '../../src/core/logger.js';
import { DEFAULT_RULES } from '../../src/core/rules.js';
import { Store, StoreNotWritableError } from '../../src/core/store/store.js';
import { Channel } from '../../src/opencode/remote/channel.js';
import { READ_TIMEOUT_MS, RemoteStore } from '../../src/opencode/remote/client.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('agent-tracker-remote-store-');
const SIZE = 64 * 1024 * 1024;
/** More entries than the first pages hold (32, then 128), so a full scan crosses several pages. */
const ENTRIES = 300;

function metaKey(index: number): string {
  return `test:${String(index).padStart(4, '0')}`;
}

/** A file with ENTRIES meta records written directly (the test's own Store, closed before the worker opens it). */
function seeded(dir: string): string {
  const file = path.join(dir, 'db.lmdb');
  const store = Store.open({ path: file, maxDatabaseSize: SIZE });
  store.putRecords(Array.from({ length: ENTRIES }, (_, index) => ({ table: 'meta' as const, key: metaKey(index), value: index })));
  store.close();
  return file;
}

/** The store once it is ready (the file, written by another hand, is checked out of process first), or once it failed. */
function opened(file: string, channel: Channel, problems: string[] = []): Promise<RemoteStore> {
  return new Promise((resolve) => {
    const store = new RemoteStore(file, SIZE, channel, silentLogger);
    store.join(path.dirname(file), DEFAULT_RULES, {
      problem: (line) => {
        problems.push(line);
        resolve(store);
      },
      ready: () => resolve(store),
    });
  });
}

describe('RemoteStore', () => {
  it('reads ranges in pages exactly as the file holds them, early stops included, and writes through the worker', async () => {
    const file = seeded(tempDir());
    const store = await opened(file, new Channel());
    expect(store.attached).toBe(true);
    const expected = Array.from({ length: ENTRIES }, (_, index) => metaKey(index));
    const inRange = (options: Parameters<typeof store.tables.meta.getRange>[0]) =>
      [...store.tables.meta.getRange(options)].map((entry) => entry.key).filter((key) => key.startsWith('test:'));
    expect(inRange({ start: 'test:' })).toEqual(expected);
    expect(inRange({ start: metaKey(100), limit: 150 })).toEqual(expected.slice(100, 250));
    expect(inRange({ start: metaKey(299), end: 'test:', reverse: true })).toEqual([...expected].reverse());
    const stoppedEarly: string[] = [];
    for (const { key } of store.tables.meta.getRange({ start: metaKey(5) })) {
      if (stoppedEarly.length === 3) break;
      stoppedEarly.push(key);
    }
    expect(stoppedEarly).toEqual(expected.slice(5, 8));
    expect(store.tables.meta.get(metaKey(42))).toBe(42);
    expect(store.tables.meta.doesExist(metaKey(ENTRIES))).toBe(false);

    store.putRecords([{ table: 'meta', key: metaKey(ENTRIES), value: 'written' }]);
    expect(store.tables.meta.get(metaKey(ENTRIES))).toBe('written');
  });

  it('never writes late: a write the main thread stopped waiting for is refused by the worker, so its spill cannot count twice', async () => {
    const file = seeded(tempDir());
    const channel = new Channel();
    const store = await opened(file, channel);
    expect(store.attached).toBe(true);
    // The caller gives up at once (as after a worker busy past the bound); the worker gets the write after that.
    const late = channel.call({ op: 'putRecords', path: file, records: [{ table: 'meta', key: 'late', value: 'written' }] }, 0);
    // Either this thread gave up first, or (a thread descheduled right after posting, on a loaded machine)
    // the worker's refusal was already back at the first look: never a write that succeeded.
    if (late === undefined) expect(channel.dead).toContain('did not answer');
    else expect(late).toMatchObject({ ok: false, error: { name: 'StoreNotWritableError', message: 'a write came after its caller stopped waiting; nothing was written' } });
    // Read through a second worker once the first has long had the message (it answers in well under a millisecond).
    await new Promise((resolve) => setTimeout(resolve, 500));
    const reader = await opened(file, new Channel());
    expect(reader.attached).toBe(true);
    expect(reader.tables.meta.get(metaKey(7))).toBe(7);
    expect(reader.tables.meta.get('late')).toBeUndefined();
  });

  it('starts its worker only when something needs the file: before, it reads empty and has nothing to settle', async () => {
    const file = seeded(tempDir());
    let channels = 0;
    const store = new RemoteStore(file, SIZE, () => ((channels += 1), new Channel()), silentLogger);
    const ready = new Promise<void>((resolve) => store.join(path.dirname(file), DEFAULT_RULES, { problem: () => undefined, ready: resolve }));
    try {
      expect(store.tables.meta.get(metaKey(1))).toBeUndefined();
      expect(() => store.putRecords([{ table: 'meta', key: 'x', value: 1 }])).toThrow(StoreNotWritableError);
      await store.settled(READ_TIMEOUT_MS);
      expect(channels).toBe(0);
      const opening = store.opened(READ_TIMEOUT_MS);
      expect(channels).toBe(1);
      await Promise.all([opening, ready]);
      expect(store.opened(READ_TIMEOUT_MS)).toBeUndefined();
      expect(store.tables.meta.get(metaKey(1))).toBe(1);
      store.start();
      expect(channels).toBe(1);
    } finally {
      store.leave();
    }
  });

  it('waits for an open that does not end once, up to its bound, and not again', async () => {
    const dir = tempDir();
    const file = seeded(dir);
    // A host that never answers the open (a check of a very large file, say); it stops when the store is
    // left, so the open's pending answer (and its timer) ends with the test.
    const silent = path.join(dir, 'silent-host.mjs');
    fs.writeFileSync(silent, "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', ({ request }) => { if (request.op === 'release') process.exit(0); });\n");
    const store = new RemoteStore(file, SIZE, new Channel(silent), silentLogger);
    try {
      store.join(dir, DEFAULT_RULES, { problem: () => undefined, ready: () => undefined });
      const bound = 300;
      const started = Date.now();
      await store.opened(bound);
      expect(Date.now() - started).toBeGreaterThanOrEqual(bound - 20);
      expect(store.opened(bound)).toBeUndefined();
      expect(store.attached).toBe(false);
    } finally {
      store.leave();
    }
  });

  it('fails open when the worker cannot start: reads empty, refuses writes quietly, one line', async () => {
    const file = seeded(tempDir());
    const problems: string[] = [];
    const store = await opened(file, new Channel(path.join(tempDir(), 'missing-host.js')), problems);
    expect(store.attached).toBe(false);
    expect(store.tables.meta.get(metaKey(1))).toBeUndefined();
    expect([...store.tables.meta.getRange({})]).toEqual([]);
    expect(() => store.putRecords([{ table: 'meta', key: 'x', value: 1 }])).toThrow(StoreNotWritableError);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((line) => line.includes('database thread'))).toBe(true);
  });

  it('bounds a call to a worker that stops answering, then reads empty, refuses writes and says so once', async () => {
    const dir = tempDir();
    const file = seeded(dir);
    // A host that says the file is open, then never answers a synchronous call.
    const stuck = path.join(dir, 'stuck-host.mjs');
    fs.writeFileSync(
      stuck,
      [
        "import { parentPort } from 'node:worker_threads';",
        'parentPort.on(\'message\', ({ id, request }) => {',
        "  if (request.op !== 'open') return;",
        "  parentPort.postMessage({ kind: 'reply', id, ok: true, value: { attached: true, refusal: undefined } });",
        "  parentPort.postMessage({ kind: 'ready', path: request.path });",
        '});',
      ].join('\n'),
    );
    const problems: string[] = [];
    const store = await opened(file, new Channel(stuck), problems);
    expect(store.attached).toBe(true);
    const started = Date.now();
    expect(store.tables.meta.get(metaKey(1))).toBeUndefined();
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(READ_TIMEOUT_MS - 50);
    expect(waited).toBeLessThan(READ_TIMEOUT_MS + 2_000);
    expect(store.attached).toBe(false);
    const again = Date.now();
    expect([...store.tables.meta.getRange({})]).toEqual([]);
    expect(() => store.putRecords([{ table: 'meta', key: 'x', value: 1 }])).toThrow(StoreNotWritableError);
    expect(Date.now() - again).toBeLessThan(1_000);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('did not answer');
  }, 30_000);
});

#!/usr/bin/env node
/**
 * A child process that holds lmdb's write lock on a database, as another process's long write does
 * (a CLI backfill, an import, another OpenCode's flush). Spawned with an argument array:
 *
 *   hold-write-lock.mjs DB_PATH HOLD_MS
 *     opens DB_PATH with the built Store, enters a write transaction, prints `HOLDING`, stays in it
 *     HOLD_MS (at most MAX_HOLD_MS), writes one meta record, commits and exits.
 */
import fs from 'node:fs';

const MAX_HOLD_MS = 20_000;
const SIZE = 64 * 1024 * 1024;

const [dbPath, holdText] = process.argv.slice(2);
const holdMs = Math.min(Number(holdText), MAX_HOLD_MS);
const { Store } = await import(new URL('../../../dist/core/store/store.js', import.meta.url).href);
const store = Store.open({ path: dbPath, maxDatabaseSize: SIZE });
const sleeper = new Int32Array(new SharedArrayBuffer(4));
store.write((tables) => {
  // Written straight to the pipe (synchronous): the parent acts the moment the lock is held.
  fs.writeSync(1, 'HOLDING\n');
  Atomics.wait(sleeper, 0, 0, holdMs);
  tables.meta.putSync('held-by-another-process', holdMs);
});
store.close();
fs.writeSync(1, 'RELEASED\n');

#!/usr/bin/env node
/**
 * A child process for the snapshot test: a database restored from a snapshot must take writes. A
 * write that crashes lmdb kills this process, never the test runner. Spawned with an argument array:
 *
 *   snapshot-restore.mjs fill DB_PATH ENTRIES
 *     writes ENTRIES entries of the benchmark's synthetic history through the built store, in
 *     flushes of FILL_FLUSH, each followed by one merge step of the prior-art index (as the plugin
 *     runs them), takes a snapshot the way the plugin does at a session's end, and prints
 *     `SNAPSHOT <file>`.
 *   snapshot-restore.mjs write DB_PATH ROUNDS
 *     merges the index's runs until none is left, then writes ROUNDS flushes of WRITE_FLUSH more
 *     entries, each followed by a merge step, and prints `WROTE {"entries":n}` with the entries
 *     the database then holds.
 *
 * Ends by itself after SELF_EXIT_MS.
 */
const SELF_EXIT_MS = 120_000;
const FILL_FLUSH = 10_000;
const WRITE_FLUSH = 500;
const SIZE = 512 * 1024 * 1024;

setTimeout(() => process.exit(3), SELF_EXIT_MS).unref();

const dist = (relative) => import(new URL(`../../../dist/${relative}`, import.meta.url).href);
const { Store } = await dist('core/store/store.js');
const { termIndexer } = await dist('core/search/indexer.js');
const { DEFAULT_RULES } = await dist('core/rules.js');
const { snapshotIfDue } = await dist('core/store/snapshot.js');
// The benchmark's synthetic history: commits, journal entries and graded retrospectives of made-up words.
const { corpus, seededRandom } = await import(new URL('../../../bench/prior-art.bench.mjs', import.meta.url).href);

/** `count` more entries after the first `first` (each index of the history is one entry). */
function entries(first, count) {
  return corpus(count, seededRandom(first), first).mutations.filter((mutation) => mutation.table !== 'projects');
}

function countEntries(store) {
  return store.tables.commits.getKeysCount() + store.tables.activities.getKeysCount() + store.tables.retrospectives.getKeysCount();
}

const [mode, file, amount] = process.argv.slice(2);
const store = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
try {
  if (mode === 'fill') {
    const { mutations } = corpus(Number(amount), seededRandom(Number(amount)));
    for (let at = 0; at < mutations.length; at += FILL_FLUSH) {
      store.applyBatch(mutations.slice(at, at + FILL_FLUSH), DEFAULT_RULES, new Date().toISOString());
      store.maintainIndexes();
    }
    console.log(`SNAPSHOT ${await snapshotIfDue(store)}`);
  } else if (mode === 'write') {
    while (store.maintainIndexes());
    const first = countEntries(store);
    for (let round = 0; round < Number(amount); round += 1) {
      store.applyBatch(entries(first + round * WRITE_FLUSH, WRITE_FLUSH), DEFAULT_RULES, new Date().toISOString());
      store.maintainIndexes();
    }
    console.log(`WROTE ${JSON.stringify({ entries: countEntries(store) })}`);
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
} finally {
  store.close();
}

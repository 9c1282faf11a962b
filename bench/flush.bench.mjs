/**
 * Flush cost: writing 100 / 1,000 / 10,000 buffered mutations through TrackingService.flush
 * (Store.applyBatch: one transactionSync that replays counter deltas on the stored values, writes
 * journal entries once and keeps the prior-art term index in step) against raw lmdb
 * transactionSyncs, each into an environment opened the same way:
 *   - "documents": one put per mutation, the very keys and values the flush stored;
 *   - "everything": every entry the flush wrote, term-index entries included.
 *   - "read-modify-write": every entry the flush wrote, each put preceded by a get of its key.
 * The second is the comparison the target is set against; the third is about the floor the
 * design's guarantees leave (counters are added to the stored value, postings blocks are extended,
 * replayed events are looked up; write-once records need no read: a no-overwrite put refuses a key
 * already there), and the text analysis of the entries is timed alone too.
 *
 * Each round starts from fresh files, records a realistic mix (per-session counters and journal
 * entries of one agent), times the flush, reads back everything it wrote, and times the raw puts
 * of that data. The figures are medians over the rounds.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { open } from 'lmdb';
import { dist, median, removeDir, silentLogger, tempDir } from './support.mjs';

const SIZES = [100, 1_000, 10_000];
const ROUNDS = { 100: 30, 1_000: 15, 10_000: 5 };
const QUICK_ROUNDS = { 100: 4, 1_000: 3, 10_000: 1 };
const TARGET_SIZE = 1_000;
const TARGET_RATIO = 1.5;
const MAX_DB_SIZE = 2047 * 1024 * 1024;
const MAX_NAMED_DATABASES = 16;
/** The table holding derived data (the prior-art index); every other table but bookkeeping holds the documents. */
const INDEX_TABLES = ['terms'];
/** Written by every open or flush, whatever the batch holds. */
const BOOKKEEPING_TABLES = ['meta'];
/** No flush may happen while a round is being recorded: the largest limits the settings accept (a million mutations, a day). */
const NEVER_MUTATIONS = 1_000_000;
const NEVER_MS = 24 * 60 * 60_000;

async function modules() {
  const { resolveConfig } = await dist('core/config.js');
  const { Store, STORED_NAMES } = await dist('core/store/store.js');
  const { termIndexer } = await dist('core/search/indexer.js');
  const { TrackingService } = await dist('core/tracking/service.js');
  const { compressionOf } = await dist('core/store/compression.js');
  const { tokenize } = await dist('core/search/tokenizer.js');
  const { searchableText } = await dist('core/search/documents.js');
  const { storedValue } = await dist('core/store/stored-form.js');
  return { resolveConfig, Store, STORED_NAMES, termIndexer, TrackingService, compressionOf, tokenize, searchableText, storedValue };
}

/** Buffers exactly `count` mutations. */
function recordRound(service, count) {
  const agent = 'bench-agent';
  for (let i = 0; service.pendingMutations < count; i += 1) {
    const remaining = count - service.pendingMutations;
    // A first tool call buffers two mutations (the agent and the session); keep the count exact.
    const toolCallFits = remaining >= (service.knowsAgent(agent) ? 1 : 2);
    if (i % 2 === 0 && toolCallFits) {
      const session = `ses-${String(i).padStart(6, '0')}`;
      service.noteModelRequest(session, agent, 'bench/model');
      service.recordToolCall(session, `call-${i}`, 'bash', true);
    } else {
      service.logActivity({
        agent,
        project: '/bench/project',
        task: `implement feature ${i} of the parser and its tests`,
        actions: 'read the grammar, edited src/parser.ts, ran the tests',
        outcome: 'tests pass',
        decisions: 'kept the recursive descent design',
      });
    }
  }
}

/** Everything in the store's tables but bookkeeping: after one flush into a fresh store, what it wrote. */
/**
 * Every entry of the store, as lmdb holds it (an entry in its stored form, see stored-form.ts), by
 * the tables' persisted names: what the raw puts write.
 */
function contentsOf(store, storedValue, storedNames) {
  const contents = {};
  for (const [key, table] of Object.entries(store.tables)) {
    const name = storedNames[key];
    if (!BOOKKEEPING_TABLES.includes(name)) contents[name] = [...table.getRange()].map((entry) => ({ key: entry.key, value: storedValue(name, entry.key, entry.value) }));
  }
  return contents;
}

/**
 * Puts the entries into a fresh environment opened like the Store's (each table with the Store's
 * compression), in one transactionSync; with `readFirst`, each put is preceded by a get of its key:
 * the read-modify-write every flush entry needs (a counter added to the stored value, a write-once
 * record checked for, a postings block extended), the floor of what a flush can cost.
 */
function timeRawPuts(compressionOf, file, entriesByTable, readFirst = false) {
  const root = open({ path: file, mapSize: MAX_DB_SIZE, maxDbs: MAX_NAMED_DATABASES, compression: true });
  try {
    const tables = Object.keys(entriesByTable).map((name) => [root.openDB({ name, compression: compressionOf(name) }), entriesByTable[name]]);
    const started = performance.now();
    root.transactionSync(() => {
      for (const [db, entries] of tables) {
        for (const { key, value } of entries) {
          if (readFirst) db.get(key);
          db.putSync(key, value);
        }
      }
    });
    return performance.now() - started;
  } finally {
    void root.close();
  }
}

async function measureRound(dir, size) {
  const { resolveConfig, Store, STORED_NAMES, termIndexer, TrackingService, compressionOf, tokenize, searchableText, storedValue } = await modules();
  const config = resolveConfig({
    options: { databasePath: path.join(dir, 'flush.lmdb'), maxDatabaseSize: MAX_DB_SIZE, flushMaxMutations: NEVER_MUTATIONS, flushMaxAgeMs: NEVER_MS },
    env: {},
    home: dir,
  });
  const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
  let flushTime;
  let contents;
  let activities;
  try {
    const service = new TrackingService({ store, config, logger: silentLogger, project: '/bench/project' });
    recordRound(service, size);
    if (service.pendingMutations !== size) throw new Error(`buffered ${service.pendingMutations} mutations, wanted ${size}`);
    const started = performance.now();
    const outcome = service.flush('bench');
    flushTime = performance.now() - started;
    if (!outcome.ok) throw outcome.error;
    contents = contentsOf(store, storedValue, STORED_NAMES);
    activities = [...store.tables.activities.getRange()].map(({ value }) => value);
  } finally {
    store.close();
  }
  // A tool call is a replayable event: its mutation writes the event record, the session and the agent.
  const documents = Object.fromEntries(Object.entries(contents).filter(([name]) => !INDEX_TABLES.includes(name)));
  const documentPuts = Object.values(documents).reduce((sum, entries) => sum + entries.length, 0);
  if (documentPuts < size) throw new Error(`read back ${documentPuts} documents after flushing ${size} mutations`);
  const allPuts = Object.values(contents).reduce((sum, entries) => sum + entries.length, 0);
  const analysisStarted = performance.now();
  for (const value of activities) tokenize(searchableText({ kind: 'activity', value }));
  const analysis = performance.now() - analysisStarted;
  return {
    flush: flushTime,
    analysis,
    rawDocuments: timeRawPuts(compressionOf, path.join(dir, 'raw-documents.lmdb'), documents),
    rawEverything: timeRawPuts(compressionOf, path.join(dir, 'raw-everything.lmdb'), contents),
    rawReadWrite: timeRawPuts(compressionOf, path.join(dir, 'raw-read-write.lmdb'), contents, true),
    documentPuts,
    allPuts,
  };
}

async function measureSize(size, rounds) {
  const results = [];
  // One untimed round first warms up both sides (JIT, the native module).
  for (let round = -1; round < rounds; round += 1) {
    const dir = tempDir(`flush-${size}`);
    try {
      const result = await measureRound(dir, size);
      if (round >= 0) results.push(result);
    } finally {
      removeDir(dir);
    }
  }
  const pick = (name) => median(results.map((result) => result[name]));
  return {
    flush: pick('flush'), rawDocuments: pick('rawDocuments'), rawEverything: pick('rawEverything'), rawReadWrite: pick('rawReadWrite'),
    analysis: pick('analysis'), documentPuts: pick('documentPuts'), allPuts: pick('allPuts'), rounds,
  };
}

export default async function run({ quick }) {
  const rows = [];
  for (const size of SIZES) {
    const m = await measureSize(size, (quick ? QUICK_ROUNDS : ROUNDS)[size]);
    const name = `flush ${size.toLocaleString('en-US')} mutations`;
    rows.push({
      name,
      metric: `median of ${m.rounds}, vs raw puts of the ${Math.round(m.documentPuts).toLocaleString('en-US')} documents`,
      value: m.flush,
      unit: 'ms',
      baseline: m.rawDocuments,
      ratio: m.flush / m.rawDocuments,
    });
    rows.push({
      name,
      metric: `vs raw puts of all ${Math.round(m.allPuts).toLocaleString('en-US')} entries it wrote (index included)`,
      value: m.flush,
      unit: 'ms',
      baseline: m.rawEverything,
      ratio: m.flush / m.rawEverything,
      ...(size === TARGET_SIZE ? { target: `<= ${TARGET_RATIO}x raw`, pass: m.flush / m.rawEverything <= TARGET_RATIO } : {}),
    });
    rows.push({
      name,
      metric: 'vs a get and a put of each of those entries (read-modify-write)',
      value: m.flush, unit: 'ms', baseline: m.rawReadWrite, ratio: m.flush / m.rawReadWrite,
    });
    rows.push({ name, metric: 'of which text analysis of its journal entries (alone)', value: m.analysis, unit: 'ms' });
  }
  return rows;
}

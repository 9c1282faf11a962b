/**
 * Flush cost: writing 100 / 1,000 / 10,000 buffered mutations through TrackingService.flush
 * (Store.applyBatch: one transactionSync that replays counter deltas on the stored values, writes
 * journal entries once and updates indexes) against a raw lmdb transactionSync that puts the very
 * same keys and values into an environment opened the same way.
 *
 * Each round records fresh keys (a realistic mix: per-session counters and journal entries of one
 * agent), times the flush, reads back exactly what it wrote, and times the raw puts of that data
 * into their own environment. The figures are medians over the rounds.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { open } from 'lmdb';
import { dist, median, removeDir, silentLogger, tempDir } from './support.mjs';

const SIZES = [100, 1_000, 10_000];
const ROUNDS = { 100: 40, 1_000: 20, 10_000: 6 };
const QUICK_ROUNDS = { 100: 5, 1_000: 3, 10_000: 1 };
const TARGET_SIZE = 1_000;
const TARGET_RATIO = 1.5;
const MAX_DB_SIZE = 2047 * 1024 * 1024;
/** Tables the recorded mix writes to; the raw baseline writes the same. */
const WRITTEN_TABLES = ['agents', 'sessions', 'activities'];
/** No flush may happen while a round is being recorded. */
const NEVER = 1_000_000_000;

async function modules() {
  const { resolveConfig } = await dist('core/config.js');
  const { Store } = await dist('core/store/store.js');
  const { TrackingService } = await dist('core/tracking/service.js');
  return { resolveConfig, Store, TrackingService };
}

/** Buffers exactly `count` mutations under keys unique to this round. */
function recordRound(service, round, count) {
  const agent = `bench-${round}`;
  for (let i = 0; service.pendingMutations < count; i += 1) {
    const remaining = count - service.pendingMutations;
    // A first tool call buffers two mutations (the agent and the session); keep the count exact.
    const toolCallFits = remaining >= (service.knowsAgent(agent) ? 1 : 2);
    if (i % 2 === 0 && toolCallFits) {
      const session = `${round}-ses-${String(i).padStart(6, '0')}`;
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

/** Every entry the round wrote, per table, read back from the store. */
function writtenBy(store, round) {
  const agent = `bench-${round}`;
  const sessions = [...store.tables.sessions.getRange({ start: [`${round}-ses-`], end: [`${round}-ses-\uffff`] })];
  const activities = [...store.tables.activities.getRange({ start: [agent], end: [`${agent}\u0000`] })];
  return {
    agents: [{ key: agent, value: store.tables.agents.get(agent) }],
    sessions,
    activities,
  };
}

function timeRaw(raw, data) {
  const started = performance.now();
  raw.root.transactionSync(() => {
    for (const table of WRITTEN_TABLES) {
      const db = raw.tables[table];
      for (const { key, value } of data[table]) db.putSync(key, value);
    }
  });
  return performance.now() - started;
}

async function measureSize(dir, size, rounds) {
  const { resolveConfig, Store, TrackingService } = await modules();
  const config = resolveConfig({
    options: { databasePath: path.join(dir, `flush-${size}.lmdb`), maxDatabaseSize: MAX_DB_SIZE, flushMaxMutations: NEVER, flushMaxAgeMs: NEVER },
    env: {},
    home: dir,
  });
  const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize });
  const root = open({ path: path.join(dir, `raw-${size}.lmdb`), mapSize: MAX_DB_SIZE, maxDbs: 16, compression: true });
  const raw = { root, tables: Object.fromEntries(WRITTEN_TABLES.map((name) => [name, root.openDB({ name, compression: true })])) };
  const flushTimes = [];
  const rawTimes = [];
  try {
    // One untimed round warms up both sides (JIT, first pages of the file).
    for (let round = -1; round < rounds; round += 1) {
      const tag = `r${round + 1}`;
      const service = new TrackingService({ store, config, logger: silentLogger, project: '/bench/project' });
      recordRound(service, tag, size);
      if (service.pendingMutations !== size) throw new Error(`buffered ${service.pendingMutations} mutations, wanted ${size}`);
      const flushStarted = performance.now();
      const outcome = service.flush('bench');
      const flushTime = performance.now() - flushStarted;
      if (!outcome.ok) throw outcome.error;
      const data = writtenBy(store, tag);
      const puts = WRITTEN_TABLES.reduce((sum, table) => sum + data[table].length, 0);
      if (puts !== size) throw new Error(`read back ${puts} entries after flushing ${size} mutations`);
      const rawTime = timeRaw(raw, data);
      if (round >= 0) {
        flushTimes.push(flushTime);
        rawTimes.push(rawTime);
      }
    }
  } finally {
    store.close();
    void root.close();
  }
  return { flush: median(flushTimes), raw: median(rawTimes), rounds };
}

export default async function run({ quick }) {
  const dir = tempDir('flush');
  const rows = [];
  try {
    for (const size of SIZES) {
      const { flush, raw, rounds } = await measureSize(dir, size, (quick ? QUICK_ROUNDS : ROUNDS)[size]);
      const ratio = flush / raw;
      rows.push({
        name: `flush ${size.toLocaleString('en-US')} mutations`,
        metric: `median of ${rounds}, vs raw puts`,
        value: flush,
        unit: 'ms',
        baseline: raw,
        ratio,
        ...(size === TARGET_SIZE ? { target: `<= ${TARGET_RATIO}x raw`, pass: ratio <= TARGET_RATIO } : {}),
      });
    }
    return rows;
  } finally {
    removeDir(dir);
  }
}

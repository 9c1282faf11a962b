#!/usr/bin/env node
/**
 * A child process for the reliability tests: records events into one database through the built
 * TrackingService, the way a plugin instance does. Spawned with an argument array:
 *
 *   record.mjs record DB_PATH WORKER_ID EVENTS FLUSH_MAX_MUTATIONS
 *     records the event plan below, flushing whenever the buffer reaches FLUSH_MAX_MUTATIONS,
 *     then flushes the rest and prints one JSON line with what it did.
 *   record.mjs rounds DB_PATH ROUND_EVENTS [PAUSE_AFTER_ROUNDS]
 *     records ROUND_EVENTS tool calls and flushes, round after round, printing
 *     `FLUSHED {"round":n}` after each flush. With PAUSE_AFTER_ROUNDS it records one more round
 *     without flushing, prints `UNFLUSHED`, and waits to be killed.
 *
 * Every mode ends by itself after SELF_EXIT_MS, so a test that forgets it cannot leave it behind.
 */
import { createHash } from 'node:crypto';
import { setImmediate } from 'node:timers';

const SELF_EXIT_MS = 120_000;
/** Sessions shared by all workers, so their counters are updated by several processes at once. */
const SHARED_SESSIONS = 6;
const AGENT = 'build';
const MODEL = 'fake/fake-model';
/** Every FAIL_EVERY-th event is a failed tool call, every COMMIT_EVERY-th also makes a commit. */
const FAIL_EVERY = 13;
const COMMIT_EVERY = 25;
const NEVER_BY_AGE_MS = 3_600_000;

const dist = (relative) => import(new URL(`../../../dist/${relative}`, import.meta.url).href);

async function tracker(dbPath, flushMaxMutations) {
  const { resolveConfig } = await dist('core/config.js');
  const { Store } = await dist('core/store/store.js');
  const { termIndexer } = await dist('core/search/indexer.js');
  const { TrackingService } = await dist('core/tracking/service.js');
  const config = resolveConfig({
    options: { databasePath: dbPath, flushMaxMutations, flushMaxAgeMs: NEVER_BY_AGE_MS },
    env: {},
    home: process.cwd(),
  });
  const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
  const errors = [];
  const logger = { info() {}, warn() {}, error: (message) => errors.push(message) };
  const service = new TrackingService({ store, config, logger, project: '/reliability/project' });
  let flushes = 0;
  service.onFlushed(() => (flushes += 1));
  return { store, service, errors, flushes: () => flushes };
}

function commitFor(worker, index) {
  const hash = createHash('sha1').update(`${worker}:${index}`).digest('hex');
  return { hash, message: `change ${index} by ${worker}`, files: [`src/file-${index}.ts`], insertions: 3, deletions: 1, timestamp: new Date().toISOString() };
}

async function record([dbPath, worker, eventsText, flushText]) {
  const events = Number(eventsText);
  const { store, service, errors, flushes } = await tracker(dbPath, Number(flushText));
  for (let s = 0; s < SHARED_SESSIONS; s += 1) service.noteModelRequest(`ses-${s}`, AGENT, MODEL);
  const startedAt = Date.now();
  for (let i = 0; i < events; i += 1) {
    const session = `ses-${i % SHARED_SESSIONS}`;
    service.recordToolCall(session, `${worker}-call-${i}`, 'bash', i % FAIL_EVERY !== 0);
    if (i % COMMIT_EVERY === 0) {
      service.recordCommits(session, [commitFor(worker, i)]);
      // Each commit is its own turn: only the first few commits of a turn earn (commit-credit.ts).
      service.endTurn(session);
    }
  }
  const last = service.flush('done');
  const endedAt = Date.now();
  store.close();
  process.stdout.write(`${JSON.stringify({ worker, flushes: flushes(), lastFlushOk: last.ok, errors, startedAt, endedAt })}\n`);
}

async function rounds([dbPath, roundText, pauseText]) {
  const roundEvents = Number(roundText);
  const pauseAfter = pauseText === undefined ? Infinity : Number(pauseText);
  const { service } = await tracker(dbPath, 1_000_000);
  service.noteModelRequest('ses-rounds', AGENT, MODEL);
  let call = 0;
  const recordRound = () => {
    for (let i = 0; i < roundEvents; i += 1) service.recordToolCall('ses-rounds', `call-${(call += 1)}`, 'bash', true);
  };
  for (let round = 1; round <= pauseAfter; round += 1) {
    recordRound();
    const outcome = service.flush('round');
    if (!outcome.ok) throw outcome.error;
    process.stdout.write(`FLUSHED ${JSON.stringify({ round })}\n`);
    // Yield now and then so the parent's kill can land between flushes as well as inside them.
    if (round % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  recordRound();
  process.stdout.write('UNFLUSHED\n');
  await new Promise((resolve) => setTimeout(resolve, SELF_EXIT_MS));
}

const timer = setTimeout(() => process.exit(3), SELF_EXIT_MS);
timer.unref();
const [mode, ...args] = process.argv.slice(2);
const modes = { record, rounds };
if (!modes[mode]) {
  process.stderr.write(`record.mjs: unknown mode ${mode}; use record or rounds\n`);
  process.exit(2);
}
await modes[mode](args);

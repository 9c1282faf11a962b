/**
 * The out-of-process check of a 100,000-entry database (verify.ts: a child process opens it
 * read-only and reads every record of every table), against the same full read done in this process
 * (the baseline: what the check costs beyond the reading itself is the child's start), and the cheap
 * "unchanged since verified" test that spares the check on most starts. The plugin never waits for
 * the check (it records into memory meanwhile); the CLI does, once per change of the file.
 *
 * Entries: 60% commits, 40% journal entries of 8–30 words, written through Store.applyBatch, so the
 * term index is built as the plugin builds it.
 */
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { dist, median, removeDir, tempDir } from './support.mjs';

const ENTRIES = 100_000;
const QUICK_ENTRIES = 20_000;
const BATCH = 10_000;
const RUNS = 5;
const QUICK_RUNS = 2;
const FINGERPRINT_RUNS = 200;
const MAX_DB_SIZE = 2047 * 1024 * 1024;
const WORDS = ['parser', 'fix', 'cache', 'index', 'query', 'schema', 'render', 'merge', 'build', 'deploy', 'retry', 'token', 'stream', 'config', 'test'];

function mutationsFrom(first, count) {
  const mutations = [];
  for (let i = first; i < first + count; i += 1) {
    const text = Array.from({ length: 8 + (i % 23) }, (_, j) => `${WORDS[(i * 7 + j) % WORDS.length]}${(i + j) % 97}`).join(' ');
    const at = new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString();
    if (i % 5 < 3) {
      const hash = i.toString(16).padStart(40, '0');
      mutations.push({ table: 'commits', key: [`/p/${i % 40}`, hash], value: { hash, message: text, files: ['a.ts'], insertions: 1, deletions: 0, timestamp: at, project: `/p/${i % 40}`, agent: 'build', model: 'm', sessionId: `s${i}` } });
    } else {
      mutations.push({ table: 'activities', key: ['build', at, `b${i}`], value: { timestamp: at, task: text, actions: 'bash x1', outcome: 'no commits', decisions: '', agent: 'build', model: 'm', project: `/p/${i % 40}`, automatic: true } });
    }
  }
  return mutations;
}

export default async function run({ quick }) {
  const entries = quick ? QUICK_ENTRIES : ENTRIES;
  const runs = quick ? QUICK_RUNS : RUNS;
  const { Store, tableNamed } = await dist('core/store/store.js');
  const { termIndexer } = await dist('core/search/indexer.js');
  const { DEFAULT_RULES } = await dist('core/rules.js');
  const { verifySync, isVerified, recordVerified } = await dist('core/store/verify.js');
  const { TABLE_NAMES } = await dist('core/store/table-names.js');
  const dir = tempDir('verify');
  try {
    const file = path.join(dir, 'verify.lmdb');
    const store = Store.open({ path: file, maxDatabaseSize: MAX_DB_SIZE, indexer: termIndexer });
    for (let first = 0; first < entries; first += BATCH) store.applyBatch(mutationsFrom(first, Math.min(BATCH, entries - first)), DEFAULT_RULES, new Date().toISOString());
    store.close();

    const inProcess = [];
    const outOfProcess = [];
    let read = 0;
    for (let i = 0; i < runs; i += 1) {
      let started = performance.now();
      const reader = Store.open({ path: file, maxDatabaseSize: MAX_DB_SIZE, readOnly: true });
      read = 0;
      for (const name of TABLE_NAMES) for (const { value } of tableNamed(reader.tables, name).getRange()) if (value !== undefined) read += 1;
      reader.close();
      inProcess.push(performance.now() - started);
      started = performance.now();
      const result = verifySync(file);
      outOfProcess.push(performance.now() - started);
      if (!result.ok) throw new Error(`the check failed on a healthy file: ${result.cause}`);
    }
    recordVerified(file);
    const fingerprint = [];
    for (let i = 0; i < FINGERPRINT_RUNS; i += 1) {
      const started = performance.now();
      if (!isVerified(file)) throw new Error('a verified file was not recognised as unchanged');
      fingerprint.push(performance.now() - started);
    }
    const name = `out-of-process check, ${entries.toLocaleString('en')} entries (${read.toLocaleString('en')} records with the term index)`;
    const baseline = median(inProcess);
    const value = median(outOfProcess);
    return [
      { name, metric: `full read in this process, median of ${runs}`, value: baseline, unit: 'ms' },
      { name, metric: 'the check in a child process (start + open + full read)', value, unit: 'ms', baseline, ratio: value / baseline },
      { name, metric: `"unchanged since verified" test (stat + meta pages + sidecar), median of ${FINGERPRINT_RUNS}`, value: median(fingerprint), unit: 'ms' },
    ];
  } finally {
    removeDir(dir);
  }
}

#!/usr/bin/env node
/**
 * Paired fresh `agent-tracker backfill` of two builds (or more), for a regression check of its CPU and
 * peak memory: the same real-schema OpenCode store (tables made by the `opencode` binary, SESSIONS
 * generated sessions written through its own bun:sqlite, see opencode-store-gen.mjs), each build's
 * CLI run in turn into a fresh database, the order rotating round by round, so every build sees the
 * same machine state on average (a shared machine moves single figures by more than 10 %).
 * Per run: CPU (user + sys) and peak RSS (the largest process's VmHWM) from /usr/bin/time, and the peaks
 * of RssAnon (own memory: JS heap, WASM, buffers) and RssFile (mapped files: the node binary, lmdb's
 * map of the tracker file) of the largest process of the command's tree (the import's, since it runs
 * in a process of its own) sampled from /proc, with the load average around it. Prints one JSON line
 * per run, then the medians and their ratios against the first build.
 * Not a benchmark of the runner (not `*.bench.mjs`).
 *
 *   node bench/backfill-pair.mjs SESSIONS ROUNDS ROOT_A ROOT_B ...   (each ROOT holds a built dist/)
 *
 * BENCH_OUTPUT_BYTES gives the calls that make no commit outputs of that size (opencode-store-gen.mjs), as
 * real stores have: the bench's default is 40 bytes.
 *
 * A ROOT written `ROOT@NODE` runs that build's CLI under the node binary at NODE (e.g. the one
 * `node scripts/newer-node.mjs` prints) instead of the Node running this script, so one run can pair
 * builds across Node versions too.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildOpenCodeStore, median, removeDir, sampleProcessTree, tempDir } from './support.mjs';

const TIME_BIN = '/usr/bin/time';
const OUTPUT_BYTES = process.env.BENCH_OUTPUT_BYTES ? Number(process.env.BENCH_OUTPUT_BYTES) : undefined;
const SAMPLE_EVERY_MS = 50;
const CHILD_TIMEOUT_MS = 600_000;

const loadAverage = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];

/** One fresh backfill by the CLI at `cli` under /usr/bin/time, its node process sampled from /proc. */
async function backfillOnce(node, cli, env, db, sessions) {
  removeDir(path.dirname(db));
  const loadBefore = loadAverage();
  const child = spawn(TIME_BIN, ['-f', 'BENCH-TIME %U %S %M', node, cli, 'backfill', '--json', '--db', db], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  // /usr/bin/time's child is the command's node process; the import runs in a process below it.
  const sampler = sampleProcessTree(child.pid, SAMPLE_EVERY_MS);
  const code = await new Promise((resolve) => child.on('exit', resolve));
  const largest = sampler.stop();
  const line = stderr.split('\n').find((l) => l.startsWith('BENCH-TIME '));
  if (code !== 0 || !line) throw new Error(`${cli} backfill failed (${code}): ${stderr.slice(-400)}`);
  const imported = JSON.parse(stdout).sessions;
  if (imported !== sessions) throw new Error(`${cli} imported ${imported} of ${sessions} sessions`);
  const [user, system, rssKb] = line.slice('BENCH-TIME '.length).trim().split(/\s+/).map(Number);
  return { cpuS: user + system, hwmMiB: rssKb / 1024, anonMiB: largest.anonMiB, fileMiB: largest.fileMiB, processes: largest.processes, load: `${loadBefore}-${loadAverage()}` };
}

const [sessionsArg, roundsArg, ...roots] = process.argv.slice(2);
const sessions = Number(sessionsArg);
const rounds = Number(roundsArg);
if (!(sessions > 0) || !(rounds > 0) || roots.length === 0) {
  console.error('usage: node bench/backfill-pair.mjs SESSIONS ROUNDS ROOT_A [ROOT_B ...]');
  process.exit(2);
}
if (!fs.existsSync(TIME_BIN) || !fs.existsSync('/proc/self/status')) {
  console.error(`skipped: needs ${TIME_BIN} and /proc`);
  process.exit(0);
}
const work = tempDir('backfill-pair');
try {
  const { env } = buildOpenCodeStore(work, sessions, CHILD_TIMEOUT_MS, OUTPUT_BYTES);
  const builds = roots.map((root) => {
    const [folder, node = process.execPath] = root.split('@');
    return { root, node, cli: path.join(path.resolve(folder), 'dist', 'cli', 'main.js'), runs: [] };
  });
  for (let round = 0; round < rounds; round += 1) {
    for (let k = 0; k < builds.length; k += 1) {
      const build = builds[(round + k) % builds.length];
      const run = await backfillOnce(build.node, build.cli, env, path.join(work, 'db', 'tracker.lmdb'), sessions);
      build.runs.push(run);
      console.log(JSON.stringify({ root: build.root, ...run }));
    }
  }
  const first = builds[0];
  for (const build of builds) {
    const summary = {};
    for (const name of ['cpuS', 'hwmMiB', 'anonMiB', 'fileMiB']) {
      const value = median(build.runs.map((run) => run[name]));
      summary[name] = Number(value.toFixed(2));
      summary[`${name}Ratio`] = Number((value / median(first.runs.map((run) => run[name]))).toFixed(3));
    }
    console.log(JSON.stringify({ root: build.root, medians: summary }));
  }
} finally {
  removeDir(work);
}

#!/usr/bin/env node
/**
 * Paired fresh `agent-tracker backfill` of two builds (or more), for a regression check of its CPU and
 * peak memory: the same real-schema OpenCode store (tables made by the `opencode` binary, SESSIONS
 * generated sessions written through its own bun:sqlite, see opencode-store-gen.mjs), each build's
 * CLI run in turn into a fresh database, the order rotating round by round, so every build sees the
 * same machine state on average (a shared machine moves single figures by more than 10 %).
 * Per run: CPU (user + sys) and peak RSS (VmHWM) from /usr/bin/time, and the peaks of RssAnon (the
 * process's own memory: JS heap, WASM, buffers) and RssFile (mapped files: the node binary, lmdb's
 * map of the tracker file) sampled from /proc, with the load average around it. Prints one JSON line
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
import { clearInterval, setInterval } from 'node:timers';
import { buildOpenCodeStore, median, removeDir, tempDir } from './support.mjs';

const TIME_BIN = '/usr/bin/time';
const OUTPUT_BYTES = process.env.BENCH_OUTPUT_BYTES ? Number(process.env.BENCH_OUTPUT_BYTES) : undefined;
const SAMPLE_EVERY_MS = 50;
const CHILD_TIMEOUT_MS = 600_000;

const loadAverage = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
const field = (status, name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? 0) / 1024;

/** One fresh backfill by the CLI at `cli` under /usr/bin/time, its node process sampled from /proc. */
async function backfillOnce(node, cli, env, db, sessions) {
  removeDir(path.dirname(db));
  const loadBefore = loadAverage();
  const child = spawn(TIME_BIN, ['-f', 'BENCH-TIME %U %S %M', node, cli, 'backfill', '--json', '--db', db], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const peak = { anonMiB: 0, fileMiB: 0 };
  let nodePid;
  const timer = setInterval(() => {
    try {
      // /usr/bin/time's only child is the node process.
      nodePid ??= Number(fs.readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(' ')[0]) || undefined;
      if (!nodePid) return;
      const status = fs.readFileSync(`/proc/${nodePid}/status`, 'utf8');
      peak.anonMiB = Math.max(peak.anonMiB, field(status, 'RssAnon'));
      peak.fileMiB = Math.max(peak.fileMiB, field(status, 'RssFile'));
    } catch {
      // Not started yet, or ended between two samples.
    }
  }, SAMPLE_EVERY_MS);
  const code = await new Promise((resolve) => child.on('exit', resolve));
  clearInterval(timer);
  const line = stderr.split('\n').find((l) => l.startsWith('BENCH-TIME '));
  if (code !== 0 || !line) throw new Error(`${cli} backfill failed (${code}): ${stderr.slice(-400)}`);
  const imported = JSON.parse(stdout).sessions;
  if (imported !== sessions) throw new Error(`${cli} imported ${imported} of ${sessions} sessions`);
  const [user, system, rssKb] = line.slice('BENCH-TIME '.length).trim().split(/\s+/).map(Number);
  return { cpuS: user + system, hwmMiB: rssKb / 1024, ...peak, load: `${loadBefore}-${loadAverage()}` };
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

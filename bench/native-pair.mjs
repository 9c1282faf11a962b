#!/usr/bin/env node
/**
 * The native reader against sql.js, measured before choosing and after: on the real-schema store of
 * first-answer.bench.mjs (tables made by the `opencode` binary, SESSIONS generated sessions written
 * through its own bun:sqlite), in rounds whose order rotates, each command a process of its own under
 * /usr/bin/time (wall, user + sys CPU, peak RSS):
 *   - reading every session, nothing recorded (history-read.mjs): sql.js under this Node, sql.js and
 *     node:sqlite under a Node that has node:sqlite (scripts/newer-node.mjs: this one, or the pinned 24.x)
 *   - the first answer, `backfill` into a fresh database + `report --json`: this tree's CLI under this
 *     Node and under the newer one, and, with BASE_ROOT (a tree whose dist/ predates the node:sqlite
 *     reader), that CLI under the newer Node: sql.js there, the same Node.
 * Prints one JSON line per run, then the medians. Not a benchmark of the runner (not `*.bench.mjs`).
 *
 *   node bench/native-pair.mjs SESSIONS ROUNDS [BASE_ROOT]
 *
 * BENCH_OUTPUT_BYTES gives the calls that make no commit outputs of that size (opencode-store-gen.mjs), as
 * real stores have: the bench's default is 40 bytes.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { newerNode } from '../scripts/newer-node.mjs';
import { buildOpenCodeStore, median, removeDir, ROOT, tempDir } from './support.mjs';

const TIME_BIN = '/usr/bin/time';
const OUTPUT_BYTES = process.env.BENCH_OUTPUT_BYTES ? Number(process.env.BENCH_OUTPUT_BYTES) : undefined;
const CHILD_TIMEOUT_MS = 600_000;
const [sessionsArg, roundsArg, baseRoot] = process.argv.slice(2);
const SESSIONS = Number(sessionsArg) || 1000;
const ROUNDS = Number(roundsArg) || 3;

const loadAverage = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];

function timed(command, args, env) {
  const result = spawnSync(TIME_BIN, ['-f', 'BENCH-TIME %e %U %S %M', command, ...args], { env, encoding: 'utf8', timeout: CHILD_TIMEOUT_MS, maxBuffer: 1 << 28 });
  const line = (result.stderr ?? '').split('\n').find((l) => l.startsWith('BENCH-TIME '));
  if (result.status !== 0 || !line) throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${(result.stderr ?? '').slice(-400)}`);
  const [wall, user, system, rssKb] = line.slice('BENCH-TIME '.length).trim().split(/\s+/).map(Number);
  return { wallMs: wall * 1000, cpuMs: (user + system) * 1000, rssMiB: rssKb / 1024, stdout: result.stdout, stderr: (result.stderr ?? '').replace(line, '').trim() };
}

const node24 = newerNode();
const version24 = spawnSync(node24, ['--version'], { encoding: 'utf8' }).stdout.trim();
const root = tempDir('native-pair');
try {
  const { env, database } = buildOpenCodeStore(root, SESSIONS, CHILD_TIMEOUT_MS, OUTPUT_BYTES);
  const read = (node, reader) => () => {
    const run = timed(node, [path.join(ROOT, 'bench', 'history-read.mjs'), reader, database], env);
    if (JSON.parse(run.stdout).sessions !== SESSIONS) throw new Error(`${reader} read ${run.stdout}`);
    return run;
  };
  const firstAnswer = (node, tree, label) => (n) => {
    const db = path.join(root, `${label}-${n}`, 'tracker.lmdb');
    const cli = path.join(tree, 'dist', 'cli', 'main.js');
    const backfill = timed(node, [cli, 'backfill', '--json', '--db', db], env);
    if (backfill.stderr) throw new Error(`${label} printed on stderr: ${backfill.stderr}`);
    const summary = JSON.parse(backfill.stdout);
    if (summary.sessions !== SESSIONS) throw new Error(`${label} imported ${summary.sessions} sessions`);
    const report = timed(node, [cli, 'report', '--json', '--db', db], env);
    removeDir(path.dirname(db));
    return { wallMs: backfill.wallMs + report.wallMs, cpuMs: backfill.cpuMs + report.cpuMs, rssMiB: Math.max(backfill.rssMiB, report.rssMiB), source: summary.source };
  };
  const variants = {
    [`read, sql.js, ${process.version}`]: read(process.execPath, 'sql.js'),
    [`read, sql.js, ${version24}`]: read(node24, 'sql.js'),
    [`read, node:sqlite, ${version24}`]: read(node24, 'native'),
    [`backfill + report, ${process.version}`]: firstAnswer(process.execPath, ROOT, 'here'),
    [`backfill + report, ${version24}`]: firstAnswer(node24, ROOT, 'newer'),
    ...(baseRoot ? { [`backfill + report, ${version24}, ${path.basename(baseRoot)} (sql.js)`]: firstAnswer(node24, baseRoot, 'base') } : {}),
  };
  const names = Object.keys(variants);
  const runs = Object.fromEntries(names.map((name) => [name, []]));
  for (let n = 0; n < ROUNDS; n += 1) {
    for (let k = 0; k < names.length; k += 1) {
      const name = names[(n + k) % names.length];
      const load = loadAverage();
      const run = variants[name](n);
      runs[name].push(run);
      console.log(JSON.stringify({ round: n, name, wallMs: Math.round(run.wallMs), cpuMs: Math.round(run.cpuMs), rssMiB: Math.round(run.rssMiB), load, ...(run.source ? { source: run.source } : {}) }));
    }
  }
  console.log(`\nmedians of ${ROUNDS} rounds, ${SESSIONS} sessions (store ${(fs.statSync(database).size / 2 ** 20).toFixed(0)} MiB):`);
  for (const name of names) {
    const m = (field) => median(runs[name].map((r) => r[field]));
    console.log(`${name.padEnd(60)} CPU ${(m('cpuMs') / 1000).toFixed(2)} s  wall ${(m('wallMs') / 1000).toFixed(2)} s  peak RSS ${m('rssMiB').toFixed(0)} MiB`);
  }
} finally {
  removeDir(root);
}

#!/usr/bin/env node
/**
 * Runs every `bench/*.bench.mjs` and prints one table (or JSON with `--json`).
 *
 *   node bench/run.mjs [--quick] [--json] [NAME ...]
 *
 * NAME filters benchmarks by file name (`hooks` runs hooks.bench.mjs). Benchmarks import the
 * built code from ../dist, so run `npm run build` first.
 *
 * The contract for a benchmark file: `export default async function run({ quick })` returning rows
 *   { name, metric, value, unit, baseline?, ratio?, target?, pass? }
 * where `ratio` is value / baseline (both measured in the same run), `target` is a short text such
 * as "<= 1.5x" (a number means "value <= target"), and `pass` says whether the target was met.
 * A missed target is marked in the table but does not fail the run; a benchmark that throws does
 * (exit code 1), after the others have run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const BUILT_ENTRY = path.join(BENCH_DIR, '..', 'dist', 'opencode', 'plugin.js');
const SUFFIX = '.bench.mjs';

function parseArguments(argv) {
  const flags = new Set(argv.filter((arg) => arg.startsWith('--')));
  for (const flag of flags) {
    if (!['--quick', '--json', '--help'].includes(flag)) throw new Error(`unknown option ${flag}; use --quick, --json or a benchmark name`);
  }
  return { quick: flags.has('--quick'), json: flags.has('--json'), help: flags.has('--help'), names: argv.filter((arg) => !arg.startsWith('--')) };
}

function benchFiles(names) {
  const all = fs
    .readdirSync(BENCH_DIR)
    .filter((file) => file.endsWith(SUFFIX))
    .sort();
  if (names.length === 0) return all;
  const chosen = all.filter((file) => names.includes(file.slice(0, -SUFFIX.length)));
  const unknown = names.filter((name) => !all.includes(`${name}${SUFFIX}`));
  if (unknown.length > 0) throw new Error(`no benchmark named ${unknown.join(', ')}; have ${all.map((f) => f.slice(0, -SUFFIX.length)).join(', ')}`);
  return chosen;
}

/** Fills in what a row may leave out: the ratio from the baseline, pass from a numeric target. */
function normalize(row, bench) {
  const out = { bench, ...row };
  if (out.ratio === undefined && typeof out.baseline === 'number' && out.baseline > 0 && typeof out.value === 'number') {
    out.ratio = out.value / out.baseline;
  }
  if (out.pass === undefined && typeof out.target === 'number' && typeof out.value === 'number') out.pass = out.value <= out.target;
  return out;
}

function formatNumber(value) {
  if (typeof value !== 'number') return value === undefined || value === null ? '' : String(value);
  if (!Number.isFinite(value)) return String(value);
  const magnitude = Math.abs(value);
  if (magnitude >= 1000) return Math.round(value).toLocaleString('en-US');
  if (magnitude >= 100) return value.toFixed(0);
  if (magnitude >= 10) return value.toFixed(1);
  if (magnitude >= 1) return value.toFixed(2);
  return value.toPrecision(2);
}

function formatTarget(row) {
  if (row.target === undefined) return '';
  return typeof row.target === 'number' ? `<= ${formatNumber(row.target)} ${row.unit ?? ''}`.trim() : String(row.target);
}

function formatPass(row) {
  if (row.error) return 'ERROR';
  if (row.pass === undefined) return '';
  return row.pass ? 'ok' : 'MISSED';
}

/** One aligned table: numbers right-aligned, text left-aligned. */
function renderTable(rows) {
  const columns = [
    { title: 'benchmark', get: (r) => r.name, right: false },
    { title: 'metric', get: (r) => r.metric ?? '', right: false },
    { title: 'value', get: (r) => (r.error ? r.error : formatNumber(r.value)), right: true },
    { title: 'unit', get: (r) => r.unit ?? '', right: false },
    { title: 'baseline', get: (r) => formatNumber(r.baseline), right: true },
    { title: 'ratio', get: (r) => (r.ratio === undefined ? '' : `${formatNumber(r.ratio)}x`), right: true },
    { title: 'target', get: formatTarget, right: false },
    { title: 'pass', get: formatPass, right: false },
  ];
  const cells = rows.map((row) => columns.map((column) => String(column.get(row))));
  const widths = columns.map((column, i) => Math.max(column.title.length, ...cells.map((line) => line[i].length)));
  const line = (values) =>
    values
      .map((value, i) => (columns[i].right ? value.padStart(widths[i]) : value.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.title)), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

function environment(quick) {
  return {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpu: `${os.cpus()[0]?.model ?? 'unknown'} x${os.cpus().length}`,
    quick,
  };
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  if (options.help) {
    console.log('usage: node bench/run.mjs [--quick] [--json] [NAME ...]   (run `npm run build` first)');
    return 0;
  }
  if (!fs.existsSync(BUILT_ENTRY)) {
    console.error(`bench: ${BUILT_ENTRY} is missing; run "npm run build" first.`);
    return 1;
  }
  const rows = [];
  let failed = false;
  for (const file of benchFiles(options.names)) {
    const bench = file.slice(0, -SUFFIX.length);
    if (!options.json) process.stderr.write(`bench: running ${bench}${options.quick ? ' (quick)' : ''}...\n`);
    try {
      const module = await import(pathToFileURL(path.join(BENCH_DIR, file)).href);
      if (typeof module.default !== 'function') throw new Error('has no default export function run({ quick })');
      const produced = await module.default({ quick: options.quick });
      if (!Array.isArray(produced)) throw new Error('run() did not return an array of rows');
      for (const row of produced) rows.push(normalize(row, bench));
    } catch (error) {
      failed = true;
      rows.push({ bench, name: bench, metric: 'failed', error: (error?.message ?? String(error)).split('\n')[0] });
      if (!options.json) process.stderr.write(`bench: ${bench} failed: ${error?.stack ?? error}\n`);
    }
  }
  const env = environment(options.quick);
  if (options.json) {
    console.log(JSON.stringify({ ...env, rows }, null, 2));
  } else {
    console.log(`${env.date}  node ${env.node}  ${env.platform}  ${env.cpu}${env.quick ? '  (quick run: figures are rough)' : ''}\n`);
    console.log(renderTable(rows));
    const missed = rows.filter((row) => row.pass === false).length;
    if (missed > 0) console.log(`\n${missed} target(s) missed (marked MISSED).`);
  }
  return failed ? 1 : 0;
}

try {
  process.exitCode = await main();
} catch (error) {
  console.error(`bench: ${error?.message ?? error}`);
  process.exitCode = 1;
}

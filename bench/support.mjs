/**
 * Small helpers shared by the benchmarks: percentiles, temporary folders, and the built modules.
 * Not a benchmark itself (the runner only picks up `*.bench.mjs`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Imports a module of the built package, e.g. `dist('core/store/store.js')`. */
export function dist(relative) {
  return import(pathToFileURL(path.join(ROOT, 'dist', relative)).href);
}

/** The p-th percentile (0..100) of the samples, nearest-rank. */
export function percentile(samples, p) {
  if (samples.length === 0) return Number.NaN;
  const sorted = Float64Array.from(samples).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export function median(samples) {
  return percentile(samples, 50);
}

/**
 * A temporary folder for one benchmark. It sits under os.tmpdir() unless BENCH_TMPDIR names
 * another place (durable-write figures depend on the file system that backs it).
 */
export function tempDir(prefix) {
  const base = process.env.BENCH_TMPDIR || os.tmpdir();
  return fs.mkdtempSync(path.join(base, `agent-tracker-bench-${prefix}-`));
}

export function removeDir(dir) {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** A logger that keeps quiet: benchmarks measure, they do not log. */
export const silentLogger = { info() {}, warn() {}, error() {} };

/** Nanoseconds from process.hrtime.bigint() differences to microseconds. */
export function toMicros(nanos) {
  return Number(nanos) / 1000;
}

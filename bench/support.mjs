/**
 * Small helpers shared by the benchmarks: percentiles, temporary folders, and the built modules.
 * Not a benchmark itself (the runner only picks up `*.bench.mjs`).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
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

/** Every live process at and below `pid` (its threads' children, recursively), from /proc. */
function processTree(pid) {
  const found = [pid];
  for (let k = 0; k < found.length; k += 1) {
    for (const task of fs.readdirSync(`/proc/${found[k]}/task`)) {
      const children = fs.readFileSync(`/proc/${found[k]}/task/${task}/children`, 'utf8').trim();
      if (children) found.push(...children.split(' ').map(Number));
    }
  }
  return found;
}

/**
 * Samples the memory of `pid` and every process below it every `everyMs` (Linux /proc): each process's
 * peak own memory (RssAnon: JS heap, WASM, buffers), mapped files (RssFile: the node binary, lmdb's map
 * of the tracker file) and VmHWM. `stop()` gives the largest process's peaks (by VmHWM), how many
 * processes were seen, and the peaks of `pid` itself (`root`).
 */
export function sampleProcessTree(pid, everyMs) {
  const field = (status, name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? 0) / 1024;
  const peaks = new Map();
  const sample = () => {
    let pids = [];
    try {
      pids = processTree(pid);
    } catch {
      // The tree changed between two reads: the next sample sees it.
    }
    for (const each of pids) {
      try {
        const status = fs.readFileSync(`/proc/${each}/status`, 'utf8');
        const peak = peaks.get(each) ?? { anonMiB: 0, fileMiB: 0, hwmMiB: 0 };
        peak.anonMiB = Math.max(peak.anonMiB, field(status, 'RssAnon'));
        peak.fileMiB = Math.max(peak.fileMiB, field(status, 'RssFile'));
        peak.hwmMiB = Math.max(peak.hwmMiB, field(status, 'VmHWM'));
        peaks.set(each, peak);
      } catch {
        // Ended between two samples.
      }
    }
  };
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const all = [...peaks.values()];
      const none = { anonMiB: 0, fileMiB: 0, hwmMiB: 0 };
      const largest = all.reduce((a, b) => (b.hwmMiB > a.hwmMiB ? b : a), none);
      return { ...largest, processes: all.length, root: peaks.get(pid) ?? none };
    },
  };
}

/** Nanoseconds from process.hrtime.bigint() differences to microseconds. */
export function toMicros(nanos) {
  return Number(nanos) / 1000;
}

/** A temporary HOME with its own XDG folders: nothing here touches the real ones. */
export function sandboxEnv(root) {
  const env = { ...process.env, HOME: path.join(root, 'home'), OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1' };
  for (const [name, folder] of [['XDG_DATA_HOME', 'data'], ['XDG_CONFIG_HOME', 'config'], ['XDG_CACHE_HOME', 'cache'], ['XDG_STATE_HOME', 'state']]) {
    env[name] = path.join(root, folder);
    fs.mkdirSync(env[name], { recursive: true });
  }
  fs.mkdirSync(env.HOME, { recursive: true });
  delete env.AGENT_TRACKER_DB_PATH;
  delete env.OPENCODE_DATA_DIR;
  return env;
}

/**
 * OpenCode's data folder in a sandbox under `root`, holding `sessions` generated sessions in the tables
 * the real `opencode` binary made (bench/opencode-store-gen.mjs, run under the Bun inside that binary);
 * `outputBytes` sizes the outputs of the calls that make no commit (default: 40 bytes). Each project is a
 * git repository under `root/projects` holding the commits its sessions print (BENCH_REPOS_DIR).
 */
export function buildOpenCodeStore(root, sessions, timeoutMs, outputBytes) {
  const opencode = path.join(ROOT, 'node_modules', '.bin', 'opencode');
  const env = sandboxEnv(root);
  // Any command that opens OpenCode's database makes it, with its migrations run.
  execFileSync(opencode, ['session', 'list'], { env, cwd: root, stdio: 'ignore', timeout: timeoutMs });
  const database = path.join(env.XDG_DATA_HOME, 'opencode', 'opencode.db');
  if (!fs.existsSync(database)) throw new Error(`opencode did not make ${database}`);
  // Each project a real repository holding the commits its sessions print, as on a user's machine.
  const repos = path.join(root, 'projects');
  execFileSync(opencode, [path.join(ROOT, 'bench', 'opencode-store-gen.mjs'), database, String(sessions), ...(outputBytes === undefined ? [] : [String(outputBytes)])], { env: { ...env, BUN_BE_BUN: '1', BENCH_REPOS_DIR: repos }, stdio: 'ignore', timeout: timeoutMs });
  return { env, database };
}

/**
 * The first answer, as a user gets it: `agent-tracker backfill` into a fresh database and then
 * `report --json`, on a real-schema OpenCode store (the tables made by the `opencode` 1.18.33 binary
 * itself, then 1,000 generated sessions x 40 assistant messages x 3 parts written through its own
 * bun:sqlite, see opencode-store-gen.mjs). Measured in the same rounds, the order rotating:
 *   - backfill (fresh database) + report --json
 *   - the same again with nothing new + report --json
 *   - report --json alone, and a plain read of its usage records (the floor of any report)
 *   - `ccusage opencode session --json --offline` on the same store (the baseline: ccusage@20.0.24
 *     from the npm registry, installed by npx into a bench-local cache; a skip line where it cannot run),
 *     and the compiled binary its Node launcher starts, alone
 *   - two bare Node starts (`node -e 0`), the floor under the re-run's two commands
 *   - backfill (fresh database) + report --json under a Node that reads OpenCode's SQLite with
 *     node:sqlite (scripts/newer-node.mjs: this Node when it has it, else the pinned 24.x from the npm
 *     registry, cached; a skip line where it cannot be had)
 * Each command is its own process, measured by /usr/bin/time (wall, user + system CPU, peak RSS).
 * Also the peak RSS of a fresh backfill of 3,000 sessions. Figures are medians of the rounds.
 *
 * FIRST_ANSWER_CLI and FIRST_ANSWER_ROUNDS: see their constants. BENCH_CCUSAGE_CACHE names the npm cache for ccusage (default: a folder under the temp folder,
 * kept between runs so only the first run downloads).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { newerNode } from '../scripts/newer-node.mjs';
import { buildOpenCodeStore, median, removeDir, ROOT, sampleProcessTree, tempDir } from './support.mjs';

/** FIRST_ANSWER_CLI measures another build's CLI (e.g. a copy of an earlier commit's dist/) instead. */
const CLI = process.env.FIRST_ANSWER_CLI || path.join(ROOT, 'dist', 'cli', 'main.js');
const USAGE_READ = path.join(ROOT, 'bench', 'read-usage.mjs');
const TIME_BIN = '/usr/bin/time';
const CCUSAGE = 'ccusage@20.0.24';
const SESSIONS = 1000;
const QUICK_SESSIONS = 100;
const MEMORY_SESSIONS = 3000;
/** FIRST_ANSWER_ROUNDS overrides it (a full run of 3 rounds takes a few minutes on 2 cores). */
const ROUNDS = Number(process.env.FIRST_ANSWER_ROUNDS) || 3;
const QUICK_ROUNDS = 1;
const CHILD_TIMEOUT_MS = 300_000;
const TARGETS = { backfillVsCcusage: 1.0, rerunWallMs: 300, reportWallMs: 200, reportVsRead: 1.2, memoryMiB: 150 };

/**
 * Runs one command under /usr/bin/time: CPU in ms and peak RSS in MiB from it, wall in ms from this
 * process's clock around it (`/usr/bin/time` gives wall in 10 ms steps, which on the 120-150 ms of
 * `report --json` and its read moved their ratio by 0.08 a step).
 */
function timed(command, args, env) {
  const marker = 'BENCH-TIME ';
  const started = performance.now();
  const result = spawnSync(TIME_BIN, ['-f', `${marker}%U %S %M`, command, ...args], { env, encoding: 'utf8', timeout: CHILD_TIMEOUT_MS, maxBuffer: 1 << 28 });
  const wallMs = performance.now() - started;
  const line = (result.stderr ?? '').split('\n').find((l) => l.startsWith(marker));
  if (result.status !== 0 || !line) throw new Error(`${path.basename(command)} ${args.join(' ')} failed (${result.status}): ${(result.stderr ?? '').slice(-400)}`);
  const [user, system, rssKb] = line.slice(marker.length).trim().split(/\s+/).map(Number);
  return { wallMs, cpuMs: (user + system) * 1000, rssMiB: rssKb / 1024, stdout: result.stdout };
}

/** How often the memory split below is sampled. */
const SAMPLE_EVERY_MS = 100;

/**
 * Peak RSS of a command's largest process (the import's, for `backfill`) split into its own memory
 * (RssAnon: JS heap, WASM, buffers) and file pages mapped into it (RssFile: the node binary, and lmdb's
 * memory map of the tracker file it writes), with the command's own process beside it, sampled from
 * /proc every SAMPLE_EVERY_MS; undefined where /proc is missing.
 */
async function memorySplit(command, args, env) {
  if (!fs.existsSync('/proc/self/status')) return undefined;
  const { spawn } = await import('node:child_process');
  const child = spawn(command, args, { env, stdio: 'ignore' });
  const sampler = sampleProcessTree(child.pid, SAMPLE_EVERY_MS);
  const code = await new Promise((resolve) => child.on('exit', resolve));
  const peaks = sampler.stop();
  if (code !== 0) throw new Error(`${path.basename(command)} ${args.join(' ')} failed (${code})`);
  return peaks;
}

function sum(...runs) {
  return { wallMs: runs.reduce((t, r) => t + r.wallMs, 0), cpuMs: runs.reduce((t, r) => t + r.cpuMs, 0), rssMiB: Math.max(...runs.map((r) => r.rssMiB)) };
}

/** The ccusage entry script, installed once into the cache by npx; undefined with the reason when it cannot be. */
function installCcusage(env) {
  const cache = process.env.BENCH_CCUSAGE_CACHE || path.join(os.tmpdir(), 'agent-tracker-bench-ccusage-cache');
  try {
    execFileSync('npx', ['-y', CCUSAGE, '--version'], { env: { ...env, npm_config_cache: cache, npm_config_update_notifier: 'false' }, stdio: 'ignore', timeout: CHILD_TIMEOUT_MS });
  } catch (error) {
    return { skip: `ccusage not measured: npx could not install ${CCUSAGE} (${error.message.split('\n')[0]})` };
  }
  const npxRoot = path.join(cache, '_npx');
  for (const folder of fs.readdirSync(npxRoot)) {
    const manifest = path.join(npxRoot, folder, 'node_modules', 'ccusage', 'package.json');
    if (!fs.existsSync(manifest)) continue;
    const { version, bin } = JSON.parse(fs.readFileSync(manifest, 'utf8'));
    if (`ccusage@${version}` !== CCUSAGE) continue;
    const entry = typeof bin === 'string' ? bin : bin.ccusage;
    // Since 20.x the ccusage script is a Node launcher for a compiled binary from an optional package.
    const binary = path.join(npxRoot, folder, 'node_modules', '@ccusage', `ccusage-${process.platform}-${process.arch}`, 'bin', 'ccusage');
    return { script: path.join(path.dirname(manifest), entry), ...(fs.existsSync(binary) ? { binary } : {}) };
  }
  return { skip: `ccusage not measured: ${CCUSAGE} not found in ${npxRoot}` };
}

/** A Node with node:sqlite and its version; the reason instead when none can be had. */
function nodeWithSqlite() {
  try {
    const node = newerNode();
    if (node === process.execPath) return { skip: 'backfill + report under node:sqlite: this Node has it, so the rows above read with it' };
    return { node, version: execFileSync(node, ['--version'], { encoding: 'utf8', timeout: CHILD_TIMEOUT_MS }).trim() };
  } catch (error) {
    return { skip: `backfill + report under node:sqlite not measured: ${error.message.split('\n')[0]}` };
  }
}

function row(name, metric, runs, field, unit, baseline, target) {
  const value = median(runs.map((r) => r[field]));
  const out = { name, metric, value, unit };
  if (baseline !== undefined) out.baseline = baseline;
  if (target !== undefined) out.target = target;
  return out;
}

export default async function run({ quick }) {
  if (!fs.existsSync(TIME_BIN)) return [{ name: 'first answer', metric: `skipped: ${TIME_BIN} is missing (it measures CPU and peak RSS of each command)`, value: Number.NaN, unit: '' }];
  const sessions = quick ? QUICK_SESSIONS : SESSIONS;
  const rounds = quick ? QUICK_ROUNDS : ROUNDS;
  const root = tempDir('first-answer');
  try {
    const { env, database } = buildOpenCodeStore(root, sessions, CHILD_TIMEOUT_MS);
    const storeMiB = fs.statSync(database).size / 2 ** 20;
    const ccusage = installCcusage(env);
    const native = nodeWithSqlite();
    const cli = (db, ...args) => [CLI, ...args, '--db', db];
    const measured = { fresh: [], again: [], report: [], read: [], ccusage: [], ccusageBinary: [], nodeStart: [], native: [] };
    const steps = {
      fresh: (n) => {
        const db = path.join(root, `fresh-${n}`, 'tracker.lmdb');
        const backfill = timed(process.execPath, cli(db, 'backfill', '--json'), env);
        const imported = JSON.parse(backfill.stdout).sessions;
        if (imported !== sessions) throw new Error(`backfill imported ${imported} of ${sessions} sessions`);
        const report = timed(process.execPath, cli(db, 'report', '--json'), env);
        if (JSON.parse(report.stdout).rows.length === 0) throw new Error('the report after a backfill has no rows');
        return sum(backfill, report);
      },
      again: (n) => sum(timed(process.execPath, cli(path.join(root, `fresh-${n}`, 'tracker.lmdb'), 'backfill', '--json'), env), timed(process.execPath, cli(path.join(root, `fresh-${n}`, 'tracker.lmdb'), 'report', '--json'), env)),
      report: (n) => timed(process.execPath, cli(path.join(root, `fresh-${n}`, 'tracker.lmdb'), 'report', '--json'), env),
      read: (n) => timed(process.execPath, [USAGE_READ, path.join(root, `fresh-${n}`, 'tracker.lmdb')], env),
      native: (n) => {
        const db = path.join(root, `native-${n}`, 'tracker.lmdb');
        const backfill = timed(native.node, cli(db, 'backfill', '--json'), env);
        const summary = JSON.parse(backfill.stdout);
        if (summary.sessions !== sessions || !summary.source.endsWith('(read with node:sqlite)')) throw new Error(`under ${native.version}: ${summary.sessions} sessions from ${summary.source}`);
        const report = timed(native.node, cli(db, 'report', '--json'), env);
        if (JSON.parse(report.stdout).rows.length === 0) throw new Error(`the report under ${native.version} has no rows`);
        return sum(backfill, report);
      },
      ccusage: () => {
        const result = timed(process.execPath, [ccusage.script, 'opencode', 'session', '--json', '--offline'], env);
        if (!result.stdout.includes('"sessions"')) throw new Error('ccusage printed no sessions');
        return result;
      },
      ccusageBinary: () => {
        const result = timed(ccusage.binary, ['opencode', 'session', '--json', '--offline'], env);
        if (JSON.parse(result.stdout).sessions.length !== sessions) throw new Error(`ccusage's binary did not list ${sessions} sessions`);
        return result;
      },
      // The floor under "again": the two commands' Node starts, with this environment (NODE_EXTRA_CA_CERTS
      // makes Node 20 read and parse that file at every start; Node 22 and later read it when TLS needs it).
      nodeStart: () => sum(timed(process.execPath, ['-e', '0'], env), timed(process.execPath, ['-e', '0'], env)),
    };
    // Each round: a fresh database first (the later steps read it), the others in rotating order.
    const others = ['again', 'report', 'read', 'nodeStart', ...(ccusage.script ? ['ccusage'] : []), ...(ccusage.binary ? ['ccusageBinary'] : []), ...(native.node ? ['native'] : [])];
    for (let n = 0; n < rounds; n += 1) {
      measured.fresh.push(steps.fresh(n));
      for (let k = 0; k < others.length; k += 1) {
        const name = others[(n + k) % others.length];
        measured[name].push(steps[name](n));
      }
    }
    let memory;
    if (!quick) {
      const big = buildOpenCodeStore(path.join(root, 'big'), MEMORY_SESSIONS, CHILD_TIMEOUT_MS);
      memory = timed(process.execPath, cli(path.join(root, 'big', 'tracker.lmdb'), 'backfill', '--json'), big.env);
      memory.split = await memorySplit(process.execPath, cli(path.join(root, 'big', 'tracker-split.lmdb'), 'backfill', '--json'), big.env);
    }
    const label = `${sessions} sessions x 40 msgs x 3 parts, real opencode schema (store ${storeMiB.toFixed(0)} MiB), median of ${rounds}`;
    const ccCpu = ccusage.script ? median(measured.ccusage.map((r) => r.cpuMs)) : undefined;
    const readWall = median(measured.read.map((r) => r.wallMs));
    const rows = [
      row('first answer: backfill + report, CPU', label, measured.fresh, 'cpuMs', 'ms', ccCpu, ccCpu === undefined ? undefined : `<= ${TARGETS.backfillVsCcusage}x ccusage`),
      row('first answer: backfill + report, wall', label, measured.fresh, 'wallMs', 'ms', ccusage.script ? median(measured.ccusage.map((r) => r.wallMs)) : undefined),
      row('first answer: backfill + report, peak RSS', label, measured.fresh, 'rssMiB', 'MiB', ccusage.script ? median(measured.ccusage.map((r) => r.rssMiB)) : undefined),
      row('again, nothing new: backfill + report, wall', label, measured.again, 'wallMs', 'ms', undefined, TARGETS.rerunWallMs),
      row('again, nothing new: backfill + report, CPU', label, measured.again, 'cpuMs', 'ms', ccCpu),
      row('again: its floor, two bare Node starts (node -e 0), wall', `${process.version}; NODE_EXTRA_CA_CERTS ${process.env.NODE_EXTRA_CA_CERTS ? 'set (read at every start by Node 20)' : 'not set'}`, measured.nodeStart, 'wallMs', 'ms'),
      row('report --json, wall', `${label}; baseline: reading its usage records in a process of its own`, measured.report, 'wallMs', 'ms', readWall, `<= ${TARGETS.reportWallMs} ms and <= ${TARGETS.reportVsRead}x`),
      row('report --json, CPU', label, measured.report, 'cpuMs', 'ms', median(measured.read.map((r) => r.cpuMs))),
    ];
    if (ccusage.script) rows.push(row('ccusage opencode session --json --offline', `${CCUSAGE}, same store`, measured.ccusage, 'cpuMs', 'ms CPU'));
    else rows.push({ name: 'ccusage opencode session', metric: ccusage.skip, value: Number.NaN, unit: '' });
    if (ccusage.binary) rows.push(row("ccusage's compiled binary alone (without its Node launcher)", `${CCUSAGE}, same store; baseline: the whole command`, measured.ccusageBinary, 'cpuMs', 'ms CPU', ccCpu));
    if (native.node) {
      const nativeLabel = `${label}; ${native.version}, reading with node:sqlite`;
      rows.push(row('first answer on node:sqlite: backfill + report, CPU', `${nativeLabel}; baseline: ccusage`, measured.native, 'cpuMs', 'ms', ccCpu, ccCpu === undefined ? undefined : `<= ${TARGETS.backfillVsCcusage}x ccusage`));
      rows.push(row('first answer on node:sqlite against this Node: CPU', `${nativeLabel}; baseline: the same on ${process.version} (sql.js)`, measured.native, 'cpuMs', 'ms', median(measured.fresh.map((r) => r.cpuMs))));
      rows.push(row('first answer on node:sqlite: backfill + report, wall', nativeLabel, measured.native, 'wallMs', 'ms', median(measured.fresh.map((r) => r.wallMs))));
      rows.push(row('first answer on node:sqlite: backfill + report, peak RSS', `${nativeLabel}; baseline: the same on ${process.version}`, measured.native, 'rssMiB', 'MiB', median(measured.fresh.map((r) => r.rssMiB))));
    } else rows.push({ name: 'first answer on node:sqlite', metric: native.skip, value: Number.NaN, unit: '' });
    if (memory) rows.push({ name: 'backfill peak RSS, 3,000 sessions', metric: 'fresh database, the largest of its processes (the import runs in its own)', value: memory.rssMiB, unit: 'MiB', target: TARGETS.memoryMiB });
    if (memory?.split) {
      rows.push({ name: 'backfill peak RSS, 3,000 sessions: own memory', metric: 'peak RssAnon of its largest process (JS heap, WASM, buffers), sampled', value: memory.split.anonMiB, unit: 'MiB', target: TARGETS.memoryMiB });
      rows.push({ name: 'backfill peak RSS, 3,000 sessions: mapped files', metric: 'peak RssFile of its largest process (node binary, lmdb map of the tracker file), sampled', value: memory.split.fileMiB, unit: 'MiB' });
      rows.push({ name: 'backfill peak RSS, 3,000 sessions: the command beside it', metric: `peak VmHWM of the command's own process (of ${memory.split.processes} processes; the node binary's pages are shared with the import's), sampled`, value: memory.split.root.hwmMiB, unit: 'MiB' });
    }
    const reportRow = rows.find((r) => r.name === 'report --json, wall');
    reportRow.pass = reportRow.value <= TARGETS.reportWallMs && reportRow.value <= TARGETS.reportVsRead * readWall;
    const first = rows[0];
    if (first.baseline !== undefined) first.pass = first.value <= TARGETS.backfillVsCcusage * first.baseline;
    return rows;
  } finally {
    removeDir(root);
  }
}

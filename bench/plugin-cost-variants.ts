/**
 * Splits what the plugin costs OpenCode's process (plugin-cost-run.ts) by part: run under the Bun in
 * the `opencode` binary (BUN_BE_BUN=1 opencode bench/plugin-cost-variants.ts ROUNDS [VARIANT...]).
 * Variants: `none` (no plugin), `empty` (bench/empty-plugin.mjs: does nothing), `addon`
 * (bench/addon-plugin.mjs: loads lmdb's native addon only; `addon-NAME` another addon it names;
 * `addon-late-MS` lmdb's, MS after start), `floor` (bench/floor-plugin.mjs: opens
 * lmdb only), `shell` (bench/shell-plugin.mjs: the plugin's hooks and tools, each doing nothing), `noimport` (the plugin, history import off), `nosetup` (self-provisioning off),
 * `quiet` (both off), `full` (as a user gets it), `other` (another build as a user gets it: the package folder
 * in PLUGIN_COST_OTHER, holding its package.json and dist/, paired with `full`). Rounds
 * rotate the variants' order. Each run is timed by /usr/bin/time (whose %M is the largest peak of
 * OpenCode and every child it reaped) and OpenCode's own process is sampled from /proc (VmHWM, its
 * own peak) with its descendants (each one's command and peak), so a child's peak is told apart,
 * and the CPU time of each of OpenCode's threads by name (our store's worker thread is `Worker`).
 * PLUGIN_COST_SEPARATE_HISTORY=1 gives the variants without our plugin their own OpenCode data folder,
 * as plugin-cost-run.ts does: the plugin then finds only sessions it tracked live, as a user's does.
 * Prints one JSON line per run and a summary line. Not a benchmark itself.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { bash, say, scriptByPrompt, startFakeModel } from '../tests/helpers/fake-model.js';
import { makeRepo, makeSandbox, OPENCODE_BIN, opencodeConfig, removeSandbox, ROOT } from '../tests/helpers/sandbox.js';

const ROUNDS = Number(process.argv[2] ?? 3);
const VARIANTS = process.argv.length > 3 ? process.argv.slice(3) : ['none', 'empty', 'addon', 'floor', 'quiet', 'full'];
const RUN_TIMEOUT_MS = 180_000;
const SAMPLE_MS = 20;
const MARK = 'BENCH-TIME ';
/** The variants that run our plugin (the others run none, or a stand-in). */
const OUR_PLUGIN = new Set(['noimport', 'nosetup', 'quiet', 'full', 'other']);

interface Measured {
  variant: string;
  wallMs: number;
  cpuMs: number;
  timeRssMiB: number;
  ownPeakMiB: number;
  children: { command: string; peakMiB: number }[];
  /** CPU time of OpenCode's threads by name (the last sample of each thread; a thread that ended between samples loses its last 20 ms). */
  threads: Record<string, number>;
}

/** CPU ms of each thread of `pid` (schedstat: nanoseconds on a CPU), by thread id, with its name. */
function threadTimes(pid: number): Map<number, { name: string; ms: number }> {
  const times = new Map<number, { name: string; ms: number }>();
  let tids: string[] = [];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return times;
  }
  for (const tid of tids) {
    try {
      const name = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const ns = Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      times.set(Number(tid), { name, ms: ns / 1e6 });
    } catch {
      // The thread ended between listing and reading.
    }
  }
  return times;
}

function readKb(pid: number, field: string): number | undefined {
  try {
    const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(`${field}:`));
    return line ? Number(line.split(/\s+/)[1]) : undefined;
  } catch {
    return undefined;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).flatMap((tid) => fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

function commandOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).map((a) => path.basename(a)).join(' ').slice(0, 80);
  } catch {
    return '?';
  }
}

function timedRun(variant: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', `${MARK}%e %U %S %M`, OPENCODE_BIN, ...args], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let own = 0;
    let opencodePid: number | undefined;
    const seen = new Map<number, { command: string; peakKb: number }>();
    const threads = new Map<number, { name: string; ms: number }>();
    const sample = setInterval(() => {
      opencodePid ??= childrenOf(child.pid ?? 0)[0];
      if (opencodePid === undefined) return;
      own = Math.max(own, readKb(opencodePid, 'VmHWM') ?? 0);
      for (const [tid, time] of threadTimes(opencodePid)) threads.set(tid, time);
      const queue = childrenOf(opencodePid);
      while (queue.length > 0) {
        const pid = queue.shift() as number;
        const kb = readKb(pid, 'VmHWM') ?? 0;
        const entry = seen.get(pid) ?? { command: commandOf(pid), peakKb: 0 };
        entry.peakKb = Math.max(entry.peakKb, kb);
        seen.set(pid, entry);
        queue.push(...childrenOf(pid));
      }
    }, SAMPLE_MS);
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      clearInterval(sample);
      const line = stderr.split('\n').find((l) => l.startsWith(MARK));
      if (code !== 0 || !line) return reject(new Error(`opencode run failed (${code}): ${stderr.slice(-600)}`));
      const [wall, user, system, rssKb] = line.slice(MARK.length).trim().split(/\s+/).map(Number) as [number, number, number, number];
      const children = [...seen.values()].map((c) => ({ command: c.command, peakMiB: Math.round(c.peakKb / 102.4) / 10 }));
      const byName: Record<string, number> = {};
      for (const { name, ms } of threads.values()) byName[name] = Math.round((byName[name] ?? 0) + ms);
      resolve({ variant, wallMs: wall * 1000, cpuMs: (user + system) * 1000, timeRssMiB: rssKb / 1024, ownPeakMiB: Math.round(own / 102.4) / 10, children, threads: byName });
    });
  });
}

const sandbox = makeSandbox('agent-tracker-bench-plugin-variants-');
const model = await startFakeModel(scriptByPrompt({ 'BENCH-RUN': [bash('ls -la'), bash('echo hello'), bash('git status --short'), say('Done.')] }), { maxRequests: 10_000, lifetimeMs: 1_800_000 });
try {
  const base = { ...sandbox.env };
  delete base.AGENT_TRACKER_SKIP_SETUP;
  delete base.AGENT_TRACKER_IMPORT_HISTORY;
  const repo = makeRepo(sandbox);
  const separateHistory = process.env.PLUGIN_COST_SEPARATE_HISTORY === '1';
  const withoutPluginData = path.join(sandbox.root, 'data-without-plugin');
  fs.mkdirSync(withoutPluginData, { recursive: true });
  const configFile = path.join(sandbox.configDir, 'opencode.json');
  const once = async (variant: string): Promise<Measured> => {
    const config = opencodeConfig({ modelUrl: model.url });
    if (variant === 'none') config.plugin = [];
    if (variant === 'empty') config.plugin = [`file://${path.join(ROOT, 'bench', 'empty-plugin.mjs')}`];
    if (variant.startsWith('addon')) config.plugin = [`file://${path.join(ROOT, 'bench', 'addon-plugin.mjs')}`];
    if (variant === 'floor') config.plugin = [`file://${path.join(ROOT, 'bench', 'floor-plugin.mjs')}`];
    if (variant === 'shell') config.plugin = [`file://${path.join(ROOT, 'bench', 'shell-plugin.mjs')}`];
    if (variant === 'other') config.plugin = [`file://${path.resolve(process.env.PLUGIN_COST_OTHER ?? '')}`];
    fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
    const env: NodeJS.ProcessEnv = { ...base, AGENT_TRACKER_DB_PATH: sandbox.dbPath };
    if (separateHistory && !OUR_PLUGIN.has(variant)) env.XDG_DATA_HOME = withoutPluginData;
    const late = /^addon-late-(\d+)$/.exec(variant);
    if (late) env.PLUGIN_COST_ADDON_DELAY_MS = late[1];
    else if (variant.startsWith('addon-')) env.PLUGIN_COST_ADDON = variant.slice('addon-'.length);
    if (variant === 'noimport' || variant === 'quiet') env.AGENT_TRACKER_IMPORT_HISTORY = '0';
    if (variant === 'nosetup' || variant === 'quiet' || variant === 'shell') env.AGENT_TRACKER_SKIP_SETUP = '1';
    if (variant === 'shell') env.AGENT_TRACKER_IMPORT_HISTORY = '0';
    return timedRun(variant, ['run', '--format', 'json', 'BENCH-RUN: run three commands'], repo, env);
  };
  await once('none');
  await once('full');
  const all: Measured[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length] as string);
    for (const variant of order) {
      const measured = await once(variant);
      all.push(measured);
      console.log(JSON.stringify(measured));
    }
  }
  const median = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    const mid = Math.floor(s.length / 2);
    return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
  };
  const summary = Object.fromEntries(
    VARIANTS.map((v) => {
      const runs = all.filter((r) => r.variant === v);
      return [v, { wallMs: median(runs.map((r) => r.wallMs)), cpuMs: median(runs.map((r) => r.cpuMs)), timeRssMiB: median(runs.map((r) => r.timeRssMiB)), ownPeakMiB: median(runs.map((r) => r.ownPeakMiB)) }];
    }),
  );
  console.log(JSON.stringify({ summary }));
} finally {
  await model.close();
  removeSandbox(sandbox);
}

/**
 * Run by plugin-cost.bench.mjs under the Bun inside the `opencode` binary (which runs TypeScript, so
 * the tests' own sandbox and loopback fake model are reused): a real `opencode run` of three bash calls
 * in a temporary HOME, with the plugin and without it, paired round by round (order alternating),
 * each under /usr/bin/time (wall, user+sys CPU of the OpenCode process and the children it waited
 * for, peak RSS). The plugin runs as a user gets it: history import and self-provisioning on.
 * Prints one JSON line: { withPlugin: [...], without: [...] }. Not a benchmark itself.
 *
 * By default both sides share one OpenCode data folder, so every run with the plugin finds the session
 * the run before it made without the plugin, untracked: its history import has real work each time.
 * PLUGIN_COST_SEPARATE_HISTORY=1 gives the runs without the plugin their own data folder, so the runs
 * with it find only sessions it tracked live, as a user with the plugin always on has it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { bash, say, scriptByPrompt, startFakeModel } from '../tests/helpers/fake-model.js';
import { makeRepo, makeSandbox, OPENCODE_BIN, opencodeConfig, removeSandbox } from '../tests/helpers/sandbox.js';

const ROUNDS = Number(process.argv[2] ?? 3);
const RUN_TIMEOUT_MS = 180_000;
const MARK = 'BENCH-TIME ';

interface Measured {
  wallMs: number;
  cpuMs: number;
  rssMiB: number;
  /** History-import processes (import-child.js) seen running for this sandbox during the run, in /proc. */
  importChildren: number;
}

const POLL_MS = 50;

/** The pids running import-child.js with this sandbox in their environment (the job names its folders). */
function importChildren(root: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('import-child.js') && fs.readFileSync(`/proc/${entry}/environ`, 'utf8').includes(root)) pids.push(Number(entry));
    } catch {
      // Gone while looked at.
    }
  }
  return pids;
}

function timedRun(args: string[], cwd: string, env: NodeJS.ProcessEnv, root: string): Promise<Measured> {
  const seen = new Set<number>();
  const watch = setInterval(() => {
    for (const pid of importChildren(root)) seen.add(pid);
  }, POLL_MS);
  return new Promise<Measured>((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', `${MARK}%e %U %S %M`, OPENCODE_BIN, ...args], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      const line = stderr.split('\n').find((l) => l.startsWith(MARK));
      if (code !== 0 || !line) return reject(new Error(`opencode run failed (${code}): ${stderr.slice(-600)}`));
      const [wall, user, system, rssKb] = line.slice(MARK.length).trim().split(/\s+/).map(Number) as [number, number, number, number];
      resolve({ wallMs: wall * 1000, cpuMs: (user + system) * 1000, rssMiB: rssKb / 1024, importChildren: seen.size });
    });
  }).finally(() => clearInterval(watch));
}

const sandbox = makeSandbox('agent-tracker-bench-plugin-cost-');
const model = await startFakeModel(scriptByPrompt({ 'BENCH-RUN': [bash('ls -la'), bash('echo hello'), bash('git status --short'), say('Done.')] }), { maxRequests: 10_000, lifetimeMs: 1_800_000 });
try {
  const env = { ...sandbox.env };
  // As a user runs it: the history import and self-provisioning on.
  delete env.AGENT_TRACKER_SKIP_SETUP;
  delete env.AGENT_TRACKER_IMPORT_HISTORY;
  const separateHistory = process.env.PLUGIN_COST_SEPARATE_HISTORY === '1';
  const withoutEnv = { ...env };
  if (separateHistory) {
    withoutEnv.XDG_DATA_HOME = path.join(sandbox.root, 'data-without-plugin');
    fs.mkdirSync(withoutEnv.XDG_DATA_HOME, { recursive: true });
  }
  const repo = makeRepo(sandbox);
  const configFile = path.join(sandbox.configDir, 'opencode.json');
  const configure = (withPlugin: boolean): void => {
    const config = opencodeConfig({ modelUrl: model.url });
    if (!withPlugin) config.plugin = [];
    fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
  };
  const once = async (withPlugin: boolean): Promise<Measured> => {
    configure(withPlugin);
    return timedRun(['run', '--format', 'json', 'BENCH-RUN: run three commands'], repo, withPlugin ? env : withoutEnv, sandbox.root);
  };
  // Untimed: OpenCode's first start (its database, caches) and the plugin's first (its database, provisioning).
  await once(false);
  await once(true);
  const withPlugin: Measured[] = [];
  const without: Measured[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    if (round % 2 === 0) {
      without.push(await once(false));
      withPlugin.push(await once(true));
    } else {
      withPlugin.push(await once(true));
      without.push(await once(false));
    }
  }
  console.log(JSON.stringify({ withPlugin, without }));
} finally {
  await model.close();
  removeSandbox(sandbox);
}

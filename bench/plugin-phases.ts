/**
 * Where the plugin's CPU goes inside OpenCode's process, phase by phase, with far less noise than a
 * whole `opencode run` (plugin-cost.bench.mjs, whose medians move by ±5% between runs of 20 rounds).
 * Run under the Bun in the `opencode` binary: `BUN_BE_BUN=1 opencode bench/plugin-phases.ts [RUNS]`.
 *
 * Each run is a fresh process that imports the built plugin and drives it as OpenCode 1 does: `server()`,
 * the timers of the start (the store's worker opens the database; self-provisioning's check at 1 s;
 * the history check at 2 s), one session (created; a turn of three bash calls, one naming git, and an
 * assistant message; idle, so a flush; a second such turn and its flush), then `dispose`. Between phases it reads each thread's CPU time from
 * /proc/self/task/TID/schedstat (nanoseconds): OpenCode's main thread, our store's worker thread
 * (`Worker`), and Bun's other threads (JIT and GC helpers). No model, no OpenCode server: the host's
 * client is a stand-in whose calls do nothing.
 *
 * All runs share one sandbox (temporary HOME, database, config folder, git repository) with the
 * history import and self-provisioning on. The first run creates the database and provisions the
 * config folder, so it is printed apart; the others are the steady state of a user's next sessions:
 * medians per phase. OpenCode's database (made by `opencode session list`) holds no sessions and no
 * OpenCode writes it between runs, so after the first run the history check ends at its `stat` calls
 * (import-check.bench.mjs measures its read of sessions). Not a benchmark itself.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { makeRepo, makeSandbox, OPENCODE_BIN, removeSandbox } from '../tests/helpers/sandbox.js';

const RUNS = Number(process.argv[2] ?? 8);
const CHILD_FLAG = '--phases-child';
const RUN_TIMEOUT_MS = 60_000;

interface ThreadCpu {
  main: number;
  worker: number;
  other: number;
}

interface Phase {
  phase: string;
  cpu: ThreadCpu;
}

/** CPU ms per kind of thread of this process so far. */
function threadCpu(): ThreadCpu {
  const cpu: ThreadCpu = { main: 0, worker: 0, other: 0 };
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const ms = Number(fs.readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
      const name = fs.readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      if (tid === String(process.pid)) cpu.main += ms;
      else if (name === 'Worker') cpu.worker += ms;
      else cpu.other += ms;
    } catch {
      // The thread ended between listing and reading.
    }
  }
  return cpu;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One lifecycle of the built plugin in this process; prints its phases as one JSON line. */
async function child(repo: string, entry: string): Promise<void> {
  const phases: Phase[] = [];
  let last = threadCpu();
  const mark = (phase: string): void => {
    const now = threadCpu();
    phases.push({ phase, cpu: { main: now.main - last.main, worker: now.worker - last.worker, other: now.other - last.other } });
    last = now;
  };
  // Every call the plugin makes on OpenCode's client (log, toast) resolves with nothing.
  const client = new Proxy({}, { get: () => new Proxy({}, { get: () => async () => ({ data: undefined }) }) });
  const plugin = ((await import(pathToFileURL(entry).href)) as { default: unknown }).default as { server: (input: unknown, options: unknown) => Promise<Record<string, (...args: unknown[]) => Promise<void>>> };
  mark('import');
  const hooks = await plugin.server({ client, directory: repo, worktree: repo, project: { id: 'bench' }, serverUrl: new URL('http://127.0.0.1:1') }, {});
  mark('server()');
  await sleep(900);
  mark('to 0.9 s: the worker opens the store');
  await sleep(1000);
  mark('to 1.9 s: self-provisioning check');
  await sleep(1500);
  mark('to 3.4 s: history check');
  const sessionID = `ses_phases_${process.pid}`;
  const now = Date.now();
  const event = (type: string, properties: unknown): Promise<void> | undefined => hooks.event?.({ event: { type, properties } });
  await event('session.created', { info: { id: sessionID, directory: repo, title: 'bench', time: { created: now, updated: now } } });
  await sleep(300);
  mark('session.created, and its background work');
  /** One turn: three bash calls (one naming git) and an assistant message. */
  const turn = async (n: number): Promise<void> => {
    for (const [index, command] of ['ls -la', 'echo hello', 'git status --short'].entries()) {
      const callID = `call_${n}_${index}`;
      await hooks['tool.execute.before']?.({ tool: 'bash', sessionID, callID }, { args: { command } });
      await hooks['tool.execute.after']?.({ tool: 'bash', sessionID, callID }, { title: command, output: 'x'.repeat(500), metadata: {} });
    }
    await event('message.updated', {
      info: { id: `msg_${process.pid}_${n}`, sessionID, role: 'assistant', modelID: 'bench-model', providerID: 'bench', mode: 'build', time: { created: now, completed: Date.now() }, tokens: { input: 10, output: 5, reasoning: 0, cache: { read: 0, write: 0 } }, cost: 0.01 },
    });
  };
  await turn(1);
  await sleep(300);
  mark('3 bash calls, an assistant message');
  await event('session.idle', { sessionID });
  await sleep(500);
  mark('session.idle: the flush');
  await turn(2);
  await event('session.idle', { sessionID });
  await sleep(500);
  mark('a second turn, idle, its flush');
  await hooks.dispose?.();
  mark('dispose');
  console.log(JSON.stringify(phases));
  process.exit(0);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function table(title: string, runs: Phase[][]): void {
  console.log(`${title} (CPU ms; medians of ${runs.length})`);
  const names = (runs[0] ?? []).map((phase) => phase.phase);
  const total: ThreadCpu = { main: 0, worker: 0, other: 0 };
  for (const [at, name] of names.entries()) {
    const cpu = Object.fromEntries((['main', 'worker', 'other'] as const).map((kind) => [kind, median(runs.map((run) => (run[at] as Phase).cpu[kind]))])) as unknown as ThreadCpu;
    for (const kind of ['main', 'worker', 'other'] as const) total[kind] += cpu[kind];
    console.log(`  ${name.padEnd(42)} main ${cpu.main.toFixed(1).padStart(6)}  worker ${cpu.worker.toFixed(1).padStart(6)}  other ${cpu.other.toFixed(1).padStart(6)}`);
  }
  console.log(`  ${'sum of the medians'.padEnd(42)} main ${total.main.toFixed(1).padStart(6)}  worker ${total.worker.toFixed(1).padStart(6)}  other ${total.other.toFixed(1).padStart(6)}`);
}

if (process.argv.includes(CHILD_FLAG)) {
  const at = process.argv.indexOf(CHILD_FLAG);
  await child(process.argv[at + 1] as string, process.argv[at + 2] as string);
} else {
  const sandbox = makeSandbox('agent-tracker-bench-phases-');
  try {
    const repo = makeRepo(sandbox);
    const env: NodeJS.ProcessEnv = { ...sandbox.env, AGENT_TRACKER_DB_PATH: sandbox.dbPath, BUN_BE_BUN: '1' };
    delete env.AGENT_TRACKER_SKIP_SETUP;
    delete env.AGENT_TRACKER_IMPORT_HISTORY;
    // OpenCode's own database, made (with its migrations) by a command that opens it, holding no session.
    execFileSync(OPENCODE_BIN, ['session', 'list'], { env: sandbox.env, cwd: repo, stdio: 'ignore', timeout: RUN_TIMEOUT_MS });
    // PHASES_CPU_PROF_DIR=folder: each run writes Bun's CPU profile of its main thread there (a .cpuprofile and its markdown summary).
    const profileDir = process.env.PHASES_CPU_PROF_DIR;
    const profileFlags = profileDir ? ['--cpu-prof', '--cpu-prof-md', `--cpu-prof-dir=${path.resolve(profileDir)}`, '--cpu-prof-interval=250'] : [];
    // PHASES_COMPARE=other/dist/opencode/plugin.js: that build too, run by run in turn with this one.
    const builds = [path.resolve(import.meta.dirname, '..', 'dist', 'opencode', 'plugin.js'), ...(process.env.PHASES_COMPARE ? [path.resolve(process.env.PHASES_COMPARE)] : [])];
    const runs: Phase[][][] = builds.map(() => []);
    for (let run = 0; run < RUNS + 1; run += 1) {
      // The order alternates from the second run on; the first run of the first build makes the database.
      const order = run % 2 === 1 ? [...builds.entries()].reverse() : [...builds.entries()];
      for (const [at, build] of order) {
        const result = spawnSync(process.execPath, [...profileFlags, path.resolve(import.meta.dirname, 'plugin-phases.ts'), CHILD_FLAG, repo, build], { env, cwd: repo, encoding: 'utf8', timeout: RUN_TIMEOUT_MS });
        const line = result.stdout.trim().split('\n').pop() ?? '';
        if (result.status !== 0 || !line.startsWith('[')) throw new Error(`run ${run} of ${build} failed (${result.status}): ${result.stderr.slice(-600)}`);
        (runs[at] as Phase[][]).push(JSON.parse(line) as Phase[]);
      }
    }
    for (const [at, build] of builds.entries()) {
      const own = runs[at] as Phase[][];
      if (builds.length > 1) console.log(`== ${build}`);
      table('first run: creates the database, provisions the config folder', own.slice(0, 1));
      table('the next runs: the steady state', own.slice(1));
    }
  } finally {
    removeSandbox(sandbox);
  }
}

/**
 * CLI cold start: `agent-tracker --help`, `status --json` and `report --json` on a small database
 * (3 agents, 12 sessions), each in a fresh Node process, interleaved with a bare `node -e 0` (each
 * round runs both, the order rotating). Figures are medians. `CLI_START_COMPARE=/other/dist/cli/main.js`
 * adds another build (e.g. of an earlier commit) to the same rounds.
 *
 * "The command's own work" is measured inside the process: a preload script (`--require`, given to
 * `node -e 0` too, so both sides pay it) notes the time just before the CLI's entry module loads and
 * again when the process exits. So the work is everything the command does from its entry on: the
 * modules it imports, opening the database, the answer, the output. What the user waits for beyond
 * that (Node's own start, the exit) is the start overhead, compared with a bare `node -e 0`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { dist, median, removeDir, ROOT, silentLogger, tempDir } from './support.mjs';

const CLI_ENTRY = path.join(ROOT, 'dist', 'cli', 'main.js');
const OVERHEAD_TARGET = 1.3;
const RUNS = 15;
const QUICK_RUNS = 3;
const CHILD_TIMEOUT_MS = 60_000;
const AGENTS = ['build', 'plan', 'review'];
const SESSIONS = 12;
const TOOL_CALLS_PER_SESSION = 20;

const COMMANDS = [
  { label: '--help', args: ['--help'] },
  { label: 'status --json', args: ['status', '--json'] },
  { label: 'report --json', args: ['report', '--json'] },
];

/** Written into the bench folder: notes when the entry starts loading and when the process exits. */
const PRELOAD = `
const { performance } = require('node:perf_hooks');
const fs = require('node:fs');
const enteredAt = performance.now();
process.on('exit', () => {
  if (process.env.CLI_BENCH_OUT) fs.writeFileSync(process.env.CLI_BENCH_OUT, JSON.stringify({ workMs: performance.now() - enteredAt }));
});
`;

/** A small database like a few days of use: a dozen sessions of three agents with tool calls. */
async function seedDatabase(dbPath, project) {
  const { resolveConfig } = await dist('core/config.js');
  const { Store } = await dist('core/store/store.js');
  const { termIndexer } = await dist('core/search/indexer.js');
  const { TrackingService } = await dist('core/tracking/service.js');
  const config = resolveConfig({ options: {}, env: { AGENT_TRACKER_DB_PATH: dbPath } });
  const store = Store.open({ path: dbPath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
  try {
    const service = new TrackingService({ store, config, logger: silentLogger, project });
    for (let s = 0; s < SESSIONS; s += 1) {
      const session = `ses_cli_bench_${s}`;
      service.noteModelRequest(session, AGENTS[s % AGENTS.length], 'bench/model');
      for (let c = 0; c < TOOL_CALLS_PER_SESSION; c += 1) service.recordToolCall(session, `call_${s}_${c}`, c % 3 === 0 ? 'bash' : 'read', c % 7 !== 0);
      service.endTurn(session);
    }
    const outcome = service.flush('bench seed');
    if (!outcome.ok) throw outcome.error;
  } finally {
    store.close();
  }
}

function timedRun(args, dir, env) {
  const out = path.join(dir, 'work.json');
  fs.rmSync(out, { force: true });
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, ['--require', path.join(dir, 'preload.cjs'), ...args], {
    cwd: dir,
    env: { ...env, CLI_BENCH_OUT: out },
    encoding: 'utf8',
    timeout: CHILD_TIMEOUT_MS,
  });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} failed (exit ${result.status}): ${(result.stderr || String(result.error)).trim().split('\n')[0]}`);
  return { wallMs, workMs: JSON.parse(fs.readFileSync(out, 'utf8')).workMs };
}

export default async function run({ quick }) {
  const runs = quick ? QUICK_RUNS : RUNS;
  const dir = tempDir('cli-start');
  try {
    const dbPath = path.join(dir, 'cli.lmdb');
    const env = { PATH: process.env.PATH, HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'config'), AGENT_TRACKER_DB_PATH: dbPath, AGENT_TRACKER_SKIP_SETUP: '1' };
    fs.writeFileSync(path.join(dir, 'preload.cjs'), PRELOAD);
    await seedDatabase(dbPath, dir);
    const rows = [];
    const compare = process.env.CLI_START_COMPARE ? path.resolve(process.env.CLI_START_COMPARE) : undefined;
    for (const command of COMMANDS) {
      const contenders = [
        { key: 'cli', args: [CLI_ENTRY, ...command.args] },
        { key: 'bare', args: ['-e', '0'] },
        ...(compare ? [{ key: 'compare', args: [compare, ...command.args] }] : []),
      ];
      // Untimed: warms the file cache (and lets the first open check the new file out of process).
      for (const contender of contenders) timedRun(contender.args, dir, env);
      const runsOf = new Map(contenders.map((contender) => [contender.key, []]));
      for (let i = 0; i < runs; i += 1) {
        // Each round runs every contender once, the order rotating: a bare start always sits next to the command's.
        for (let j = 0; j < contenders.length; j += 1) {
          const contender = contenders[(i + j) % contenders.length];
          runsOf.get(contender.key).push(timedRun(contender.args, dir, env));
        }
      }
      const bareMs = median(runsOf.get('bare').map((r) => r.wallMs));
      for (const [key, title] of [['cli', 'CLI cold start'], ['compare', 'CLI cold start, CLI_START_COMPARE build']]) {
        const list = runsOf.get(key);
        if (!list) continue;
        const wallMs = median(list.map((r) => r.wallMs));
        const workMs = median(list.map((r) => r.workMs));
        const overheadMs = median(list.map((r) => r.wallMs - r.workMs));
        const name = `${title}: ${command.label}`;
        rows.push(
          { name, metric: `wall, median of ${runs} interleaved runs (node -e 0 = baseline)`, value: wallMs, unit: 'ms', baseline: bareMs },
          { name, metric: "the command's own work: entry to exit, inside the process", value: workMs, unit: 'ms' },
          {
            name,
            metric: 'start overhead: wall minus own work (node -e 0 = baseline)',
            value: overheadMs,
            unit: 'ms',
            baseline: bareMs,
            target: `<= ${OVERHEAD_TARGET}x node -e 0`,
            pass: overheadMs <= OVERHEAD_TARGET * bareMs,
          },
        );
      }
    }
    return rows;
  } finally {
    removeDir(dir);
  }
}

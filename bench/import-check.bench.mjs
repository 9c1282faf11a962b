/**
 * What the plugin's check "anything new to import?" (src/opencode/history/import-needed.ts) costs
 * OpenCode's process, against the import child it saves, on a real-schema store of 1,000 sessions
 * (40 assistant messages each) that the tracker already holds in full. Each figure runs in its own
 * process under the Bun inside the `opencode` binary (bench/import-check-run.mjs): the check with the
 * one previous session to read (the usual case), with MAX_CHECKED_SESSIONS of them (the most it reads
 * before it leaves the work to the child), and with all 1,000 (no bound, to show why there is one);
 * the child (`import-child.js`, timed with /usr/bin/time) with the same one session to read.
 * Medians of IMPORT_CHECK_ROUNDS (default 3; quick: 1).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildOpenCodeStore, dist, median, removeDir, ROOT, tempDir } from './support.mjs';

const OPENCODE_BIN = path.join(ROOT, 'node_modules', '.bin', 'opencode');
const RUNNER = path.join(ROOT, 'bench', 'import-check-run.mjs');
const CHILD = path.join(ROOT, 'dist', 'opencode', 'history', 'import-child.js');
const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');
const SESSIONS = 1000;
const ROUNDS = Number(process.env.IMPORT_CHECK_ROUNDS) || 3;
const TIMEOUT_MS = 600_000;
const MARK = 'BENCH-TIME ';

function runner(env, args) {
  const result = spawnSync(OPENCODE_BIN, [RUNNER, ...args], { env: { ...env, BUN_BE_BUN: '1' }, encoding: 'utf8', timeout: TIMEOUT_MS });
  if (result.status !== 0) throw new Error(`import-check-run ${args[0]} failed: ${result.stderr.slice(-600)}`);
  return JSON.parse(result.stdout.trim().split('\n').pop());
}

function timedChild(env, job, jobEnv) {
  const result = spawnSync('/usr/bin/time', ['-f', `${MARK}%e %U %S %M`, OPENCODE_BIN, CHILD], { env: { ...env, BUN_BE_BUN: '1', [jobEnv]: job }, encoding: 'utf8', timeout: TIMEOUT_MS });
  const line = result.stderr.split('\n').find((l) => l.startsWith(MARK));
  if (result.status !== 0 || !line) throw new Error(`import child failed: ${result.stderr.slice(-600)}`);
  const answer = JSON.parse(result.stdout.trim().split('\n').pop());
  if (!answer.ok) throw new Error(`import child: ${answer.message}`);
  const [wall, user, system, rssKb] = line.slice(MARK.length).trim().split(/\s+/).map(Number);
  return { wallMs: wall * 1000, cpuMs: (user + system) * 1000, rssMiB: rssKb / 1024, sessions: answer.sessions };
}

export default async function run({ quick }) {
  if (!fs.existsSync('/usr/bin/time')) return [{ name: 'import check', metric: 'skipped: /usr/bin/time is missing', value: Number.NaN, unit: '' }];
  const rounds = quick ? 1 : ROUNDS;
  const root = tempDir('import-check');
  try {
    const { env } = buildOpenCodeStore(root, SESSIONS, TIMEOUT_MS);
    const location = path.join(env.XDG_DATA_HOME, 'opencode');
    execFileSync(process.execPath, [CLI, 'backfill', '--json'], { env, stdio: 'ignore', timeout: TIMEOUT_MS });
    const [{ resolveConfig }, { encodeJob, IMPORT_JOB_ENV }, { MAX_CHECKED_SESSIONS }] = await Promise.all([
      dist('core/config.js'),
      dist('opencode/history/import-job.js'),
      dist('opencode/history/import-needed.js'),
    ]);
    const config = resolveConfig({ env, home: env.HOME });
    const job = encodeJob(location, path.join(root, 'project'), Date.now(), config);
    const cases = { one: [], bounded: [], all: [], child: [] };
    for (let round = 0; round < rounds; round += 1) {
      cases.one.push(runner(env, ['check', config.databasePath, location, '1', String(MAX_CHECKED_SESSIONS)]));
      cases.bounded.push(runner(env, ['check', config.databasePath, location, String(MAX_CHECKED_SESSIONS), String(MAX_CHECKED_SESSIONS)]));
      cases.all.push(runner(env, ['check', config.databasePath, location, String(SESSIONS), '0']));
      runner(env, ['stale', config.databasePath, location, '1']);
      cases.child.push(timedChild(env, job, IMPORT_JOB_ENV));
    }
    for (const [name, runs] of Object.entries(cases).filter(([name]) => name !== 'child')) {
      if (runs.some((r) => r.need.needed)) throw new Error(`the check found something to import (${name}): ${JSON.stringify(runs[0].need)}`);
    }
    const med = (runs, field) => median(runs.map((r) => r[field]));
    const label = (n) => `${SESSIONS}-session store all held, ${n} session(s) to read, median of ${rounds}`;
    const childCpu = med(cases.child, 'cpuMs');
    return [
      { name: 'import check: CPU, the previous session', metric: `${label(1)}; against the import child it saves`, value: med(cases.one, 'cpuMs'), unit: 'ms', baseline: childCpu },
      { name: 'import check: wall, the previous session', metric: label(1), value: med(cases.one, 'wallMs'), unit: 'ms', baseline: med(cases.child, 'wallMs') },
      { name: 'import check: RSS growth, the previous session', metric: `${label(1)}; the child's own peak is the baseline`, value: med(cases.one, 'rssGrowthMiB'), unit: 'MiB', baseline: med(cases.child, 'rssMiB') },
      { name: `import check: CPU, ${MAX_CHECKED_SESSIONS} sessions (the bound)`, metric: label(MAX_CHECKED_SESSIONS), value: med(cases.bounded, 'cpuMs'), unit: 'ms', baseline: childCpu },
      { name: `import check: RSS growth, ${MAX_CHECKED_SESSIONS} sessions`, metric: label(MAX_CHECKED_SESSIONS), value: med(cases.bounded, 'rssGrowthMiB'), unit: 'MiB' },
      { name: `import check: CPU, all ${SESSIONS} sessions (no bound)`, metric: label(SESSIONS), value: med(cases.all, 'cpuMs'), unit: 'ms', baseline: childCpu },
      { name: `import check: RSS growth, all ${SESSIONS} sessions`, metric: label(SESSIONS), value: med(cases.all, 'rssGrowthMiB'), unit: 'MiB' },
    ];
  } finally {
    removeDir(root);
  }
}

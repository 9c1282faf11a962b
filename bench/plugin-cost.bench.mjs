/**
 * What the plugin costs a real session: `opencode run` of three bash calls with the plugin and
 * without it, paired round by round on the same machine (bench/plugin-cost-run.ts, under the Bun in
 * the `opencode` binary). Rows: wall, CPU and peak RSS of the OpenCode process with the plugin, each
 * against the same without it. Medians of the rounds (PLUGIN_COST_ROUNDS, default 3; quick: 1).
 * PLUGIN_COST_SEPARATE_HISTORY=1: the runs without the plugin keep their own OpenCode data folder
 * (see plugin-cost-run.ts), so the plugin's history import finds only sessions it tracked live.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { median, ROOT } from './support.mjs';

const OPENCODE_BIN = path.join(ROOT, 'node_modules', '.bin', 'opencode');
const RUNNER = path.join(ROOT, 'bench', 'plugin-cost-run.ts');
const ROUNDS = Number(process.env.PLUGIN_COST_ROUNDS) || 3;
const TIMEOUT_MS = 1_800_000;
const TARGETS = { wall: 1.02, cpu: 1.02, rssMiB: 30 };

export default async function run({ quick }) {
  if (!fs.existsSync('/usr/bin/time')) return [{ name: 'plugin cost', metric: 'skipped: /usr/bin/time is missing', value: Number.NaN, unit: '' }];
  const rounds = quick ? 1 : ROUNDS;
  const result = spawnSync(OPENCODE_BIN, [RUNNER, String(rounds)], { env: { ...process.env, BUN_BE_BUN: '1' }, encoding: 'utf8', timeout: TIMEOUT_MS, maxBuffer: 1 << 24 });
  if (result.status !== 0) {
    // The runner's own message, not the tail of Bun's report of it (a source excerpt).
    const stderr = result.stderr ?? '';
    const at = stderr.indexOf('opencode run failed');
    throw new Error(`plugin-cost-run failed (${result.status}): ${at >= 0 ? stderr.slice(at, at + 800) : stderr.slice(-800)}`);
  }
  const { withPlugin, without } = JSON.parse(result.stdout.trim().split('\n').pop());
  const med = (runs, field) => median(runs.map((r) => r[field]));
  const history = process.env.PLUGIN_COST_SEPARATE_HISTORY === '1' ? 'separate histories' : 'one shared history';
  const label = `opencode run, 3 bash calls, paired, median of ${rounds}, ${history}`;
  const rssWith = med(withPlugin, 'rssMiB');
  const rssWithout = med(without, 'rssMiB');
  return [
    { name: 'plugin cost: wall', metric: label, value: med(withPlugin, 'wallMs'), unit: 'ms', baseline: med(without, 'wallMs'), target: `<= ${TARGETS.wall}x` },
    { name: 'plugin cost: CPU', metric: `${label}; OpenCode and the children it waited for`, value: med(withPlugin, 'cpuMs'), unit: 'ms', baseline: med(without, 'cpuMs'), target: `<= ${TARGETS.cpu}x` },
    { name: 'plugin cost: peak RSS', metric: label, value: rssWith, unit: 'MiB', baseline: rssWithout, target: `<= +${TARGETS.rssMiB} MiB`, pass: rssWith - rssWithout <= TARGETS.rssMiB },
    { name: 'plugin cost: import processes per run', metric: `${label}; import-child.js seen in /proc during the runs with the plugin`, value: withPlugin.reduce((sum, r) => sum + (r.importChildren ?? 0), 0) / withPlugin.length, unit: '', pass: true },
  ].map((row) => (row.pass === undefined ? { ...row, pass: row.value / row.baseline <= (row.name.endsWith('wall') ? TARGETS.wall : TARGETS.cpu) } : row));
}

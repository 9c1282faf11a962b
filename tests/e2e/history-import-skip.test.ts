/**
 * The plugin's history import at OpenCode's start, against the real `opencode` binary: when every
 * session since the last import was tracked live, no import process starts (watched in /proc, as
 * `ps` would show it) and OpenCode's log says so; running the import process anyway then changes no
 * report. A session OpenCode ran without the plugin is still imported at the next start.
 */
import { describe, expect, it, jest } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { LIVE_SPAN_SLACK_MS } from '../../src/core/backfill/replay-ledger.js';
import { resolveConfig } from '../../src/core/config.js';
import type { ReportRow } from '../../src/core/report/report.js';
import { encodeJob, IMPORT_JOB_ENV } from '../../src/opencode/history/import-job.js';
import { bash, say, scriptByPrompt, startFakeModel } from '../helpers/fake-model.js';
import type { FakeModel } from '../helpers/fake-model.js';
import { cliJson, makeRepo, makeSandbox, OPENCODE_BIN, opencodeConfig, removeSandbox, ROOT, runBounded, runCli, runOpencode } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';

jest.setTimeout(900_000);

const POLL_MS = 20;
/** How long a run's import process may outlive OpenCode (it is not waited for): bounded. */
const CHILD_GONE_TIMEOUT_MS = 60_000;
const SKIPPED_LINE = "OpenCode's history holds nothing new to import";
/**
 * Between two sessions: longer than the slack within which the import takes an untracked session of the
 * same setup for a copy of a live one (LIVE_SPAN_SLACK_MS, replay-ledger.ts), as a user's sessions are apart.
 */
const BETWEEN_SESSIONS_MS = LIVE_SPAN_SLACK_MS + 1500;

interface ReportJson {
  rows: ReportRow[];
  totals: ReportRow;
}

/** Every process running import-child.js for this sandbox (its job names the sandbox's folders), as /proc shows it. */
function importChildren(sandbox: Sandbox): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('import-child.js')) continue;
      if (fs.readFileSync(`/proc/${entry}/environ`, 'utf8').includes(sandbox.root)) pids.push(Number(entry));
    } catch {
      // The process ended while it was looked at.
    }
  }
  return pids;
}

/** Watches /proc while `work` runs; resolves with the import processes seen. */
async function watchingImportChildren<T>(sandbox: Sandbox, work: () => Promise<T>): Promise<{ result: T; seen: Set<number> }> {
  const seen = new Set<number>();
  const timer = setInterval(() => {
    for (const pid of importChildren(sandbox)) seen.add(pid);
  }, POLL_MS);
  try {
    const result = await work();
    return { result, seen };
  } finally {
    clearInterval(timer);
  }
}

/** Waits (bounded) until no import process of this sandbox runs: it may outlive the OpenCode that started it. */
async function importChildrenGone(sandbox: Sandbox): Promise<void> {
  const deadline = Date.now() + CHILD_GONE_TIMEOUT_MS;
  while (importChildren(sandbox).length > 0) {
    if (Date.now() > deadline) throw new Error('the import process did not end');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function configure(sandbox: Sandbox, model: FakeModel, withPlugin: boolean): void {
  const config = opencodeConfig({ modelUrl: model.url });
  if (!withPlugin) config.plugin = [];
  fs.writeFileSync(path.join(sandbox.configDir, 'opencode.json'), JSON.stringify(config, null, 2));
}

async function run(sandbox: Sandbox, repo: string, model: FakeModel, withPlugin: boolean, prompt: string): Promise<{ stderr: string; children: number }> {
  configure(sandbox, model, withPlugin);
  const { result, seen } = await watchingImportChildren(sandbox, () => runOpencode(sandbox, repo, prompt, { timeoutMs: 300_000 }));
  expect(result.code).toBe(0);
  await importChildrenGone(sandbox);
  return { stderr: result.stderr, children: seen.size };
}

/** `report --json` exactly as printed. */
function reportText(sandbox: Sandbox): string {
  const result = runCli(sandbox, ['report', '--json']);
  if (result.code !== 0) throw new Error(`report failed: ${result.stderr}`);
  return result.stdout;
}

function newSandbox(): Sandbox {
  const sandbox = makeSandbox('agent-tracker-import-skip-');
  delete sandbox.env.AGENT_TRACKER_IMPORT_HISTORY; // as a user has it: the plugin imports OpenCode's history
  return sandbox;
}

const SCRIPT = scriptByPrompt({
  'FIRST-WORK': [bash('echo one > one.txt && git add one.txt && git commit -m "add one"'), bash('ls'), say('First.')],
  'SECOND-WORK': [bash('echo two > two.txt'), say('Second.')],
  'UNTRACKED-WORK': [bash('echo three > three.txt'), bash('cat three.txt'), say('Untracked.')],
  'THIRD-WORK': [bash('ls'), say('Third.')],
});

describe("the plugin's history import at OpenCode's start", () => {
  it('starts no import process when every earlier session was tracked live, and loses nothing by it', async () => {
    const sandbox = newSandbox();
    const model = await startFakeModel(SCRIPT);
    try {
      const repo = makeRepo(sandbox);
      const first = await run(sandbox, repo, model, true, 'FIRST-WORK: two commands');
      const second = await run(sandbox, repo, model, true, 'SECOND-WORK: one command');
      expect([first.children, second.children]).toEqual([0, 0]);
      expect(second.stderr).toContain(SKIPPED_LINE); // the check ran at this start, and found the first session recorded

      // The import process run anyway, as the plugin would have started it: it finds nothing to add.
      const before = reportText(sandbox);
      const report = JSON.parse(before) as ReportJson;
      expect(report.totals).toMatchObject({ sessions: 2, liveSessions: 2, backfilledSessions: 0, toolCalls: 3, commits: 1 });
      const job = encodeJob(path.join(sandbox.env.XDG_DATA_HOME as string, 'opencode'), repo, Date.now(), resolveConfig({ env: sandbox.env, home: sandbox.home }));
      const child = await runBounded(OPENCODE_BIN, [path.join(ROOT, 'dist', 'opencode', 'history', 'import-child.js')], {
        cwd: repo,
        env: { ...sandbox.env, BUN_BE_BUN: '1', [IMPORT_JOB_ENV]: job },
        timeoutMs: 120_000,
      });
      // It reads both sessions again (the watermark the check moved is behind the second one) and adds
      // nothing from them: no session counts as imported, and the report is what it was.
      expect(JSON.parse(child.stdout.trim().split('\n').pop() ?? '')).toMatchObject({ ok: true, sessions: 0 });
      expect(reportText(sandbox)).toBe(before);
    } finally {
      await model.close();
      removeSandbox(sandbox);
    }
  });

  it('still imports a session OpenCode ran without the plugin, at the next start with it', async () => {
    const sandbox = newSandbox();
    const model = await startFakeModel(SCRIPT);
    try {
      const repo = makeRepo(sandbox);
      await run(sandbox, repo, model, true, 'FIRST-WORK: two commands');
      await pause(BETWEEN_SESSIONS_MS);
      await run(sandbox, repo, model, false, 'UNTRACKED-WORK: two commands');
      await pause(BETWEEN_SESSIONS_MS);
      const third = await run(sandbox, repo, model, true, 'THIRD-WORK: one command');
      expect(third.stderr).not.toContain(SKIPPED_LINE);
      expect(third.children).toBe(1);
      // The untracked session's two commands are counted, as backfilled work, beside the two live sessions.
      expect(cliJson<ReportJson>(sandbox, ['report']).totals).toMatchObject({ sessions: 3, liveSessions: 2, backfilledSessions: 1, toolCalls: 5, commits: 1 });
    } finally {
      await model.close();
      removeSandbox(sandbox);
    }
  });
});

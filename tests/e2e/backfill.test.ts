/**
 * Backfill against the real `opencode` binary: sessions run WITHOUT the plugin (commits, a push, a
 * failing tool call, two agents), then `agent-tracker backfill`; the report must equal OpenCode's
 * own store and `opencode stats` exactly. Then the plugin is enabled for one more session: live and
 * backfilled records add up with nothing counted twice, and backfill run again adds nothing.
 */
import { describe, expect, it, jest } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import type { BackfillSummary } from '../../src/core/backfill/summary.js';
import type { ReportRow } from '../../src/core/report/report.js';
import { bash, call, say, scriptByPrompt, startFakeModel } from '../helpers/fake-model.js';
import type { FakeModel } from '../helpers/fake-model.js';
import { cliJson, makeRepo, makeSandbox, OPENCODE_BIN, opencodeConfig, removeSandbox, runBounded, runOpencode } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';

jest.setTimeout(1_500_000);

interface ReportJson {
  source: string | null;
  rows: ReportRow[];
  totals: ReportRow;
}

/** Per million tokens, so the fake model's fixed usage gives a cost that is not zero. */
const MODEL_COST = { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 };

function writeConfig(sandbox: Sandbox, model: FakeModel, withPlugin: boolean): void {
  const config = opencodeConfig({ modelUrl: model.url });
  const provider = config.provider as { fake: { models: Record<string, Record<string, unknown>> } };
  const fakeModel = provider.fake.models['fake-model'];
  if (fakeModel) fakeModel.cost = MODEL_COST;
  if (!withPlugin) config.plugin = [];
  fs.writeFileSync(path.join(sandbox.configDir, 'opencode.json'), JSON.stringify(config, null, 2));
}

/** The host's own sums, through its own SQLite (`opencode db`). */
async function storeSums(sandbox: Sandbox, cwd: string): Promise<Record<string, number>> {
  const sql =
    "SELECT (SELECT count(*) FROM session) AS sessions, count(*) AS messages, " +
    "sum(json_extract(data,'$.tokens.input')) AS input, sum(json_extract(data,'$.tokens.output')) AS output, " +
    "sum(json_extract(data,'$.tokens.reasoning')) AS reasoning, sum(json_extract(data,'$.tokens.cache.read')) AS cacheRead, " +
    "sum(json_extract(data,'$.tokens.cache.write')) AS cacheWrite, sum(json_extract(data,'$.cost')) AS cost, " +
    "(SELECT count(*) FROM part WHERE json_extract(data,'$.type') = 'tool' AND json_extract(data,'$.state.status') IN ('completed','error')) AS toolCalls " +
    "FROM message WHERE json_extract(data,'$.role') = 'assistant'";
  const result = await runBounded(OPENCODE_BIN, ['db', '--format', 'json', sql], { cwd, env: sandbox.env, timeoutMs: 120_000 });
  if (result.code !== 0) throw new Error(`opencode db failed: ${result.stderr}`);
  const [row] = JSON.parse(result.stdout) as Record<string, number>[];
  if (!row) throw new Error('opencode db returned no row');
  return row;
}

/** `opencode stats --models`: the overview, token and per-model lines, and the tool usage counts. */
async function opencodeStats(sandbox: Sandbox, cwd: string): Promise<{ figures: Record<string, number>; tools: Record<string, number> }> {
  const result = await runBounded(OPENCODE_BIN, ['stats', '--models'], { cwd, env: sandbox.env, timeoutMs: 120_000 });
  if (result.code !== 0) throw new Error(`opencode stats failed: ${result.stderr}`);
  const figures: Record<string, number> = {};
  const tools: Record<string, number> = {};
  for (const line of result.stdout.split('\n')) {
    const figure = /│\s*([A-Za-z][A-Za-z /]*?)\s{2,}\$?([\d,.]+)\s*│/.exec(line);
    if (figure?.[1] && figure[2]) figures[figure[1].trim()] ??= Number(figure[2].replace(/,/g, ''));
    const tool = /│\s*([a-z_-]+)\s+█*\s*(\d+) \(/.exec(line);
    if (tool?.[1] && tool[2]) tools[tool[1]] = Number(tool[2]);
  }
  return { figures, tools };
}

describe('backfill of sessions OpenCode ran without the plugin', () => {
  it('imports them exactly as OpenCode counted them, then adds a live session without counting anything twice', async () => {
    const sandbox = makeSandbox();
    delete sandbox.env.AGENT_TRACKER_IMPORT_HISTORY; // the plugin's own background import is part of what is tested here
    const model = await startFakeModel(
      scriptByPrompt({
        'BUILD-WORK': [
          bash('echo one > a.txt && git add a.txt && git commit -m "add a"'),
          call('read', { filePath: 'does-not-exist.txt' }),
          bash('git push origin main'),
          say('Built.'),
        ],
        'PLAN-WORK': [call('read', { filePath: 'README.md' }), say('Planned.')],
        'MORE-WORK': [bash('echo two > b.txt && git add b.txt && git commit -m "add b"'), say('More.')],
        'LIVE-WORK': [bash('echo live > c.txt && git add c.txt && git commit -m "add c"'), bash('ls'), say('Live.')],
      }),
    );
    try {
      const repo = makeRepo(sandbox, 'history');
      writeConfig(sandbox, model, false);
      for (const [prompt, agent] of [['BUILD-WORK: commit and push', undefined], ['PLAN-WORK: look around', 'plan'], ['MORE-WORK: one more commit', undefined]] as const) {
        const run = await runOpencode(sandbox, repo, prompt, { timeoutMs: 400_000, ...(agent ? { agent } : {}) });
        expect(run.code).toBe(0);
      }
      expect(fs.existsSync(sandbox.dbPath)).toBe(false); // the plugin really was not there

      const summary = cliJson<BackfillSummary>(sandbox, ['backfill']);
      expect(summary).toMatchObject({ sessions: 3, commits: 2, pushes: 1, skipped: {} });
      const report = cliJson<ReportJson>(sandbox, ['report']);
      const sums = await storeSums(sandbox, repo);
      const stats = await opencodeStats(sandbox, repo);
      const totals = report.totals;
      expect(totals).toMatchObject({
        sessions: sums.sessions,
        backfilledSessions: sums.sessions,
        liveSessions: 0,
        messages: sums.messages,
        tokensInput: sums.input,
        tokensOutput: sums.output,
        tokensReasoning: sums.reasoning,
        tokensCacheRead: sums.cacheRead,
        tokensCacheWrite: sums.cacheWrite,
        toolCalls: sums.toolCalls,
        commits: 2,
        pushes: 1,
      });
      expect(totals.toolFailures).toBeGreaterThanOrEqual(1);
      expect(totals.cost).toBeCloseTo(sums.cost ?? Number.NaN, 12);
      expect(totals.cost).toBeGreaterThan(0);
      expect(stats.figures).toMatchObject({ Sessions: totals.sessions, Input: totals.tokensInput, Output: totals.tokensOutput, 'Cache Read': totals.tokensCacheRead, 'Cache Write': totals.tokensCacheWrite });
      expect(Object.values(stats.tools).reduce((a, b) => a + b, 0)).toBe(totals.toolCalls);
      expect(stats.tools).toMatchObject({ bash: 3, read: 2 });
      expect(report.rows.map((row) => row.agent).sort()).toEqual(['build', 'plan']);
      // Both commits are in the repository, made while OpenCode's calls ran: recorded, and credited to build.
      const status = cliJson<{ agents: { id: string; commits: number }[] }>(sandbox, ['status', '--json']);
      expect(status.agents.find((agent) => agent.id === 'build')?.commits).toBe(2);

      // Again, from the watermark: `opencode stats` above wrote OpenCode's files, so the store is read,
      // but only from the newest session on (read again at the watermark's millisecond): it adds
      // nothing, and the summary, which counts what a run added, says so.
      const again = cliJson<BackfillSummary>(sandbox, ['backfill']);
      expect(again.source).not.toContain('unchanged since the last import');
      expect(again).toMatchObject({ sessions: 0, messages: 0, toolCalls: 0, commits: 0, pushes: 0 });
      expect(cliJson<ReportJson>(sandbox, ['report']).totals).toEqual(totals);

      // The plugin on, one more session: live, added once, backfilled ones untouched.
      writeConfig(sandbox, model, true);
      const live = await runOpencode(sandbox, repo, 'LIVE-WORK: commit live', { timeoutMs: 400_000 });
      expect(live.code).toBe(0);
      cliJson<BackfillSummary>(sandbox, ['backfill']);
      const after = cliJson<ReportJson>(sandbox, ['report']);
      const sumsAfter = await storeSums(sandbox, repo);
      expect(after.totals).toMatchObject({
        sessions: sumsAfter.sessions,
        liveSessions: 1,
        backfilledSessions: 3,
        messages: sumsAfter.messages,
        tokensInput: sumsAfter.input,
        tokensOutput: sumsAfter.output,
        toolCalls: sumsAfter.toolCalls,
        commits: 3,
        pushes: 1,
      });
      expect(after.totals.cost).toBeCloseTo(sumsAfter.cost ?? Number.NaN, 12);
      expect(cliJson<ReportJson>(sandbox, ['report', '--source', 'live']).totals).toMatchObject({ sessions: 1, commits: 1, toolCalls: 2 });
      expect(cliJson<ReportJson>(sandbox, ['report', '--source', 'backfill']).totals).toMatchObject({ sessions: 3, commits: 2, pushes: 1 });
    } finally {
      await model.close();
      removeSandbox(sandbox);
    }
  });
});

/**
 * One answer on every surface. Real `opencode` sessions (two models; a provider that restarts its
 * tool-call ids in every response; a failing command; commits, one of them later reverted; the user's
 * grades, one of them -1) and then every way a user or an agent reads the result: `report --json`,
 * `--csv`, the HTML page's tables, the MCP `report` tool, `status --json`, and the `recommend-setup`
 * agent tool against `recommend`. Each must give the same figures.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { bash, call, say, scriptByPrompt, startFakeModel } from '../helpers/fake-model.js';
import type { FakeModel } from '../helpers/fake-model.js';
import { CLI, cliJson, git, makeRepo, makeSandbox, removeSandbox, runCli, runOpencode, toolParts, writeGlobalConfig } from '../helpers/sandbox.js';
import type { Sandbox, StatusJson } from '../helpers/sandbox.js';

jest.setTimeout(400_000);

type Row = Record<string, string | number | boolean | null>;
interface ReportJson {
  rows: Row[];
  totals: Row;
}

const MODEL_A = 'fake/fake-model';
const MODEL_B = 'fake/fake-model-b';

function commitStep(file: string, message: string) {
  return bash(`echo ${file} > ${file}.txt && git add ${file}.txt && git commit -q -m "${message}"`);
}

/** CSV (RFC 4180, no quoted newlines in these rows) to objects, empty cells as null, numbers as numbers. */
function parseCsv(text: string): Row[] {
  const [header, ...lines] = text.trimEnd().split('\r\n');
  const split = (line: string) => [...line.matchAll(/("([^"]|"")*"|[^,]*)(,|$)/g)].map((m) => m[1] ?? '').slice(0, (header ?? '').split(',').length);
  const names = split(header ?? '');
  return lines.map((line) => {
    const cells = split(line);
    return Object.fromEntries(names.map((name, i) => {
      const cell = (cells[i] ?? '').replace(/^"(.*)"$/, '$1').replace(/""/g, '"');
      if (cell === '') return [name, null];
      if (cell === 'true' || cell === 'false') return [name, cell === 'true'];
      return [name, /^-?\d+(\.\d+)?(e[-+]?\d+)?$/i.test(cell) ? Number(cell) : cell];
    }));
  });
}

/** The setup tables of the HTML page: per agent and model, the value text of each column. */
function htmlTables(html: string): Map<string, Record<string, string>> {
  const found = new Map<string, Record<string, string>>();
  for (const table of html.matchAll(/<table class="setup-group" data-group="([^"]*)">([\s\S]*?)<\/table>/g)) {
    const agent = table[1] ?? '';
    const titles = [...(table[2] ?? '').matchAll(/<th scope="col"[^>]*>([^<]*)<\/th>/g)].map((m) => m[1] ?? '').slice(1);
    for (const row of (table[2] ?? '').matchAll(/<tr><th scope="row">([^<]*)<\/th>(.*?)<\/tr>/g)) {
      const values = [...(row[2] ?? '').matchAll(/<td[^>]*>(?:<span class="value">([^<]*)<\/span>|(n\/a))/g)].map((m) => m[1] ?? m[2] ?? '');
      found.set(`${agent} ${row[1]}`, Object.fromEntries(titles.map((title, i) => [title, values[i] ?? ''])));
    }
  }
  return found;
}

const percent = (value: unknown) => (value === null ? 'n/a' : `${((value as number) * 100).toFixed(1)}%`);
const decimal = (value: unknown) => (value === null ? 'n/a' : (value as number).toFixed(2));

describe('one answer on every surface', () => {
  let sandbox: Sandbox;
  let model: FakeModel;
  let repo: string;
  let report: ReportJson;
  let recommendToolOutput = '';
  let recommendCliBefore = '';

  beforeAll(async () => {
    sandbox = makeSandbox('agent-tracker-one-answer-');
    model = await startFakeModel(
      scriptByPrompt({
        'WORK-A': [bash('ls'), bash('false'), commitStep('alpha', 'feat: alpha'), commitStep('beta', 'feat: beta'), bash('git log --oneline'), say('Done.')],
        'WORK-B': [bash('ls'), commitStep('gamma', 'feat: gamma'), bash('cat missing-file'), say('Done.')],
        'ASK-RECOMMEND': [call('recommend-setup', {}), say('That is the recommendation.')],
      }),
      { lifetimeMs: 380_000, maxRequests: 200, callIds: 'per-response' },
    );
    const provider = {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Fake',
        options: { baseURL: model.url, apiKey: 'x' },
        models: {
          'fake-model': { name: 'Fake model', tool_call: true, limit: { context: 128000, output: 4096 } },
          'fake-model-b': { name: 'Fake model B', tool_call: true, limit: { context: 128000, output: 4096 } },
        },
      },
    };
    writeGlobalConfig(sandbox, { modelUrl: model.url, extra: { provider } });
    repo = makeRepo(sandbox, 'shop');
    const a = await runOpencode(sandbox, repo, 'WORK-A: list, fail once, commit twice');
    expect(a.code).toBe(0);
    const b = await runOpencode(sandbox, repo, 'WORK-B: commit once, read a missing file', { extraArgs: ['--model', MODEL_B] });
    expect(b.code).toBe(0);
    const hashes = git(repo, ['log', '--format=%H %s'], sandbox.env).trim().split('\n').map((line) => line.split(' '));
    const hashOf = (subject: string) => hashes.find((parts) => parts.slice(1).join(' ') === subject)?.[0] ?? '';
    // The user reverts alpha and grades: alpha -1, gamma 5.
    git(repo, ['revert', '--no-edit', hashOf('feat: alpha')], sandbox.env);
    for (const [subject, grade] of [['feat: alpha', '-1'], ['feat: gamma', '5']] as const) {
      const graded = runCli(sandbox, ['grade', hashOf(subject), grade, '--project', repo], {}, repo);
      expect(graded.stderr).toBe('');
      expect(graded.code).toBe(0);
    }
    // The tool answers inside a session; the CLI right before it, on the same record.
    recommendCliBefore = runCli(sandbox, ['recommend', '--project', repo], {}, repo).stdout;
    const asked = await runOpencode(sandbox, repo, 'ASK-RECOMMEND: which setup should I use?', { extraArgs: ['--model', MODEL_B] });
    expect(asked.code).toBe(0);
    recommendToolOutput = toolParts(asked).find((part) => part.tool === 'recommend-setup')?.state.output ?? '';
    report = cliJson<ReportJson>(sandbox, ['report', '--project', repo]);
  });

  afterAll(async () => {
    await model.close();
    removeSandbox(sandbox);
  });

  it('counts what happened, by the host\'s own ids: every tool call of a provider that reuses call ids, the failures, commits, the revert and the grades', () => {
    const byModel = new Map(report.rows.map((row) => [row.model, row]));
    const a = byModel.get(MODEL_A);
    const b = byModel.get(MODEL_B);
    // Counted by hand from the scripts: A made 5 bash calls (one `false`); B 3 (one reading a missing
    // file) and, in the session that asked, the recommend-setup call.
    expect([a?.toolCalls, a?.toolFailures, a?.commits]).toEqual([5, 1, 2]);
    expect([b?.toolCalls, b?.toolFailures, b?.commits]).toEqual([4, 1, 1]);
    expect([a?.revertRate, a?.userGradedCommits, a?.meanUserGrade]).toEqual([1 / 2, 1, -1]);
    expect([b?.revertRate, b?.userGradedCommits, b?.meanUserGrade]).toEqual([0, 1, 5]);
  });

  it('gives the same rows in --csv as in --json, every field of every row', () => {
    const csv = runCli(sandbox, ['report', '--project', repo, '--csv']);
    expect(csv.code).toBe(0);
    const rows = parseCsv(csv.stdout);
    expect(rows).toEqual(report.rows.map((row) => Object.fromEntries(Object.entries(row).map(([name, value]) => [name, value === '' ? null : value]))));
  });

  it('shows the same figures in the HTML page\'s tables', () => {
    const page = path.join(sandbox.root, 'report.html');
    const written = runCli(sandbox, ['report', '--project', repo, '--html', page], {}, repo);
    expect(written.code).toBe(0);
    const tables = htmlTables(fs.readFileSync(page, 'utf8'));
    for (const row of report.rows) {
      const cells = tables.get(`${row.agent} ${row.model}`);
      expect(cells).toBeDefined();
      expect(cells?.commits).toBe(String(row.commits));
      expect(cells?.['mean user grade']).toBe(decimal(row.meanUserGrade));
      expect(cells?.['commits reverted']).toBe(percent(row.revertRate));
      expect(cells?.['tool calls failing']).toBe(percent(row.failureRate));
      expect(cells?.['mean self-grade']).toBe(decimal(row.meanSelfGrade));
    }
  });

  it('answers the MCP report tool with exactly report --json', async () => {
    const client = new Client({ name: 'one-answer-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], env: { ...sandbox.env } as Record<string, string>, cwd: repo, stderr: 'pipe' }));
    try {
      const result = (await client.callTool({ name: 'report', arguments: { project: repo } })) as { content: { text: string }[] };
      const viaMcp = JSON.parse(result.content[0]?.text ?? '{}') as ReportJson;
      expect(viaMcp.rows).toEqual(report.rows);
      expect(viaMcp.totals).toEqual(report.totals);
    } finally {
      await client.close();
    }
  });

  it('gives status the same commits, sessions and tool counts as report --by agent', () => {
    const status = cliJson<StatusJson>(sandbox, ['status']);
    const byAgent = cliJson<ReportJson>(sandbox, ['report', '--by', 'agent']);
    for (const agent of status.agents) {
      const row = byAgent.rows.find((candidate) => candidate.agent === agent.id);
      expect([agent.commits, agent.sessions, agent.toolCalls, agent.toolFailures, agent.pushes]).toEqual([row?.commits, row?.sessions, row?.toolCalls, row?.toolFailures, row?.pushes]);
    }
    expect(status.agents.find((agent) => agent.id === 'build')?.models.sort()).toEqual([MODEL_A, MODEL_B]);
  });

  it('gives the recommend-setup agent tool the same answer as agent-tracker recommend', () => {
    expect(recommendToolOutput).not.toBe('');
    expect(recommendToolOutput.trim()).toBe(recommendCliBefore.trim());
  });
});

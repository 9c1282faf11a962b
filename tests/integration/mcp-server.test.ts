/**
 * The `agent-tracker mcp` server over stdio, driven by the MCP SDK's own client: it lists its tools,
 * every tool answers with the same JSON as the CLI command of the same name, bad arguments get a
 * tool error (the server keeps serving), and nothing a tool does changes the database.
 * Runs the built CLI: needs `npm run build` first.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { resolveConfig } from '../../src/core/config.js';
import { Store } from '../../src/core/store/store.js';
import { CLI, makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';
import { block, recordHistory } from '../helpers/synthetic-history.js';
import { treeHash } from '../helpers/compare-files.js';
import { termIndexer } from '../../src/core/search/indexer.js';

// Each tool call runs a CLI command in the server: on a loaded machine that takes seconds.
jest.setTimeout(120_000);

interface TextResult {
  content: { type: string; text: string }[];
  isError?: boolean;
}

describe('agent-tracker mcp (stdio, SDK client)', () => {
  let sandbox: Sandbox;
  let project: string;
  let client: Client;

  beforeAll(async () => {
    sandbox = makeSandbox();
    project = path.join(sandbox.root, 'shop');
    fs.mkdirSync(project, { recursive: true });
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'shop', dependencies: { express: '^4.19.0' } }));
    expect(runCli(sandbox, ['init-project', project]).code).toBe(0);
    const config = resolveConfig({ options: {}, env: {}, home: sandbox.home });
    const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
    try {
      recordHistory(
        [
          block({ agent: 'build', model: 'fake/strong', project, sessions: 6, commitsPerSession: 3, grades: [[5, 5], [2, 2]] }),
          block({ agent: 'build', model: 'fake/weak', project, sessions: 6, commitsPerSession: 3, grades: [[-1, -1], [1, 1]], bugs: 4 }),
        ],
        { store, config },
      );
    } finally {
      store.close();
    }
    client = new Client({ name: 'agent-tracker-test', version: '1.0.0' });
    const env = Object.fromEntries(Object.entries(sandbox.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], env, cwd: project, stderr: 'pipe' }));
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    removeSandbox(sandbox);
  });

  async function callTool(name: string, args: Record<string, unknown>): Promise<TextResult> {
    return (await client.callTool({ name, arguments: args })) as TextResult;
  }

  function cliJsonText(args: string[]): unknown {
    const result = runCli(sandbox, [...args, '--json'], {}, project);
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout);
  }

  it('lists exactly the read-only tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['prior_art', 'project_profile', 'recommend', 'report', 'status']);
    for (const tool of tools) expect(tool.annotations?.readOnlyHint).toBe(true);
  });

  it('answers report, recommend, status and prior_art with the JSON of the CLI', async () => {
    const cases: [string, Record<string, unknown>, string[]][] = [
      ['report', { project }, ['report', '--project', project]],
      ['report', { by: 'model' }, ['report', '--by', 'model']],
      ['recommend', { project }, ['recommend', '--project', project]],
      // The cost preference, as the CLI and the OpenCode tool take it.
      ['recommend', { project, prefer: 'cheap' }, ['recommend', '--project', project, '--prefer', 'cheap']],
      ['status', {}, ['status']],
      ['status', { agent: 'build' }, ['status', 'build']],
      ['prior_art', { task: 'commit work', project, max: 3 }, ['prior-art', 'commit work', '--project', project, '--max', '3']],
      // `text`, its older name, is still taken.
      ['prior_art', { text: 'commit work', project, max: 3 }, ['prior-art', 'commit work', '--project', project, '--max', '3']],
    ];
    for (const [tool, args, cli] of cases) {
      const result = await callTool(tool, args);
      expect(result.isError).toBeUndefined();
      const answer = JSON.parse(result.content[0]?.text ?? '') as Record<string, unknown>;
      const expected = cliJsonText(cli) as Record<string, unknown>;
      // The project profile is classified at call time: its classification time is the only difference.
      if (tool === 'recommend') {
        delete (answer.project as Record<string, unknown>).classifiedAt;
        delete (expected.project as Record<string, unknown>).classifiedAt;
      }
      expect(answer).toEqual(expected);
    }
    const recommend = JSON.parse((await callTool('recommend', { project })).content[0]?.text ?? '') as { recommendations: { model: string }[] };
    expect(recommend.recommendations[0]?.model).toBe('fake/strong');
  });

  it('classifies a project without storing it', async () => {
    const other = path.join(sandbox.root, 'tool');
    fs.mkdirSync(other);
    fs.writeFileSync(path.join(other, 'Cargo.toml'), '[package]\nname = "tool"\nversion = "0.1.0"\n');
    const before = treeHash(path.dirname(sandbox.dbPath));
    const result = await callTool('project_profile', { project: other });
    const answer = JSON.parse(result.content[0]?.text ?? '') as { project: { language: string; path: string }; similar: unknown[] };
    expect(answer.project).toMatchObject({ language: 'rust', path: other });
    expect(treeHash(path.dirname(sandbox.dbPath))).toEqual(before);
    expect((cliJsonText(['doctor']) as { counts: { projects: number } }).counts.projects).toBe(1);
  });

  it('answers bad arguments with a tool error and keeps serving', async () => {
    const bad: [string, Record<string, unknown>][] = [
      ['prior_art', {}],
      ['prior_art', { task: 'x', max: 0 }],
      ['prior_art', { task: '' }],
      ['report', { by: 'planet' }],
      ['report', { since: 'yesterday-ish' }],
      ['status', { agent: 'nobody' }],
      ['recommend', { project: path.join(sandbox.root, 'missing') }],
      ['recommend', { project, prefer: 'fast' }],
    ];
    for (const [tool, args] of bad) {
      const result = await callTool(tool, args);
      expect(result.isError).toBe(true);
      expect(result.content[0]?.text).toMatch(/\S/);
    }
    const after = await callTool('status', {});
    expect(after.isError).toBeUndefined();
  });
});

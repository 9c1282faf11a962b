/**
 * The MCP server in the real `opencode` binary, with the tracker's plugin NOT loaded: `agent-tracker
 * setup --mcp opencode` registers the server in the sandbox's global config, OpenCode starts it as
 * a local MCP server and lists its tools to the (fake) model, and the model's `recommend` call
 * gets the tracker's answer.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { resolveConfig } from '../../src/core/config.js';
import { Store } from '../../src/core/store/store.js';
import { say, startFakeModel } from '../helpers/fake-model.js';
import type { ChatRequest, FakeModel, Step } from '../helpers/fake-model.js';
import { makeRepo, makeSandbox, opencodeConfig, removeSandbox, runCli, runOpencode } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';
import { block, recordHistory } from '../helpers/synthetic-history.js';
import { termIndexer } from '../../src/core/search/indexer.js';

jest.setTimeout(300_000);

function toolNames(request: ChatRequest): string[] {
  return (request.tools ?? []).map((tool) => (tool as { function?: { name?: string } }).function?.name ?? '');
}

describe('the MCP server inside real OpenCode', () => {
  let sandbox: Sandbox;
  let model: FakeModel;
  let repo: string;

  beforeAll(async () => {
    sandbox = makeSandbox();
    repo = makeRepo(sandbox, 'shop');
    fs.writeFileSync(path.join(repo, 'package.json'), JSON.stringify({ name: 'shop', dependencies: { express: '^4.19.0' } }));
    const config = resolveConfig({ options: {}, env: {}, home: sandbox.home });
    const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
    try {
      recordHistory(
        [
          block({ agent: 'build', model: 'fake/strong', project: repo, sessions: 8, commitsPerSession: 3, grades: [[5, 5], [2, 5]] }),
          block({ agent: 'build', model: 'fake/weak', project: repo, sessions: 8, commitsPerSession: 3, grades: [[-1, -1], [1, -1]], bugs: 5 }),
        ],
        { store, config },
      );
    } finally {
      store.close();
    }
    // The model calls whichever listed tool is the tracker's recommend, with this project.
    const script = ({ userText, step, request }: { userText: string; step: number; request: ChatRequest }): Step => {
      if (!userText.includes('MCP-TURN') || step > 0) return say('Done.');
      const name = toolNames(request).find((tool) => tool.startsWith('agent-tracker') && tool.endsWith('recommend'));
      return name ? { tools: [{ tool: name, args: { project: repo } }] } : say('No tracker tool listed.');
    };
    model = await startFakeModel(script);
    const withoutPlugin = opencodeConfig({ modelUrl: model.url, extra: { plugin: [] } });
    fs.writeFileSync(path.join(sandbox.configDir, 'opencode.json'), JSON.stringify(withoutPlugin, null, 2));
  });

  afterAll(async () => {
    await model?.close();
    if (sandbox) removeSandbox(sandbox);
  });

  it('is registered by setup --mcp opencode, once', () => {
    const first = runCli(sandbox, ['setup', '--mcp', 'opencode', '--json']);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ client: 'opencode', status: 'changed' });
    const second = runCli(sandbox, ['setup', '--mcp', 'opencode', '--json']);
    expect(JSON.parse(second.stdout)).toMatchObject({ status: 'unchanged' });
    const config = JSON.parse(fs.readFileSync(path.join(sandbox.configDir, 'opencode.json'), 'utf8')) as { mcp: Record<string, { type: string; command: string[] }>; plugin: unknown[] };
    expect(config.mcp['agent-tracker']).toMatchObject({ type: 'local', enabled: true });
    expect(config.mcp['agent-tracker']?.command.slice(-1)).toEqual(['mcp']);
    expect(config.plugin).toEqual([]);
  });

  it('lists the tools to the model and answers its recommend call', async () => {
    const run = await runOpencode(sandbox, repo, 'MCP-TURN: which setup should I use here?');
    expect(run.code).toBe(0);
    const first = model.requests.find((request) => (request.tools ?? []).length > 0);
    const names = toolNames(first as ChatRequest);
    for (const tool of ['report', 'recommend', 'prior_art', 'status', 'project_profile']) {
      expect(names.some((name) => name.startsWith('agent-tracker') && name.endsWith(tool))).toBe(true);
    }
    // The plugin is not loaded: none of its own tools are offered.
    expect(names).not.toContain('agent-status');
    const toolReplies = model.requests.flatMap((request) => request.messages.filter((message) => message.role === 'tool'));
    const answer = toolReplies.map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content))).join('\n');
    expect(answer).toContain('"recommendations"');
    expect(answer).toContain('fake/strong');
    // Reading through MCP recorded nothing: no session was tracked.
    expect(runCli(sandbox, ['report', '--json']).stdout).not.toContain('fake/fake-model');
  });
});

/**
 * Options through the real OpenCode: an unknown option in a project config (a file the agent can
 * write) leaves the tracker on, and a global config edited by anything but `agent-tracker config`
 * keeps the stricter value and says so.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { bash, say, scriptByPrompt, startFakeModel } from '../helpers/fake-model.js';
import type { FakeModel } from '../helpers/fake-model.js';
import { cliJson, makeRepo, makeSandbox, opencodeConfig, removeSandbox, runOpencode, seedConfigDependencies, toolParts, writeGlobalConfig } from '../helpers/sandbox.js';
import type { RunResult, Sandbox } from '../helpers/sandbox.js';

jest.setTimeout(400_000);

const SECRET = 'sk-live-9f8e7d6c5b4a39281706';

function bashPart(run: RunResult) {
  return toolParts(run).find((part) => part.tool === 'bash');
}

describe('options from files an agent can write', () => {
  let sandbox: Sandbox;
  let model: FakeModel;
  let repo: string;
  let unknownOption: RunResult;
  let editedGlobal: RunResult;

  beforeAll(async () => {
    sandbox = makeSandbox('agent-tracker-option-trust-');
    repo = makeRepo(sandbox, 'project');
    fs.writeFileSync(path.join(repo, '.env'), `API_KEY=${SECRET}\n`);
    model = await startFakeModel(
      scriptByPrompt({
        'OPTION-UNKNOWN': [bash('cat .env'), say('Done.')],
        'OPTION-EDITED': [bash('cat .env'), say('Done.')],
      }),
    );
    writeGlobalConfig(sandbox, { modelUrl: model.url });
    // The agent's move: the plugin listed again in the project's config with one option the tracker does not know.
    const projectConfig = opencodeConfig({ modelUrl: model.url, pluginOptions: { trackNothingPlease: true } });
    fs.mkdirSync(path.join(repo, '.opencode'), { recursive: true });
    seedConfigDependencies(path.join(repo, '.opencode'));
    fs.writeFileSync(path.join(repo, '.opencode', 'opencode.json'), JSON.stringify({ plugin: projectConfig.plugin }, null, 2));
    unknownOption = await runOpencode(sandbox, repo, 'OPTION-UNKNOWN: show the settings');
    fs.rmSync(path.join(repo, '.opencode'), { recursive: true });
    // The next move: the global config edited by a script, not through "agent-tracker config".
    writeGlobalConfig(sandbox, { modelUrl: model.url, pluginOptions: { protectEnvFiles: false, haltBlocksTools: false } });
    editedGlobal = await runOpencode(sandbox, repo, 'OPTION-EDITED: show the settings');
  });

  afterAll(async () => {
    await model.close();
    removeSandbox(sandbox);
  });

  it('an unknown option is a warning naming it; the tracker stays on: .env refused, the session recorded', () => {
    expect(unknownOption.code).toBe(0);
    const output = `${unknownOption.stdout}\n${unknownOption.stderr}`;
    expect(output).toMatch(/unknown option \\?"trackNothingPlease\\?"/);
    expect(output).not.toMatch(/off for this session/);
    expect(bashPart(unknownOption)?.state.error).toMatch(/agent-tracker refused bash: "\.env"/);
    expect(output).not.toContain(SECRET);
    // Both sessions (this one and the next) are in the record: tracking was never off.
    const report = cliJson<{ rows: { agent: string; sessions: number; toolCalls: number }[] }>(sandbox, ['report', '--by', 'agent']);
    expect(report.rows.find((row) => row.agent === 'build')?.sessions).toBeGreaterThanOrEqual(2);
  });

  it('a global config edited outside "agent-tracker config": shown, and the stricter value still refuses .env', () => {
    expect(editedGlobal.code).toBe(0);
    const output = `${editedGlobal.stdout}\n${editedGlobal.stderr}`;
    expect(output).toMatch(/option \\?"protectEnvFiles\\?" in the global OpenCode config is false but was pinned/);
    expect(bashPart(editedGlobal)?.state.error).toMatch(/agent-tracker refused bash: "\.env"/);
    expect(output).not.toContain(SECRET);
  });
});

/**
 * One package, both hosts: the same scenario (two tool calls, one of them failing, a commit, the
 * model requests of one turn) run under the real OpenCode 1.18.33 binary and under the version-2 host
 * simulator (tests/helpers/opencode-v2-host.ts, which cites the published version-2 types it follows)
 * gives the same `report --json` row. The version-1 side is measured in this test, not remembered.
 */
import path from 'node:path';
import { describe, expect, it, jest } from '@jest/globals';
import { createSetup } from '../../src/adapters/opencode-v2/setup.js';
import { bash, call, FAKE_USAGE, say } from '../helpers/fake-model.js';
import type { Step } from '../helpers/fake-model.js';
import { useFakeOpencode } from '../helpers/fake-opencode.js';
import { inSandboxEnv } from '../helpers/opencode-v2-env.js';
import { V2Host } from '../helpers/opencode-v2-host.js';
import type { SimStep } from '../helpers/opencode-v2-host.js';
import { cliJson, makeRepo, runOpencode } from '../helpers/sandbox.js';
import { recordingLogger } from '../helpers/temp-store.js';

jest.setTimeout(300_000);

const PROMPT = 'SAME-TURN: add a file, read a missing one, commit';
const SCRIPT: Step[] = [bash('echo one > a.txt'), call('read', { filePath: 'does-not-exist.txt' }), bash('git add a.txt && git commit -q -m "add a"'), say('All done.')];
/** Fields that say when, not what: the two runs happen at different moments. */
const WHEN_FIELDS = ['firstAt', 'lastAt'];

function asSimSteps(steps: readonly Step[]): SimStep[] {
  return steps.map((step) => ('tools' in step ? { tools: step.tools.map((tool) => ({ tool: tool.tool, input: tool.args })) } : { text: step.text }));
}

function withoutWhen(row: Record<string, unknown> | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row ?? {}).filter(([key]) => !WHEN_FIELDS.includes(key)));
}

describe('the same session under OpenCode 1 (real binary) and OpenCode 2 (simulated host)', () => {
  const world = useFakeOpencode({ 'SAME-TURN': SCRIPT });

  it('gives the same report row', async () => {
    const v1Db = path.join(world.sandbox.root, 'v1.lmdb');
    const v1Repo = makeRepo(world.sandbox, 'v1');
    const run = await runOpencode(world.sandbox, v1Repo, PROMPT, { env: { AGENT_TRACKER_DB_PATH: v1Db } });
    expect(run.code).toBe(0);
    const v1 = cliJson<{ rows: Record<string, unknown>[] }>(world.sandbox, ['report', '--db', v1Db]).rows;

    const v2Db = path.join(world.sandbox.root, 'v2.lmdb');
    const v2Repo = makeRepo(world.sandbox, 'v2');
    const logged: { level: string; message: string }[] = [];
    await inSandboxEnv(world.sandbox, v2Db, async () => {
      const host = new V2Host(v2Repo);
      await host.load({ id: 'agent-tracker', setup: createSetup({ project: v2Repo, logger: recordingLogger(logged) }) });
      // The fake model's usage per request is what the version-2 host reports per step.
      await host.turn({
        sessionID: 'ses_parity',
        agent: 'build',
        model: { providerID: 'fake', id: 'fake-model' },
        prompt: PROMPT,
        steps: asSimSteps(SCRIPT),
        usage: { input: FAKE_USAGE.promptTokens, output: FAKE_USAGE.completionTokens, cost: 0 },
      });
      await host.dispose();
    });
    const v2 = cliJson<{ rows: Record<string, unknown>[] }>(world.sandbox, ['report', '--db', v2Db]).rows;

    expect(v1).toHaveLength(1);
    expect(v1[0]).toMatchObject({ agent: 'build', model: 'fake/fake-model', toolCalls: 3, toolFailures: 1, commits: 1 });
    expect(v2.map(withoutWhen)).toEqual(v1.map(withoutWhen));
    expect(logged.filter((line) => line.level === 'error')).toEqual([]);
  });
});

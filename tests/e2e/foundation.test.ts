/**
 * The foundation, proven against the real `opencode` binary driven by a loopback fake model, in
 * throwaway git repositories with a temporary HOME. Everything is checked through the CLI.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { applyAgentOp, DEFAULT_RULES, newAgent } from '../../src/core/rules.js';
import type { AgentOp } from '../../src/core/types.js';
import { bash, call, say, scriptByPrompt, startFakeModel } from '../helpers/fake-model.js';
import type { FakeModel } from '../helpers/fake-model.js';
import { cliJson, git, makeRepo, makeSandbox, removeSandbox, runOpencode, writeGlobalConfig } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';

jest.setTimeout(300_000);

interface StatusJson {
  agents: { id: string; sp: number; xp: number; cs: number; commits: number; bugs: number; halted: boolean; tier: string; toolCalls: number; toolFailures: number; pushes: number }[];
}
interface DoctorJson {
  flushes: number;
  counts: Record<string, number>;
}

/** What the rules give for a sequence of ops on a new agent. */
function expectedAgent(ops: AgentOp[]) {
  const agent = newAgent('x', '', DEFAULT_RULES);
  for (const op of ops) applyAgentOp(agent, op, DEFAULT_RULES);
  return agent;
}

describe('the plugin in a real OpenCode session', () => {
  let sandbox: Sandbox;
  let model: FakeModel;

  beforeAll(async () => {
    sandbox = makeSandbox();
    model = await startFakeModel(
      scriptByPrompt({
        'WORK-TURN': [
          bash('echo one > a.txt'),
          call('read', { filePath: 'does-not-exist.txt' }),
          bash('git add a.txt && git commit -q -m "add a"'),
          bash('echo two > b.txt && git add b.txt && git commit -q -m "add b" && git push -q origin main'),
          say('All done.'),
        ],
        'DELEGATE-TURN': [
          call('task', { description: 'count files', prompt: 'SUBAGENT-WORK: count files', subagent_type: 'general' }),
          say('Delegated.'),
        ],
        'SUBAGENT-WORK': [bash('ls'), bash('ls -a'), say('There are files.')],
      }),
    );
    writeGlobalConfig(sandbox, { modelUrl: model.url });
  });

  afterAll(async () => {
    await model.close();
    removeSandbox(sandbox);
  });

  it('records tool calls, a failure, two commits and a push for the build agent', async () => {
    const repo = makeRepo(sandbox, 'work');
    const run = await runOpencode(sandbox, repo, 'WORK-TURN: add two files, commit each, push');
    expect(run.code).toBe(0);

    const status = cliJson<StatusJson>(sandbox, ['status']);
    const build = status.agents.find((agent) => agent.id === 'build');
    const rules = DEFAULT_RULES;
    const expected = expectedAgent([
      { kind: 'xp', amount: 3 * rules.xpPerToolCall },
      { kind: 'xp', amount: 2 * rules.xpPerCommit },
      { kind: 'xp', amount: rules.xpPerPush },
    ]);
    expect(build).toMatchObject({ sp: expected.sp, xp: expected.xp, commits: 2, toolFailures: 1, pushes: 1, halted: false });
    expect(build?.toolCalls).toBe(4);

    const hashes = git(repo, ['log', '--format=%H', '-n', '2']).trim().split('\n');
    const doctor = cliJson<DoctorJson>(sandbox, ['doctor']);
    expect(doctor.counts.commits).toBe(2);
    expect(doctor.flushes).toBeLessThanOrEqual(1 + 1 + 1);
    expect(doctor.flushes).toBeGreaterThanOrEqual(1);
    expect(hashes).toHaveLength(2);
  });
});

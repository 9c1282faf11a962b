/**
 * The OpenCode 2 adapter under the version-2 host simulator (tests/helpers/opencode-v2-host.ts, which
 * cites the published types it follows): the dual default export loads there, and a session's tool
 * calls, failures, commits, model requests, tokens, turns, guards, tools and `/grade` reach the same
 * records as under version 1. Read back through the built CLI (`npm run build` first).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createSetup } from '../../src/adapters/opencode-v2/setup.js';
import { applyAgentOp, DEFAULT_RULES, newAgent } from '../../src/core/rules.js';
import { Store } from '../../src/core/store/store.js';
import type { AgentOp } from '../../src/core/types.js';
import { maskToolResult } from '../../src/adapters/opencode-v2/mask-result.js';
import { MASKING_FAILED_OUTPUT } from '../../src/opencode/guards/output-mask.js';
import plugin from '../../src/opencode/plugin.js';
import { V2Host } from '../helpers/opencode-v2-host.js';
import { inSandboxEnv } from '../helpers/opencode-v2-env.js';
import { cliJson, git, makeRepo, makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';
import type { Sandbox, StatusJson } from '../helpers/sandbox.js';
import { recordingLogger } from '../helpers/temp-store.js';

jest.setTimeout(60_000);

const MODEL = { providerID: 'fake', id: 'fake-model' };
const USAGE = { input: 120, output: 30, cost: 0.25 };

interface ReportRow {
  agent: string;
  model: string;
  sessions: number;
  toolCalls: number;
  toolFailures: number;
  commits: number;
  tokensInput: number;
  tokensOutput: number;
  cost: number;
}

let sandbox: Sandbox;
beforeAll(() => {
  sandbox = makeSandbox('agent-tracker-v2-');
});
afterAll(() => removeSandbox(sandbox));

/** Loads the adapter into a fresh simulated host on `repo`, runs `drive`, unloads it. */
async function underV2<T>(name: string, repo: string, drive: (host: V2Host) => Promise<T>): Promise<{ result: T; db: string; logged: { level: string; message: string }[] }> {
  const db = path.join(sandbox.root, `${name}.lmdb`);
  const logged: { level: string; message: string }[] = [];
  const result = await inSandboxEnv(sandbox, db, async () => {
    const host = new V2Host(repo);
    await host.load({ id: 'agent-tracker', setup: createSetup({ project: repo, logger: recordingLogger(logged) }) });
    try {
      return await drive(host);
    } finally {
      await host.dispose();
    }
  });
  return { result, db, logged };
}

/** What the rules give for a sequence of ops on a new agent. */
function expectedAgent(ops: AgentOp[]) {
  const agent = newAgent('x', '', DEFAULT_RULES);
  for (const op of ops) applyAgentOp(agent, op, DEFAULT_RULES);
  return agent;
}

function reportRows(db: string): ReportRow[] {
  return cliJson<{ rows: ReportRow[] }>(sandbox, ['report', '--db', db]).rows;
}

describe('the dual default export', () => {
  it('carries an id, the version-1 server and the version-2 setup', () => {
    expect(plugin.id).toBe('agent-tracker');
    expect(typeof plugin.server).toBe('function');
    expect(typeof plugin.setup).toBe('function');
  });

  it("loads in the simulated version-2 host through setup, gives each tool's input as a Standard Schema, refuses arguments of the wrong kind with the version-1 line, and unloads cleanly", async () => {
    const repo = makeRepo(sandbox, 'load');
    const db = path.join(sandbox.root, 'load.lmdb');
    await inSandboxEnv(sandbox, db, async () => {
      const host = new V2Host(repo);
      await host.load(plugin as unknown as { id: string; setup: (ctx: never) => unknown });
      expect([...host.tools.keys()]).toEqual(expect.arrayContaining(['agent-status', 'grade-commit', 'prior-art']));
      expect(host.commands.has('grade')).toBe(true);
      type Standard = { '~standard': { validate(value: unknown): { issues?: readonly { path?: readonly unknown[] }[] } } };
      const input = host.tools.get('grade-commit')?.input as Standard;
      expect(input['~standard'].validate({ commit: 'HEAD', agentGrade: 2 }).issues).toBeUndefined();
      expect(input['~standard'].validate({ commit: 'HEAD', agentGrade: 'two' }).issues?.map((issue) => issue.path)).toEqual([['agentGrade']]);
      const context = { sessionID: 'ses_x', agent: 'build', messageID: 'msg_x', id: 'call_x', signal: new AbortController().signal };
      await expect(host.tools.get('agent-status')!.execute({ agent: 7 }, context)).rejects.toThrow('agent must be text, got number 7 (Agent name; defaults to the calling agent)');
      await host.dispose();
    });
    expect(fs.existsSync(db)).toBe(true);
  });

  it("does nothing when called with OpenCode 1.18.33's early version-2 context (server tracks there)", async () => {
    // The domains of @opencode-ai/plugin 1.18.33's dist/v2/promise/context.d.ts: no tool, session or event.
    const hook = () => Promise.resolve({ dispose: () => Promise.resolve() });
    const early = { options: {}, agent: { transform: hook }, aisdk: {}, catalog: {}, command: { transform: hook }, integration: {}, plugin: {}, reference: {}, skill: {} };
    const db = path.join(sandbox.root, 'early.lmdb');
    const logged: { level: string; message: string }[] = [];
    await inSandboxEnv(sandbox, db, async () => {
      const cleanup = await createSetup({ project: sandbox.root, logger: recordingLogger(logged) })(early as never);
      await cleanup();
    });
    expect(fs.existsSync(db)).toBe(false);
    expect(logged).toEqual([]);
  });
});

describe('a version-2 session', () => {
  it('records two tool calls (one failing), a commit, tokens and cost for the agent and model of the requests; title requests are not work', async () => {
    const repo = makeRepo(sandbox, 'work');
    const steps = [
      { tools: [{ tool: 'bash', input: { command: 'echo one > a.txt' } }] },
      { tools: [{ tool: 'read', input: { filePath: 'does-not-exist.txt' } }] },
      { tools: [{ tool: 'bash', input: { command: 'git add a.txt && git commit -q -m "add a"' } }] },
      { text: 'Done.' },
    ];
    const { result, db } = await underV2('work', repo, (host) =>
      host.turn({ sessionID: 'ses_work', agent: 'build', model: MODEL, prompt: 'add a file and commit it', steps, usage: USAGE }),
    );
    expect(result.map((call) => call.status)).toEqual(['completed', 'error', 'completed']);
    const rows = reportRows(db);
    expect(rows.map((row) => row.agent)).toEqual(['build']);
    const requests = steps.length;
    expect(rows[0]).toMatchObject({
      model: 'fake/fake-model',
      sessions: 1,
      toolCalls: 3,
      toolFailures: 1,
      commits: 1,
      tokensInput: requests * USAGE.input,
      tokensOutput: requests * USAGE.output,
    });
    expect(rows[0]?.cost).toBeCloseTo(requests * USAGE.cost, 9);
    const status = cliJson<StatusJson>(sandbox, ['status', '--db', db]);
    expect(status.agents.find((agent) => agent.id === 'build')).toMatchObject({ commits: 1 });
    // The turn's end (session.execution.succeeded) wrote its journal entry, with the user's prompt as the task.
    const exported = runCli(sandbox, ['export', '--db', db]).stdout.split('\n').filter((line) => line.trim() !== '');
    const journal = exported.map((line) => JSON.parse(line) as { kind: string; value: Record<string, unknown> }).filter((record) => record.kind === 'activities');
    expect(journal.map((record) => record.value)).toEqual([expect.objectContaining({ agent: 'build', model: 'fake/fake-model', automatic: true, task: 'add a file and commit it' })]);
    const hash = git(repo, ['log', '-1', '--format=%H']).trim();
    expect(exported.some((line) => line.includes(hash))).toBe(true);
  });

  it('refuses reading a .env file and masks its values in other tools\' output (both fail closed)', async () => {
    const repo = makeRepo(sandbox, 'secrets');
    const secret = 'sk-v2-test-Zq81xVb27Lm';
    fs.writeFileSync(path.join(repo, '.env'), `API_KEY=${secret}\n`);
    fs.writeFileSync(path.join(repo, 'notes.txt'), `the key is ${secret}\n`);
    const { result, db } = await underV2('secrets', repo, (host) =>
      host.turn({
        sessionID: 'ses_secrets',
        agent: 'build',
        model: MODEL,
        prompt: 'look at the config',
        steps: [{ tools: [{ tool: 'read', input: { filePath: '.env' } }] }, { tools: [{ tool: 'bash', input: { command: 'cat notes.txt' } }] }, { text: 'ok' }],
        usage: USAGE,
      }),
    );
    expect(result[0]).toMatchObject({ status: 'error' });
    expect(result[0]?.text).toMatch(/\.env/);
    expect(result[0]?.text).not.toContain(secret);
    expect(result[1]).toMatchObject({ status: 'completed' });
    expect(result[1]?.text).toContain('the key is');
    expect(result[1]?.text).not.toContain(secret);
    expect(reportRows(db)[0]).toMatchObject({ toolCalls: 2, toolFailures: 1 });
  });

  it("refuses a halted agent's first tool call, made before the database is open", async () => {
    const repo = makeRepo(sandbox, 'halted');
    const db = path.join(sandbox.root, 'halted.lmdb');
    // Halted in an earlier session, in a file another process wrote: the worker checks it before it opens it.
    const seeded = Store.open({ path: db, maxDatabaseSize: 64 * 1024 * 1024 });
    seeded.applyBatch([{ table: 'agents', key: 'build', ops: Array.from({ length: DEFAULT_RULES.initialSp + 1 }, () => ({ kind: 'bug' as const })) }], DEFAULT_RULES, new Date().toISOString());
    seeded.close();
    const { result } = await underV2('halted', repo, (host) =>
      host.turn({ sessionID: 'ses_halted', agent: 'build', model: MODEL, prompt: 'list the files', steps: [{ tools: [{ tool: 'bash', input: { command: 'ls' } }] }, { text: 'ok' }], usage: USAGE }),
    );
    expect(result[0]).toMatchObject({ status: 'error' });
    expect(result[0]?.text).toMatch(/Agent "build" is halted/);
  });

  it('counts test runs from bash calls, with their exit codes: a failing run, then a passing one', async () => {
    const repo = makeRepo(sandbox, 'tests');
    const script = (code: number) => `echo '{"name":"t","scripts":{"test":"exit ${code}"}}' > package.json`;
    const { db } = await underV2('tests', repo, (host) =>
      host.turn({
        sessionID: 'ses_tests',
        agent: 'build',
        model: MODEL,
        prompt: 'fix the tests',
        steps: [
          { tools: [{ tool: 'bash', input: { command: script(1) } }] },
          { tools: [{ tool: 'bash', input: { command: 'npm test' } }] },
          { tools: [{ tool: 'bash', input: { command: script(0) } }] },
          { tools: [{ tool: 'bash', input: { command: 'npm test' } }] },
          { text: 'green' },
        ],
        usage: USAGE,
      }),
    );
    expect(reportRows(db)[0]).toMatchObject({ toolCalls: 4, toolFailures: 1, testRuns: 2, testPassRate: 0.5, testRecoveries: 1 });
  });

  it('withholds a result when masking throws, never passing it through', () => {
    const result = { content: [{ type: 'text' as const, text: 'secret output' }], metadata: { output: 'secret output' } };
    maskToolResult(result, () => {
      throw new Error('masker broke');
    });
    expect(result.content).toBe(MASKING_FAILED_OUTPUT);
    expect(JSON.stringify(result)).not.toContain('secret output');
  });

  it("runs the tracker's own tools (no XP for them) and records /grade as the user's grade", async () => {
    const repo = makeRepo(sandbox, 'tools');
    const { db } = await underV2('tools', repo, async (host) => {
      await host.turn({
        sessionID: 'ses_tools',
        agent: 'build',
        model: MODEL,
        prompt: 'commit and check status',
        steps: [{ tools: [{ tool: 'bash', input: { command: 'echo x > x.txt && git add x.txt && git commit -q -m "add x"' } }] }, { tools: [{ tool: 'agent-status', input: {} }] }, { text: 'ok' }],
        usage: USAGE,
      });
      const hash = git(repo, ['log', '-1', '--format=%H']).trim();
      await host.command('ses_tools', 'grade', `5 ${hash} clean work`);
    });
    const [row] = reportRows(db) as (ReportRow & { userGradedCommits: number; meanUserGrade: number })[];
    expect(row).toMatchObject({ agent: 'build', toolCalls: 2, commits: 1, userGradedCommits: 1, meanUserGrade: 5 });
    // XP: the bash call and its commit earn, agent-status (the tracker's own tool) does not, the user's grade does.
    const expected = expectedAgent([
      { kind: 'xp', amount: DEFAULT_RULES.xpPerToolCall },
      { kind: 'xp', amount: DEFAULT_RULES.xpPerCommit },
      { kind: 'xp', amount: DEFAULT_RULES.xpPerGradedCommit },
    ]);
    const status = cliJson<StatusJson>(sandbox, ['status', '--db', db]);
    expect(status.agents.find((agent) => agent.id === 'build')).toMatchObject({ xp: expected.xp, sp: expected.sp, commits: 1 });
  });
});

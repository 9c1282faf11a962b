/**
 * The foundation, proven against the real `opencode` binary driven by a loopback fake model, in
 * throwaway git repositories with a temporary HOME. Everything is checked through the CLI.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { applyAgentOp, DEFAULT_RULES, newAgent } from '../../src/core/rules.js';
import type { AgentOp } from '../../src/core/types.js';
import { bash, call, FAKE_USAGE, say } from '../helpers/fake-model.js';
import { useFakeOpencode } from '../helpers/fake-opencode.js';
import { cliJson, git, makeRepo, makeSandbox, removeSandbox, runCli, runOpencode, writeGlobalConfig } from '../helpers/sandbox.js';
import { prompt, startServe } from '../helpers/serve.js';
import type { DoctorJson, RunResult, Sandbox, StatusJson } from '../helpers/sandbox.js';

jest.setTimeout(300_000);

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

interface ExportedRecord {
  kind: string;
  key: unknown;
  value: Record<string, unknown>;
}

/** Every record in the database, through `agent-tracker export`. */
function exported(sandbox: Sandbox, env: NodeJS.ProcessEnv = {}): ExportedRecord[] {
  const result = runCli(sandbox, ['export'], env);
  if (result.code !== 0) throw new Error(`agent-tracker export failed: ${result.stderr}`);
  return result.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ExportedRecord);
}

/** What the rules give for a sequence of ops on a new agent. */
function expectedAgent(ops: AgentOp[]) {
  const agent = newAgent('x', '', DEFAULT_RULES);
  for (const op of ops) applyAgentOp(agent, op, DEFAULT_RULES);
  return agent;
}

describe('the plugin in a real OpenCode session', () => {
  const world = useFakeOpencode({
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
    'PARALLEL-TURN': [
      bash('echo 1 > p1.txt'),
      bash('echo 2 > p2.txt'),
      bash('git add -A && git commit -q -m "parallel work"'),
      say('Parallel done.'),
    ],
    'SERVED-TURN': [bash('echo served > s.txt'), bash('git add -A && git commit -q -m "served work"'), say('Served.')],
    'PLAIN-TURN': [bash('echo plain'), say('Plain done.')],
  });

  it('records tool calls, a failure, two commits and a push for the build agent', async () => {
    const repo = makeRepo(world.sandbox, 'work');
    const run = await runOpencode(world.sandbox, repo, 'WORK-TURN: add two files, commit each, push');
    expect(run.code).toBe(0);

    const status = cliJson<StatusJson>(world.sandbox, ['status']);
    const build = status.agents.find((agent) => agent.id === 'build');
    const rules = DEFAULT_RULES;
    const expected = expectedAgent([
      { kind: 'xp', amount: 3 * rules.xpPerToolCall },
      { kind: 'xp', amount: 2 * rules.xpPerCommit },
      { kind: 'xp', amount: rules.xpPerPush },
    ]);
    expect(build).toMatchObject({ sp: expected.sp, xp: expected.xp, commits: 2, toolFailures: 1, pushes: 1, halted: false });
    expect(build?.toolCalls).toBe(4);

    // The commits stored are the repository's own, attributed to the agent and model.
    const hashes = git(repo, ['log', '--reverse', '--format=%H', '-n', '2']).trim().split('\n');
    const records = exported(world.sandbox);
    const commits = records.filter((record) => record.kind === 'commits').map((record) => record.value);
    expect(commits.map((commit) => commit.hash).sort()).toEqual([...hashes].sort());
    expect(commits.find((commit) => commit.hash === hashes[0])).toMatchObject({ message: 'add a', files: ['a.txt'], agent: 'build', model: 'fake/fake-model', project: repo });

    // At most one flush per turn and per push, plus one at the end.
    const doctor = cliJson<DoctorJson>(world.sandbox, ['doctor']);
    expect(doctor.counts.commits).toBe(2);
    expect(doctor.flushes).toBeGreaterThanOrEqual(1);
    expect(doctor.flushes).toBeLessThanOrEqual(1 + 1 + 1);

    // The turn's journal entry wrote itself.
    const journal = records.filter((record) => record.kind === 'activities').map((record) => record.value);
    expect(journal).toHaveLength(1);
    // The task is the prompt as the host has it (`opencode run` hands it on in quotes).
    expect(journal[0]).toMatchObject({ agent: 'build', model: 'fake/fake-model', automatic: true, task: expect.stringContaining('WORK-TURN: add two files, commit each, push') });
    expect(journal[0]?.actions).toMatch(/bash x3/);
    expect(journal[0]?.outcome).toMatch(/2 commit\(s\)/);

    // Tokens: what the fake model reported for each of the session's requests, counted once.
    const answered = world.model.requests.filter((request) => (request.tools?.length ?? 0) > 0 && JSON.stringify(request.messages).includes('WORK-TURN'));
    const report = cliJson<{ rows: { agent: string; model: string; tokensInput: number; tokensOutput: number }[] }>(world.sandbox, ['report']);
    const row = report.rows.find((r) => r.agent === 'build' && r.model === 'fake/fake-model');
    expect(row).toMatchObject({ tokensInput: answered.length * FAKE_USAGE.promptTokens, tokensOutput: answered.length * FAKE_USAGE.completionTokens });
  });

  /** A separate database per scenario, so each asserts exact totals. */
  /** Whether a failed run died in OpenCode's own database setup, before any plugin was loaded. */
  function hostStartRace(run: RunResult): boolean {
    return /database is locked|Failed query: CREATE TABLE/.test(run.stderr) && !run.stderr.includes('agent-tracker');
  }

  function scenarioDb(name: string): NodeJS.ProcessEnv {
    return { AGENT_TRACKER_DB_PATH: path.join(world.sandbox.root, `${name}.lmdb`) };
  }

  it("counts a subagent's work for its own agent", async () => {
    const env = scenarioDb('subagent');
    const repo = makeRepo(world.sandbox, 'delegate');
    const run = await runOpencode(world.sandbox, repo, 'DELEGATE-TURN: ask a subagent to count files', { env });
    expect(run.code).toBe(0);
    const status = cliJson<StatusJson>(world.sandbox, ['status'], env);
    const general = status.agents.find((agent) => agent.id === 'general');
    const build = status.agents.find((agent) => agent.id === 'build');
    expect(general).toMatchObject({ toolCalls: 2, xp: expectedAgent([{ kind: 'xp', amount: 2 * DEFAULT_RULES.xpPerToolCall }]).xp });
    // The parent's only tool call is the `task` that started the subagent.
    expect(build?.toolCalls).toBe(1);
    // The subagent's session names its parent.
    const sessions = exported(world.sandbox, env).filter((record) => record.kind === 'sessions').map((record) => record.value);
    const parent = sessions.find((session) => session.agent === 'build');
    const child = sessions.find((session) => session.agent === 'general');
    expect(child?.parentSessionId).toBe(parent?.sessionId);
    expect(parent?.parentSessionId).toBeUndefined();
  });

  it('keeps exact totals when two opencode processes write to one database at once', async () => {
    // Two hosts started at the same instant race on OpenCode's own SQLite setup, and one may exit
    // before it loads any plugin ("database is locked"): that pair is run again, on a fresh database
    // and fresh repos, at most twice. Any other failure fails the test.
    let env: NodeJS.ProcessEnv = {};
    let runs: RunResult[] = [];
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      env = scenarioDb(`parallel-${attempt}`);
      const repos = [makeRepo(world.sandbox, `parallel-${attempt}-a`), makeRepo(world.sandbox, `parallel-${attempt}-b`)];
      runs = await Promise.all(repos.map((repo) => runOpencode(world.sandbox, repo, 'PARALLEL-TURN: two files and a commit', { env })));
      if (!runs.some((run) => run.code !== 0 && hostStartRace(run))) break;
    }
    expect(runs.map((run) => ({ code: run.code, log: run.code === 0 ? '' : run.stderr.slice(-3000) }))).toEqual([{ code: 0, log: '' }, { code: 0, log: '' }]);
    const build = cliJson<StatusJson>(world.sandbox, ['status', 'build'], env).agents[0];
    const perRun = [{ kind: 'xp', amount: 3 * DEFAULT_RULES.xpPerToolCall }, { kind: 'xp', amount: DEFAULT_RULES.xpPerCommit }] as AgentOp[];
    const want = expectedAgent([...perRun, ...perRun]);
    expect(build).toMatchObject({ toolCalls: 6, commits: 2, sessions: 2, sp: want.sp, xp: want.xp });
  });

  it("keeps a finished turn's data when opencode serve is killed with SIGKILL", async () => {
    const env = scenarioDb('killed');
    const repo = makeRepo(world.sandbox, 'served');
    const served = await startServe(world.sandbox, repo, { env });
    try {
      const session = await served.request<{ id: string }>('POST', '/session', {});
      await prompt(served, session.id, 'SERVED-TURN: write and commit');
      await served.waitForEvent((event) => event.type === 'session.idle' && event.properties.sessionID === session.id);
      // The plugin hears session.idle on its own subscription: give it a moment (bounded), never a
      // shutdown, before the kill.
      await waitUntil(() => cliJson<DoctorJson>(world.sandbox, ['doctor'], env).flushes > 0, 10_000);
    } finally {
      await served.kill('SIGKILL');
    }
    const build = cliJson<StatusJson>(world.sandbox, ['status', 'build'], env).agents[0];
    expect(build).toMatchObject({ toolCalls: 2, commits: 1 });
    const stored = cliJson<DoctorJson>(world.sandbox, ['doctor'], env);
    expect(stored.counts.commits).toBe(1);
  });

  describe('with bad settings', () => {
    // One sandbox for all cases: OpenCode prepares a fresh config folder only once.
    let bad: Sandbox;
    beforeAll(() => {
      bad = makeSandbox('agent-tracker-bad-');
      fs.writeFileSync(path.join(bad.home, 'blocked-by-a-file'), 'a file, not a folder');
    });
    afterAll(() => removeSandbox(bad));

    /** The spill files in the temp folder OpenCode ran with (the sandbox's own). */
    const spillsInTemp = (): string[] =>
      (fs.readdirSync(bad.env.TMPDIR as string, { recursive: true }) as string[]).filter((file) => /^agent-tracker-spill-[^/]+\/.+\.json$/.test(file));

    // The cases run in this order in one sandbox: a setting that turns tracking off records nothing to
    // keep; a database that cannot be opened keeps the run's record in a spill file in the temp folder.
    it.each([
      ['a map size of 0', { maxDatabaseSize: 0 }, /maxDatabaseSize must be between 1 MiB/, 0],
      ['a map size of 5 GiB', { maxDatabaseSize: 5 * 1024 ** 3 }, /maxDatabaseSize must be between 1 MiB/, 0],
      ['an unwritable path', { databasePath: 'blocked-by-a-file/db.lmdb' }, /cannot be used: a file is in the way of its folder/, 1],
    ])('%s: OpenCode still works, one clear error is logged and the CLI exits 1 with it', async (label, options, message, spills) => {
      writeGlobalConfig(bad, { modelUrl: world.model.url, pluginOptions: options });
      const repo = makeRepo(bad, label.replace(/\W+/g, '-'));
      const run = await runOpencode(bad, repo, 'PLAIN-TURN: echo');
      // A bad setting turns tracking off; a database that cannot be used is one warning line (recording waits in memory).
      const logged = run.stderr.split('\n').filter((line) => /agent-tracker is off|agent-tracker: the agent-tracker database/.test(line));
      // The whole outcome in one assertion, so a failure shows the host's own log.
      expect({ code: run.code, answered: run.stdout.includes('Plain done.'), logged: logged.length, log: run.stderr.slice(-3000) }).toMatchObject({
        code: 0,
        answered: true,
        logged: 1,
      });
      expect(logged[0]).toMatch(message);
      const cli = runCli(bad, ['status', '--json']);
      expect(cli.code).toBe(1);
      expect(cli.stderr.trim().split('\n')).toHaveLength(1);
      expect(cli.stderr).toMatch(message);
      expect(spillsInTemp()).toHaveLength(spills);
    });
  });
});

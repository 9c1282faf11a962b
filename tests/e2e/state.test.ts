/**
 * Agent state in the real host: grading, bug reports until the halt, the refusal of a halted
 * agent's tools, `agent-tracker revive`, the .env guard, and the migration of a legacy database
 * found in the working directory. The real `opencode` binary, driven by the loopback fake model.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { applyAgentOp, DEFAULT_RULES, newAgent } from '../../src/core/rules.js';
import type { AgentOp } from '../../src/core/types.js';
import { bash, call, say, scriptByPrompt, startFakeModel } from '../helpers/fake-model.js';
import type { FakeModel, Step } from '../helpers/fake-model.js';
import { legacyFileIn, sampleLegacyFixture, writeLegacyDatabase } from '../helpers/legacy-fixture.js';
import type { LegacyFixture } from '../helpers/legacy-fixture.js';
import { cliJson, makeRepo, makeSandbox, removeSandbox, runCli, runOpencode, toolParts, writeGlobalConfig } from '../helpers/sandbox.js';
import type { DoctorJson, RunResult, Sandbox, StatusJson } from '../helpers/sandbox.js';
import type { AgentSummary } from '../../src/core/answers/status.js';

jest.setTimeout(300_000);

const rules = DEFAULT_RULES;
const AGENT_GRADE = 5;
const USER_GRADE = 2;

function rulesGive(ops: AgentOp[]) {
  const agent = newAgent('build', '', rules);
  for (const op of ops) applyAgentOp(agent, op, rules);
  return agent;
}

/** What the first run earns before its bug reports: a grep, one bash call with a commit and a push, one grade. */
const EARNED: AgentOp[] = [
  { kind: 'xp', amount: 2 * rules.xpPerToolCall },
  { kind: 'commits', amount: 1 },
  { kind: 'xp', amount: rules.xpPerCommit + rules.xpPerPush },
  // The user grade the model sends through grade-commit is ignored: only the self-grade counts.
  { kind: 'grade', delta: AGENT_GRADE },
];
/** Bug reports until the halt: as many as the SP the agent has then. */
const BUG_REPORTS = rulesGive(EARNED).sp;
const HALTED = rulesGive([...EARNED, ...Array.from({ length: BUG_REPORTS }, (): AgentOp => ({ kind: 'bug' }))]);

function byId(status: StatusJson, id: string): AgentSummary | undefined {
  return status.agents.find((agent) => agent.id === id);
}

function refusalOf(run: RunResult, tool: string, inputText: string): string | undefined {
  const part = toolParts(run).find((p) => p.tool === tool && JSON.stringify(p.state.input ?? {}).includes(inputText));
  return part?.state.status === 'error' ? part.state.error : undefined;
}

function sessionText(run: RunResult): string {
  return `${run.stdout}\n${run.stderr}`;
}

describe('agent state in a real OpenCode session', () => {
  let sandbox: Sandbox;
  let model: FakeModel;
  let repo: string;
  let legacy: LegacyFixture;
  const secret = `agent-tracker-secret-${randomBytes(12).toString('hex')}`;
  let firstRun: RunResult;

  beforeAll(async () => {
    sandbox = makeSandbox('agent-tracker-state-');
    const bugSteps: Step[] = Array.from({ length: BUG_REPORTS }, (_, i) => call('report-bug', { description: `regression number ${i + 1}` }));
    model = await startFakeModel(
      scriptByPrompt({
        'STATE-TURN': [
          bash('cat .env'),
          call('read', { filePath: '.env' }),
          call('grep', { pattern: 'API_TOKEN' }),
          bash('echo one > one.txt && git add one.txt && git commit -q -m "add one" && git push -q origin main'),
          call('grade-commit', { commit: 'HEAD', agentGrade: AGENT_GRADE, userGrade: USER_GRADE, task: 'add one', agentNote: 'smooth', userNote: 'good' }),
          ...bugSteps,
          bash('echo blocked > blocked.txt'),
          say('Stopped.'),
        ],
        // A number where the tool takes text: OpenCode passes it on as it is.
        'AFTER-REVIVE': [bash('echo again > after.txt'), call('agent-status', { agent: 7 }), say('Working again.')],
      }),
    );
    writeGlobalConfig(sandbox, { modelUrl: model.url });
    repo = makeRepo(sandbox, 'state');
    fs.writeFileSync(path.join(repo, '.env'), `API_TOKEN=${secret}\n`);
    fs.writeFileSync(path.join(repo, 'config.ts'), 'export const token = process.env.API_TOKEN;\n');
    fs.mkdirSync(path.join(repo, '.agent'));
    legacy = sampleLegacyFixture(repo);
    await writeLegacyDatabase(legacyFileIn(repo), legacy);
    firstRun = await runOpencode(sandbox, repo, 'STATE-TURN: commit, grade, report bugs, then try once more');
  });

  afterAll(async () => {
    await model.close();
    removeSandbox(sandbox);
  });

  it('refuses reading .env, and the secret never reaches the model or the session output', () => {
    expect(firstRun.code).toBe(0);
    expect(refusalOf(firstRun, 'bash', 'cat .env')).toMatch(/^agent-tracker refused bash: "\.env" is a protected \.env file/);
    expect(refusalOf(firstRun, 'read', '.env')).toMatch(/^agent-tracker refused read: "\.env"/);
    // A project-wide grep still runs, over every file but the env files.
    const grep = toolParts(firstRun).find((p) => p.tool === 'grep');
    expect(grep?.state.status).toBe('completed');
    expect(grep?.state.output).toContain('config.ts');
    expect(grep?.state.output).not.toMatch(/\/\.env:/);
    expect(grep?.state.output).toMatch(/Found 1 match/);
    expect(sessionText(firstRun)).not.toContain(secret);
    expect(JSON.stringify(model.requests)).not.toContain(secret);
  });

  it("offers the model the tracker's tools with each argument described and the required ones named", () => {
    type Offered = { function: { name: string; parameters: { properties: Record<string, { type?: string; description?: string; enum?: string[] }>; required?: string[] } } };
    const offered = new Map((model.requests.find((request) => (request.tools ?? []).length > 0)?.tools as Offered[]).map((tool) => [tool.function.name, tool.function.parameters]));
    expect(offered.get('grade-commit')?.required).toEqual(['commit', 'agentGrade']);
    expect(offered.get('grade-commit')?.properties.agentGrade).toEqual({ type: 'number', description: 'Your grade of your own work: -1 bad, 1 neutral, 2 good, 5 excellence' });
    expect(offered.get('prior-art')?.required).toEqual(['task']);
    expect(offered.get('recommend-setup')?.properties.prefer).toMatchObject({ type: 'string', enum: ['quality', 'balanced', 'cheap'] });
    for (const name of ['agent-status', 'grade-commit', 'report-bug', 'log-activity', 'prior-art', 'recommend-setup']) {
      const properties = Object.entries(offered.get(name)?.properties ?? {});
      expect([name, properties.length > 0]).toEqual([name, true]);
      for (const [argument, schema] of properties) expect([name, argument, (schema.description ?? '').length > 10]).toEqual([name, argument, true]);
    }
  });

  it('grades the commit, halts the agent after its bug reports and refuses its next tool call', () => {
    const build = byId(cliJson<StatusJson>(sandbox, ['status']), 'build');
    expect(build).toMatchObject({ sp: HALTED.sp, xp: HALTED.xp, cs: HALTED.cs, commits: 1, bugs: BUG_REPORTS, halted: true });
    expect(refusalOf(firstRun, 'bash', 'blocked.txt')).toMatch(/is halted.*agent-tracker revive build/);
    expect(fs.existsSync(path.join(repo, 'blocked.txt'))).toBe(false);
    expect(fs.existsSync(path.join(repo, 'one.txt'))).toBe(true);

    const doctor = cliJson<DoctorJson>(sandbox, ['doctor']);
    expect(doctor.counts.retrospectives).toBe(1);
    const exported = JSON.parse(fs.readFileSync(path.join(repo, '.agent', 'status.json'), 'utf8')) as StatusJson;
    expect(byId(exported, 'build')).toMatchObject({ halted: true, sp: HALTED.sp });
  });

  it('migrates the legacy database found in the working directory', () => {
    const status = cliJson<StatusJson>(sandbox, ['status']);
    for (const agent of legacy.agents) {
      expect(byId(status, agent.id)).toMatchObject({
        sp: agent.skill_points, xp: agent.experience_points, cs: agent.communication_score,
        creditedCommits: agent.total_commits, bugs: agent.total_bugs, halted: !agent.active,
      });
    }
    const doctor = cliJson<DoctorJson>(sandbox, ['doctor']);
    expect(doctor.counts.commits).toBe(1 + legacy.commits.length);
    expect(doctor.counts.migrations).toBe(1);
  });

  it('revives the agent with `agent-tracker revive build`, after which a new run works and migration adds nothing', async () => {
    const unknown = runCli(sandbox, ['revive', 'nobody']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no agent named "nobody"');

    const revived = runCli(sandbox, ['revive', 'build']);
    expect(revived.code).toBe(0);
    expect(revived.stdout).toContain('build is revived');
    const afterRevive = cliJson<StatusJson>(sandbox, ['status']);
    expect(byId(afterRevive, 'build')).toMatchObject({ sp: 1, halted: false, xp: HALTED.xp, cs: HALTED.cs });
    const doctorBefore = cliJson<DoctorJson>(sandbox, ['doctor']);

    const second = await runOpencode(sandbox, repo, 'AFTER-REVIVE: carry on');
    expect(second.code).toBe(0);
    expect(fs.existsSync(path.join(repo, 'after.txt'))).toBe(true);
    expect(refusalOf(second, 'agent-status', '7')).toBe('agent must be text, got number 7 (Agent name; defaults to the calling agent)');
    const status = cliJson<StatusJson>(sandbox, ['status']);
    expect(byId(status, 'build')).toMatchObject({ halted: false, xp: rulesGive([{ kind: 'xp', amount: HALTED.xp + rules.xpPerToolCall }]).xp });
    for (const agent of legacy.agents) expect(byId(status, agent.id)).toEqual(byId(afterRevive, agent.id));
    const doctor = cliJson<DoctorJson>(sandbox, ['doctor']);
    for (const table of ['agents', 'commits', 'communication', 'migrations']) expect([table, doctor.counts[table]]).toEqual([table, doctorBefore.counts[table]]);

    const migrateAgain = cliJson<{ added: number; skipped: number }>(sandbox, ['migrate', repo]);
    expect(migrateAgain).toMatchObject({ added: 0, skipped: legacy.agents.length + legacy.commits.length + legacy.communication.length });
  });
});

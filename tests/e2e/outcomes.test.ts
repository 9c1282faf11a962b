/**
 * Outcomes in the real host: the user's `/grade` (a provisioned slash command, recorded by the plugin
 * from the command event), a model's "user grade" through grade-commit that creates none, test runs
 * red then green, and an undo (revert of a session's messages) counted against the setup that worked
 * the undone turn. The real `opencode` binary, driven by the loopback fake model.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Store } from '../../src/core/store/store.js';
import type { UsageRecord } from '../../src/core/types.js';
import { bash, call, say, scriptByPrompt, startFakeModel } from '../helpers/fake-model.js';
import type { FakeModel } from '../helpers/fake-model.js';
import { storedUsageRecords } from '../helpers/usage-record.js';
import { git, makeRepo, makeSandbox, removeSandbox, runCli, runOpencode, writeGlobalConfig } from '../helpers/sandbox.js';
import type { RunResult, Sandbox } from '../helpers/sandbox.js';
import { prompt, startServe } from '../helpers/serve.js';

jest.setTimeout(400_000);

const SETUP = { agent: 'build', model: 'fake/fake-model' };

function usageRecords(sandbox: Sandbox): UsageRecord[] {
  return storedUsageRecords(sandbox.dbPath);
}

function sessionIdOf(run: RunResult): string | undefined {
  for (const line of run.stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const event = JSON.parse(line) as { sessionID?: string; part?: { sessionID?: string } };
    const id = event.sessionID ?? event.part?.sessionID;
    if (id) return id;
  }
  return undefined;
}

describe('outcomes in a real OpenCode session', () => {
  let sandbox: Sandbox;
  let model: FakeModel;
  let repo: string;
  let workRun: RunResult;
  let gradeRun: RunResult;
  let commitHash: string;

  beforeAll(async () => {
    sandbox = makeSandbox('agent-tracker-outcomes-');
    model = await startFakeModel(
      scriptByPrompt({
        'WORK-TURN': [
          bash('FAIL=1 npm test'),
          bash('echo feature > feature.txt && git add feature.txt && git commit -q -m "feat: add feature"'),
          bash('npm test'),
          call('grade-commit', { commit: 'HEAD', agentGrade: 2, userGrade: 5, userNote: 'the user loved it', agentNote: 'fine' }),
          say('Committed and graded.'),
        ],
        'UNDO-TURN': [bash('echo scratch > scratch.txt'), say('Wrote a scratch file.')],
      }),
      { lifetimeMs: 380_000, maxRequests: 200 },
    );
    writeGlobalConfig(sandbox, { modelUrl: model.url });
    // The /grade command, provisioned as setup does it.
    const setup = runCli(sandbox, ['setup', '--json']);
    expect(setup.code).toBe(0);
    repo = makeRepo(sandbox, 'outcomes');
    fs.writeFileSync(path.join(repo, 'package.json'), JSON.stringify({ name: 'outcomes', version: '1.0.0', scripts: { test: 'node -e "process.exit(process.env.FAIL ? 1 : 0)"' } }));
    git(repo, ['add', '-A'], sandbox.env);
    git(repo, ['commit', '-q', '-m', 'package.json'], sandbox.env);
    workRun = await runOpencode(sandbox, repo, 'WORK-TURN: run the tests, commit, run them again, grade');
    commitHash = git(repo, ['rev-parse', 'HEAD'], sandbox.env).trim();
    gradeRun = await runOpencode(sandbox, repo, '5 good work, thanks', { extraArgs: ['--command', 'grade', '-c'] });
  });

  afterAll(async () => {
    await model.close();
    removeSandbox(sandbox);
  });

  it('provisions /grade as a command OpenCode loads from its config folder', () => {
    const file = path.join(sandbox.configDir, 'commands', 'grade.md');
    expect(fs.readFileSync(file, 'utf8')).toMatch(/already recorded the user's own grade/);
  });

  it("records the user's /grade on the setup that made the commit, and the model's relayed user grade nowhere", () => {
    expect(workRun.code).toBe(0);
    expect(gradeRun.code).toBe(0);
    expect(git(repo, ['log', '-1', '--format=%s'], sandbox.env).trim()).toBe('feat: add feature');
    const workSession = sessionIdOf(workRun);
    const record = usageRecords(sandbox).find((r) => r.sessionId === workSession && r.agent === SETUP.agent && r.model === SETUP.model);
    expect(record).toMatchObject({ userGradedCommits: 1, userGradeSum: 5, selfGradedCommits: 1, selfGradeSum: 2 });
    expect(record?.reportedGradedCommits ?? 0).toBe(0);
    const report = JSON.parse(runCli(sandbox, ['report', '--json']).stdout) as { totals: Record<string, unknown> };
    expect(report.totals).toMatchObject({ userGradedCommits: 1, meanUserGrade: 5, selfGradedCommits: 1, meanSelfGrade: 2, selfUserGap: -3, agentReportedGradedCommits: 0 });
    // The grade is the user's: written by the plugin, with the note, for the commit the session made.
    const store = Store.open({ path: sandbox.dbPath, maxDatabaseSize: 1 << 29, readOnly: true });
    try {
      expect(store.tables.userGrades.get([repo, commitHash])).toMatchObject({ grade: 5, note: 'good work, thanks', via: 'slash-command', provenance: 'user', agent: 'build' });
      expect([...store.tables.userGrades.getRange()]).toHaveLength(1);
    } finally {
      store.close();
    }
  });

  it('counts the test runs, their passes, and the session ending green after red', () => {
    const workSession = sessionIdOf(workRun);
    const record = usageRecords(sandbox).find((r) => r.sessionId === workSession && r.agent === SETUP.agent);
    expect(record).toMatchObject({ testRuns: 2, testPasses: 1, testRecoveries: 1 });
  });

  it('counts an undo of a turn against the setup that worked it', async () => {
    const served = await startServe(sandbox, repo, { lifetimeMs: 200_000 });
    try {
      const session = await served.request<{ id: string }>('POST', '/session', {});
      await prompt(served, session.id, 'UNDO-TURN: write a scratch file');
      await served.waitForEvent((e) => e.type === 'session.idle' && e.properties.sessionID === session.id, 120_000);
      const messages = await served.request<{ info: { id: string; role: string } }[]>('GET', `/session/${session.id}/message`);
      const userMessage = messages.find((m) => m.info.role === 'user');
      expect(userMessage).toBeDefined();
      await served.request('POST', `/session/${session.id}/revert`, { messageID: userMessage?.info.id });
      await served.waitForEvent((e) => {
        const info = e.properties.info as { id?: string; revert?: { messageID?: string } } | undefined;
        return e.type === 'session.updated' && info?.id === session.id && info.revert?.messageID === userMessage?.info.id;
      });
      await served.request('POST', '/instance/dispose');
      const record = usageRecords(sandbox).find((r) => r.sessionId === session.id && r.agent === SETUP.agent);
      expect(record).toMatchObject({ turns: 1, undoneTurns: 1 });
      const report = JSON.parse(runCli(sandbox, ['report', '--json']).stdout) as { totals: { undoRate: number | null } };
      expect(report.totals.undoRate).toBeGreaterThan(0);
    } finally {
      await served.kill();
    }
  });
});

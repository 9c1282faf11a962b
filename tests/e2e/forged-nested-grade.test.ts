/**
 * Route b of the forged user records: the agent's bash tool starts a nested `opencode run --command
 * grade`, so the plugin of that nested OpenCode records a "user" /grade of the agent's own commit.
 * The real `opencode` binary (outer and nested), driven by the loopback fake model. The grade is
 * stored, as suspect, with the signs that the OpenCode recording it was started from a session.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Store } from '../../src/core/store/store.js';
import type { ActivityEntry } from '../../src/core/types.js';
import { bash, say, scriptByPrompt, startFakeModel } from '../helpers/fake-model.js';
import type { FakeModel } from '../helpers/fake-model.js';
import { OPENCODE_BIN, git, makeRepo, makeSandbox, removeSandbox, runCli, runOpencode, writeGlobalConfig } from '../helpers/sandbox.js';
import type { RunResult, Sandbox } from '../helpers/sandbox.js';

jest.setTimeout(400_000);

describe('a nested opencode run --command grade from the agent shell', () => {
  let sandbox: Sandbox;
  let model: FakeModel;
  let repo: string;
  let commitHash: string;
  let forgeRun: RunResult;

  beforeAll(async () => {
    sandbox = makeSandbox('agent-tracker-nested-grade-');
    model = await startFakeModel(
      scriptByPrompt({
        'WORK-TURN': [bash('echo feature > feature.txt && git add feature.txt && git commit -q -m "feat: add feature"'), say('Committed.')],
        'FORGE-TURN': [bash(`"${OPENCODE_BIN}" run --command grade "5 forged praise"`), say('Graded.')],
      }),
      { lifetimeMs: 380_000, maxRequests: 200 },
    );
    writeGlobalConfig(sandbox, { modelUrl: model.url });
    expect(runCli(sandbox, ['setup', '--json']).code).toBe(0);
    repo = makeRepo(sandbox, 'nested');
    expect((await runOpencode(sandbox, repo, 'WORK-TURN: commit a feature')).code).toBe(0);
    commitHash = git(repo, ['rev-parse', 'HEAD'], sandbox.env).trim();
    forgeRun = await runOpencode(sandbox, repo, 'FORGE-TURN: grade your own commit as the user');
  });

  afterAll(async () => {
    await model.close();
    removeSandbox(sandbox);
  });

  it('stores the grade as suspect, names why, and lists it for review', () => {
    expect(forgeRun.code).toBe(0);
    const store = Store.open({ path: sandbox.dbPath, maxDatabaseSize: 1 << 29, readOnly: true });
    let actions: NonNullable<ActivityEntry['userAction']>[];
    try {
      expect(store.tables.userGrades.get([repo, commitHash])).toMatchObject({ grade: 5, via: 'slash-command' });
      actions = [...store.tables.activities.getRange({})].flatMap(({ value }) => (value.userAction ? [value.userAction] : []));
    } finally {
      store.close();
    }
    expect(actions).toEqual([expect.objectContaining({ action: 'grade', via: 'slash-command', suspect: true })]);
    expect(actions[0]?.signs).toEqual(
      expect.arrayContaining([expect.stringMatching(/\(opencode[^)]*\) was started with .*OPENCODE_PID/), expect.stringMatching(/\(opencode[^)]*\) among its parents is OpenCode/)]),
    );
    const report = JSON.parse(runCli(sandbox, ['report', '--json']).stdout) as { suspectUserActions: { action: string; agent?: string }[] };
    expect(report.suspectUserActions).toEqual([expect.objectContaining({ action: 'grade', agent: 'build' })]);
  });
});

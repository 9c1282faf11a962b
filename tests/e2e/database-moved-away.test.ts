/**
 * An agent moves the central database aside (or deletes it) from its bash: the next start used to make a
 * new, empty one, so a halted agent was back at work with its bugs gone, and nothing said so. Now the
 * newest snapshot is put in its place and the user is told. The real `opencode` binary, driven by the
 * loopback fake model; the halted agent's partner (`plan`) does the moving, as the halted one cannot.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import fs from 'node:fs';
import { bash, call, say, scriptByPrompt, startFakeModel } from '../helpers/fake-model.js';
import type { FakeModel } from '../helpers/fake-model.js';
import { cliJson, makeRepo, makeSandbox, removeSandbox, runOpencode, writeGlobalConfig } from '../helpers/sandbox.js';
import type { RunResult, Sandbox, StatusJson } from '../helpers/sandbox.js';

jest.setTimeout(400_000);

describe('the database moved away between sessions', () => {
  let sandbox: Sandbox;
  let model: FakeModel;
  let next: RunResult;

  beforeAll(async () => {
    sandbox = makeSandbox('agent-tracker-db-moved-');
    // Written so that no guard sees the database's name.
    const move = Buffer.from('D="$XDG_CONFIG_HOME/opencode/agent-tracker.lmdb"; mv "$D" "$D.away"; rm -f "$D-lock"\n').toString('base64');
    model = await startFakeModel(
      scriptByPrompt({
        'WORK-TURN': [bash('echo feature > feature.txt && git add feature.txt && git commit -q -m "feat: add feature"'), call('report-bug', { description: 'broke the build' }), say('Done.')],
        'MOVE-TURN': [bash(`echo ${move} | base64 -d | sh`), say('Done.')],
        'NEXT-TURN': [bash('echo hello'), say('Done.')],
      }),
      { lifetimeMs: 380_000, maxRequests: 100 },
    );
    writeGlobalConfig(sandbox, { modelUrl: model.url });
    const repo = makeRepo(sandbox, 'moved');
    expect((await runOpencode(sandbox, repo, 'WORK-TURN: add a feature')).code).toBe(0);
    expect(cliJson<StatusJson>(sandbox, ['status']).agents).toEqual([expect.objectContaining({ id: 'build', halted: true, bugs: 1 })]);
    expect((await runOpencode(sandbox, repo, 'MOVE-TURN: tidy up', { agent: 'plan' })).code).toBe(0);
    expect(fs.existsSync(sandbox.dbPath)).toBe(false);
    next = await runOpencode(sandbox, repo, 'NEXT-TURN: say hello');
  });

  afterAll(async () => {
    await model?.close();
    if (sandbox) removeSandbox(sandbox);
  });

  it('starts from the newest snapshot: the halt and the bug are still there', () => {
    expect(next.code).toBe(0);
    expect(cliJson<StatusJson>(sandbox, ['status']).agents.find((agent) => agent.id === 'build')).toMatchObject({ halted: true, bugs: 1, sp: 0 });
  });

  it('tells the user, naming the database and what to do', () => {
    expect(`${next.stdout}\n${next.stderr}`).toMatch(/the database \S*agent-tracker\.lmdb was gone \(moved or deleted outside the tracker\), so its newest snapshot/);
  });
});

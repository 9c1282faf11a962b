/**
 * An agent sends `/grade` through its own host's HTTP server: under `opencode serve` (what desktop and
 * editor clients run), its bash creates a session and posts the command to it with curl. The plugin
 * records the command in the user's own OpenCode process, so the nested-host check sees nothing; the
 * grade came while the agent's bash call ran, and is stored as suspect for the user to review. Slash
 * commands sent that way are counted but earn no XP. The real `opencode` binary, driven by the loopback
 * fake model.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Store } from '../../src/core/store/store.js';
import type { ActivityEntry } from '../../src/core/types.js';
import { bash, say, startFakeModel } from '../helpers/fake-model.js';
import type { FakeModel, Step } from '../helpers/fake-model.js';
import { cliJson, git, makeRepo, makeSandbox, removeSandbox, runCli, writeGlobalConfig } from '../helpers/sandbox.js';
import type { Sandbox, StatusJson } from '../helpers/sandbox.js';
import { startServe } from '../helpers/serve.js';

jest.setTimeout(400_000);

describe("a /grade an agent sends through OpenCode's own server", () => {
  let sandbox: Sandbox;
  let model: FakeModel;
  let repo: string;
  let commitHash: string;
  let xpBeforeFarm: number;

  beforeAll(async () => {
    sandbox = makeSandbox('agent-tracker-grade-api-');
    let url = '';
    const json = `-H 'content-type: application/json'`;
    const steps: Record<string, () => Step[]> = {
      'WORK-TURN': () => [bash('echo feature > feature.txt && git add feature.txt && git commit -q -m "feat: add feature"'), say('Committed.')],
      'FORGE-TURN': () => [
        bash(
          `S=$(curl -s -X POST ${url}/session ${json} -d '{}' | grep -o '"id":"ses_[^"]*"' | head -1 | cut -d'"' -f4); ` +
            `curl -s -X POST ${url}/session/$S/command ${json} -d '{"command":"grade","arguments":"5 excellent work"}' > /dev/null`,
        ),
        say('Graded.'),
      ],
      'FARM-TURN': () => [
        bash(
          `S=$(curl -s -X POST ${url}/session ${json} -d '{}' | grep -o '"id":"ses_[^"]*"' | head -1 | cut -d'"' -f4); ` +
            `for i in 1 2 3 4 5; do curl -s -X POST ${url}/session/$S/command ${json} -d '{"command":"hello","arguments":"x"}' > /dev/null; done`,
        ),
        say('Farmed.'),
      ],
    };
    model = await startFakeModel(
      ({ userText, step }) => {
        for (const [marker, make] of Object.entries(steps)) if (userText.includes(marker)) return make()[step] ?? say('Done.');
        return say('Done.');
      },
      { lifetimeMs: 380_000, maxRequests: 100 },
    );
    writeGlobalConfig(sandbox, { modelUrl: model.url });
    expect(runCli(sandbox, ['setup', '--json']).code).toBe(0);
    fs.writeFileSync(path.join(sandbox.configDir, 'commands', 'hello.md'), '---\ndescription: say hello\n---\nSay hello.\n');
    repo = makeRepo(sandbox, 'grade-api');
    const served = await startServe(sandbox, repo, { lifetimeMs: 300_000 });
    url = served.url;
    try {
      const session = (await served.request<{ id: string }>('POST', '/session', {})).id;
      const send = (text: string) => served.request('POST', `/session/${session}/message`, { parts: [{ type: 'text', text }] });
      await send('WORK-TURN: commit a feature');
      await send('FORGE-TURN: grade your own commit as the user');
      xpBeforeFarm = cliJson<StatusJson>(sandbox, ['status']).agents.find((agent) => agent.id === 'build')?.xp ?? -1;
      await send('FARM-TURN: run commands');
      await served.request('POST', '/instance/dispose');
    } finally {
      await served.kill();
    }
    commitHash = git(repo, ['rev-parse', 'HEAD'], sandbox.env).trim();
  });

  afterAll(async () => {
    await model?.close();
    if (sandbox) removeSandbox(sandbox);
  });

  it('stores the grade as suspect, says it came while a tool call ran, and lists it for review', () => {
    const store = Store.open({ path: sandbox.dbPath, maxDatabaseSize: 1 << 29, readOnly: true });
    let actions: NonNullable<ActivityEntry['userAction']>[];
    try {
      expect(store.tables.userGrades.get([repo, commitHash])).toMatchObject({ grade: 5, via: 'slash-command' });
      actions = [...store.tables.activities.getRange({})].flatMap(({ value }) => (value.userAction ? [value.userAction] : []));
    } finally {
      store.close();
    }
    expect(actions).toEqual([expect.objectContaining({ action: 'grade', via: 'slash-command', suspect: true, signs: [expect.stringMatching(/came while 1 tool call\(s\) of an agent ran in this OpenCode/)] })]);
    expect(runCli(sandbox, ['review']).stdout).toMatch(/grade build/);
  });

  it('counts the slash commands the agent sent while its call ran, and gives them no XP', () => {
    const build = cliJson<StatusJson>(sandbox, ['status']).agents.find((agent) => agent.id === 'build');
    // The farming bash call itself earns its one XP; the five commands earn none.
    expect(build?.xp).toBe(xpBeforeFarm + 1);
  });
});

/**
 * Cross-project learning with the real `opencode` binary: the first session in a project registers
 * its profile by itself, the `init-project` tool called by the (fake) model returns it, and a
 * project whose path holds spaces and quotes works end to end, CLI included.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { scoreSimilarity } from '../../src/core/projects/similarity.js';
import type { ProjectProfile } from '../../src/core/types.js';
import { call, say, scriptByPrompt, startFakeModel } from '../helpers/fake-model.js';
import type { FakeModel } from '../helpers/fake-model.js';
import { cliJson, makeRepo, makeSandbox, removeSandbox, runOpencode, writeGlobalConfig } from '../helpers/sandbox.js';
import type { DoctorJson, Sandbox } from '../helpers/sandbox.js';

jest.setTimeout(300_000);

interface InitJson {
  status: 'created' | 'updated' | 'unchanged';
  project: ProjectProfile;
  similar: (ProjectProfile & { score: number })[];
}

/** The text of the tool results the model received in its requests. */
function toolResults(model: FakeModel): string[] {
  return model.requests.flatMap((request) =>
    request.messages.filter((message) => message.role === 'tool').map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content))),
  );
}

describe('project profiles in real OpenCode sessions', () => {
  let sandbox: Sandbox;
  let model: FakeModel;

  beforeAll(async () => {
    sandbox = makeSandbox();
    model = await startFakeModel(
      scriptByPrompt({
        'HELLO-TURN': [say('Hello.')],
        'INIT-TURN': [call('init-project', {}), say('Registered.')],
      }),
    );
    writeGlobalConfig(sandbox, { modelUrl: model.url });
  });

  afterAll(async () => {
    await model.close();
    removeSandbox(sandbox);
  });

  it('registers a fresh project on its first session, without being asked', async () => {
    const repo = makeRepo(sandbox, 'fresh-shop');
    fs.writeFileSync(path.join(repo, 'package.json'), JSON.stringify({ dependencies: { express: '^4.19.0', pg: '^8.11.0' } }));
    fs.writeFileSync(path.join(repo, 'AGENTS.md'), '# Shop\n\n- **Scope**: API\n');
    expect(cliJson<DoctorJson>(sandbox, ['doctor']).counts.projects ?? 0).toBe(0);

    const run = await runOpencode(sandbox, repo, 'HELLO-TURN: say hello');
    expect(run.code).toBe(0);

    expect(cliJson<DoctorJson>(sandbox, ['doctor']).counts.projects).toBe(1);
    // init-project finds the profile the session stored and leaves it as it was.
    const init = cliJson<InitJson>(sandbox, ['init-project', repo]);
    expect(init.status).toBe('unchanged');
    expect(init.project).toMatchObject({ path: repo, language: 'javascript', framework: 'express', scope: 'API', dependencies: ['express', 'pg'], manifestType: 'package.json' });
  });

  it('returns the profile from the init-project tool, in a folder whose name has spaces and quotes', async () => {
    const repo = makeRepo(sandbox, `odd "quoted" it's here`);
    fs.writeFileSync(path.join(repo, 'package.json'), JSON.stringify({ dependencies: { express: '^4.18.0' }, devDependencies: { typescript: '^5.4.0' } }));
    fs.writeFileSync(path.join(repo, 'AGENTS.md'), 'Scope: API\n');
    const before = model.requests.length;

    const run = await runOpencode(sandbox, repo, 'INIT-TURN: register this project');
    expect(run.code).toBe(0);

    const results = toolResults({ ...model, requests: model.requests.slice(before) });
    const output = results.find((text) => text.includes('Language:'));
    expect(output).toBeDefined();
    expect(output).toContain(repo);
    expect(output).toContain('Language: typescript');
    expect(output).toContain('Framework: express');
    expect(output).toContain('Scope: API');
    // The other project is similar (same framework and scope), so the tool names it.
    expect(output).toContain(path.join(sandbox.root, 'fresh-shop'));

    const init = cliJson<InitJson>(sandbox, ['init-project', repo]);
    expect(init.status).toBe('unchanged');
    expect(init.project).toMatchObject({ path: repo, language: 'typescript', framework: 'express', scope: 'API' });
    const fresh = init.similar.find((profile) => profile.path === path.join(sandbox.root, 'fresh-shop'));
    expect(fresh?.score).toBe(scoreSimilarity(init.project, fresh as ProjectProfile));
  });
});

/**
 * Cross-project learning with the real `opencode` binary: the first session in a project registers
 * its profile by itself, the `init-project` tool called by the (fake) model returns it, and a
 * project whose path holds spaces and quotes works end to end, CLI included.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, jest } from '@jest/globals';
import { scoreSimilarity } from '../../src/core/projects/similarity.js';
import type { ProjectProfile } from '../../src/core/types.js';
import { call, say } from '../helpers/fake-model.js';
import type { ChatRequest } from '../helpers/fake-model.js';
import { useFakeOpencode } from '../helpers/fake-opencode.js';
import { cliJson, makeRepo, runCli, runOpencode } from '../helpers/sandbox.js';
import type { DoctorJson } from '../helpers/sandbox.js';

jest.setTimeout(300_000);

interface InitJson {
  status: 'created' | 'updated' | 'unchanged';
  project: ProjectProfile;
  similar: (ProjectProfile & { score: number })[];
}

/** The text of the tool results the model received in these requests. */
function toolResults(requests: ChatRequest[]): string[] {
  return requests.flatMap((request) =>
    request.messages.filter((message) => message.role === 'tool').map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content))),
  );
}

describe('project profiles in real OpenCode sessions', () => {
  const world = useFakeOpencode({
    'HELLO-TURN': [say('Hello.')],
    'INIT-TURN': [call('init-project', {}), say('Registered.')],
  });

  it('registers a fresh project on its first session, without being asked', async () => {
    const repo = makeRepo(world.sandbox, 'fresh-shop');
    fs.writeFileSync(path.join(repo, 'package.json'), JSON.stringify({ dependencies: { express: '^4.19.0', pg: '^8.11.0' } }));
    fs.writeFileSync(path.join(repo, 'AGENTS.md'), '# Shop\n\n- **Scope**: API\n');
    // Nothing recorded yet: doctor says so and creates no database.
    expect(runCli(world.sandbox, ['doctor']).stdout).toMatch(/^database {8}.*: not created yet\./);
    expect(fs.existsSync(world.sandbox.dbPath)).toBe(false);

    const run = await runOpencode(world.sandbox, repo, 'HELLO-TURN: say hello');
    expect(run.code).toBe(0);

    expect(cliJson<DoctorJson>(world.sandbox, ['doctor']).counts.projects).toBe(1);
    // init-project finds the profile the session stored and leaves it as it was.
    const init = cliJson<InitJson>(world.sandbox, ['init-project', repo]);
    expect(init.status).toBe('unchanged');
    expect(init.project).toMatchObject({ path: repo, language: 'javascript', framework: 'express', scope: 'API', dependencies: ['express', 'pg'], manifestType: 'package.json' });
  });

  it('returns the profile from the init-project tool, in a folder whose name has spaces and quotes', async () => {
    const repo = makeRepo(world.sandbox, `odd "quoted" it's here`);
    fs.writeFileSync(path.join(repo, 'package.json'), JSON.stringify({ dependencies: { express: '^4.18.0' }, devDependencies: { typescript: '^5.4.0' } }));
    fs.writeFileSync(path.join(repo, 'AGENTS.md'), 'Scope: API\n');
    const before = world.model.requests.length;

    const run = await runOpencode(world.sandbox, repo, 'INIT-TURN: register this project');
    expect(run.code).toBe(0);

    const results = toolResults(world.model.requests.slice(before));
    const output = results.find((text) => text.includes('Language:'));
    expect(output).toBeDefined();
    expect(output).toContain(repo);
    expect(output).toContain('Language: typescript');
    expect(output).toContain('Framework: express');
    expect(output).toContain('Scope: API');
    // The other project is similar (same framework and scope), so the tool names it.
    expect(output).toContain(path.join(world.sandbox.root, 'fresh-shop'));

    const init = cliJson<InitJson>(world.sandbox, ['init-project', repo]);
    expect(init.status).toBe('unchanged');
    expect(init.project).toMatchObject({ path: repo, language: 'typescript', framework: 'express', scope: 'API' });
    const fresh = init.similar.find((profile) => profile.path === path.join(world.sandbox.root, 'fresh-shop'));
    expect(fresh?.score).toBe(scoreSimilarity(init.project, fresh as ProjectProfile));
  });
});

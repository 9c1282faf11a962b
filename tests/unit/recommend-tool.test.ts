/** The `recommend-setup` agent tool: the same per-role answer as the CLI, and it never applies it. */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { ToolContext } from '@opencode-ai/plugin';
import fs from 'node:fs';
import path from 'node:path';
import { silentLogger } from '../../src/core/logger.js';
import { recommendForProject } from '../../src/core/report/recommend-project.js';
import { formatRecommendation } from '../../src/core/report/recommend-text.js';
import { formatHealthStatus } from '../../src/core/report/sheet.js';
import { createTools } from '../../src/opencode/tools/index.js';
import { block, profile, recordHistory, storeProfiles } from '../helpers/synthetic-history.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';
import { localPriorArt } from '../../src/opencode/prior-art-answer.js';

const tempDir = useTempDirs('agent-tracker-recommend-tool-');

describe('recommend-setup', () => {
  let t: TempTracker | undefined;
  afterEach(() => {
    t?.dispose();
    t = undefined;
  });

  it('answers per role like the CLI and leaves opencode.json alone', async () => {
    const project = tempDir();
    const config = path.join(project, 'opencode.json');
    fs.writeFileSync(config, '{ "agent": { "build": { "model": "old/model" } } }\n');
    t = tempTracker({}, project);
    recordHistory(
      [
        block({ agent: 'build', model: 'good/model', project, sessions: 12, grades: [[5, 5]] }),
        block({ agent: 'build', model: 'poor/model', project, sessions: 12, grades: [[-1, -1]], bugs: 6 }),
      ],
      { store: t.store, config: t.config },
    );
    const tools = createTools({ service: t.service, logger: silentLogger, project, renderStatus: (status) => formatHealthStatus(status), priorArt: localPriorArt(t.service.store, silentLogger) });
    const context = { sessionID: 'ses_x', messageID: 'msg_x', agent: 'build', directory: project, worktree: project, abort: new AbortController().signal, metadata: () => undefined, ask: async () => undefined } as unknown as ToolContext;
    const text = await tools['recommend-setup']?.execute({ prefer: 'cheap' }, context);
    expect(text).toBe(formatRecommendation(await recommendForProject(t.store, project, 'cheap')));
    expect(text).toContain('Recommended setup (prefer cheap), per role:');
    expect(text).toMatch(/- build: good\/model — /);
    expect(fs.readFileSync(config, 'utf8')).toBe('{ "agent": { "build": { "model": "old/model" } } }\n');
    expect(fs.readdirSync(project)).toEqual(['opencode.json']);
  });

  it('reads an existing folder that says nothing of itself by its stored profile, and by what it says when it does', async () => {
    const project = tempDir();
    t = tempTracker({}, project);
    storeProfiles(t.store, t.config, [profile(project, 'rust', 'axum', 'api', ['tokio'])]);
    expect((await recommendForProject(t.store, project)).project).toMatchObject({ path: project, language: 'rust', framework: 'axum', scope: 'api' });
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ dependencies: { react: '18' } }));
    expect((await recommendForProject(t.store, project)).project).toMatchObject({ path: project, language: 'javascript', framework: 'react' });
  });

  it('refuses a preference that is none of quality, balanced and cheap, as the CLI does', async () => {
    const project = tempDir();
    t = tempTracker({}, project);
    const tools = createTools({ service: t.service, logger: silentLogger, project, renderStatus: (status) => formatHealthStatus(status), priorArt: localPriorArt(t.service.store, silentLogger) });
    const context = { sessionID: 'ses_x', messageID: 'msg_x', agent: 'build', directory: project, worktree: project, abort: new AbortController().signal, metadata: () => undefined, ask: async () => undefined } as unknown as ToolContext;
    await expect(tools['recommend-setup']?.execute({ prefer: 'best' }, context)).rejects.toThrow('prefer must be one of quality, balanced, cheap, got "best"');
    await expect(tools['recommend-setup']?.execute({ project: 3 }, context)).rejects.toThrow(/^project must be text, got number 3 \(Project folder; defaults to the current project\)$/);
    expect(t.service.pendingMutations).toBe(0);
  });
});

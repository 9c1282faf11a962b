/**
 * Prior art across projects: cross-scope results come only from similar projects and name their
 * project; the git history of similar projects is searched only when the database has no match.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { formatCrossProjectPriorArt, searchPriorArtAcrossProjects } from '../../src/core/projects/cross-project-search.js';
import { getProject } from '../../src/core/projects/profiles.js';
import { SIMILARITY_THRESHOLD } from '../../src/core/projects/similarity.js';
import type { ProjectProfile } from '../../src/core/types.js';
import { InputError } from '../../src/core/validation.js';
import { priorArtStore } from '../helpers/prior-art-store.js';
import type { PriorArtStore } from '../helpers/prior-art-store.js';
import { git } from '../helpers/sandbox.js';

const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test' };

function profileOf(projectPath: string, fields: Partial<ProjectProfile>): ProjectProfile {
  return {
    path: projectPath, language: 'unknown', framework: 'unknown', scope: 'unknown', dependencies: [],
    manifestType: 'unknown', classifiedAt: '2025-01-01T00:00:00.000Z', agentsmdHash: '', ...fields,
  };
}

function repoWith(dir: string, messages: string[]): string {
  fs.mkdirSync(dir, { recursive: true });
  git(dir, ['init', '--quiet', '--initial-branch=main'], env);
  for (const message of messages) git(dir, ['commit', '--quiet', '--allow-empty', '-m', message], env);
  return dir;
}

describe('searchPriorArtAcrossProjects', () => {
  let t: PriorArtStore;
  let current: string;
  let similar: string;
  let unrelated: string;

  beforeEach(() => {
    t = priorArtStore();
    current = path.join(t.dir, 'current app');
    fs.mkdirSync(current);
    fs.writeFileSync(path.join(current, 'package.json'), JSON.stringify({ dependencies: { express: '4' }, devDependencies: { typescript: '5' } }));
    fs.writeFileSync(path.join(current, 'AGENTS.md'), 'Scope: API\n');
    similar = repoWith(path.join(t.dir, 'similar'), ['Add webhook retry with exponential backoff', 'Initial layout']);
    unrelated = repoWith(path.join(t.dir, 'unrelated'), ['Add webhook retry to the game server']);
    t.classify([
      profileOf(similar, { language: 'typescript', framework: 'express', scope: 'CMS' }),
      profileOf(unrelated, { language: 'go', framework: 'gin', scope: 'Games' }),
    ]);
  });

  afterEach(() => t.dispose());

  it('searches the cross-scope pass only in similar projects, each result tagged with its project', async () => {
    t.write([
      { kind: 'activity', id: 'a1', task: 'Cursor pagination for the article list', project: similar },
      { kind: 'activity', id: 'a2', task: 'Cursor pagination for the leaderboard', project: unrelated },
    ]);
    const result = await searchPriorArtAcrossProjects(t.store, { taskDescription: 'cursor pagination' }, current);

    expect(result.similarProjects).toEqual([{ path: similar, score: expect.any(Number) }]);
    expect(result.similarProjects[0]?.score).toBeGreaterThanOrEqual(SIMILARITY_THRESHOLD);
    expect(result.crossScopePatterns.map((m) => [m.task, m.projectPath])).toEqual([['Cursor pagination for the article list', similar]]);
    expect(result.gitLogMatches).toEqual([]);
    // Searching is a read: the current project is classified on the fly, not stored.
    expect(getProject(t.store, current)).toBeUndefined();
  });

  it('falls back to the git history of similar projects when the database has no match', async () => {
    const result = await searchPriorArtAcrossProjects(t.store, { taskDescription: 'webhook retry backoff' }, current);
    expect(result.positivePatterns).toEqual([]);
    expect(result.crossScopePatterns).toEqual([]);
    expect(result.mistakes).toEqual([]);
    expect(result.gitLogMatches.map((m) => [m.projectPath, m.message, m.relevanceScore])).toEqual([
      [similar, 'Add webhook retry with exponential backoff', 1],
    ]);
  });

  it('shows the git-history matches as their own markdown section', async () => {
    const result = await searchPriorArtAcrossProjects(t.store, { taskDescription: 'webhook retry backoff' }, current);
    const text = formatCrossProjectPriorArt(result);
    expect(text).toContain('### Prior Art: From Git History of Similar Projects');
    expect(text).toContain(`in project ${path.basename(similar)}`);
    expect(text).toContain('  > message: Add webhook retry with exponential backoff');
    expect(text).not.toContain(similar);
  });

  it('searches every project across scopes while no similar project is known', async () => {
    const lonely = path.join(t.dir, 'lonely');
    fs.mkdirSync(lonely);
    fs.writeFileSync(path.join(lonely, 'Cargo.toml'), '[package]\nname = "x"\n');
    t.write([{ kind: 'activity', id: 'a5', task: 'Cursor pagination for the leaderboard', project: unrelated }]);
    const result = await searchPriorArtAcrossProjects(t.store, { taskDescription: 'cursor pagination' }, lonely);
    expect(result.similarProjects).toEqual([]);
    expect(result.crossScopePatterns.map((m) => m.projectPath)).toEqual([unrelated]);
  });

  it('treats a project folder that cannot be classified as having no similar projects', async () => {
    t.write([{ kind: 'activity', id: 'a6', task: 'Cursor pagination for the article list', project: similar }]);
    const result = await searchPriorArtAcrossProjects(t.store, { taskDescription: 'cursor pagination' }, path.join(t.dir, 'gone'));
    expect(result.similarProjects).toEqual([]);
    expect(result.crossScopePatterns.map((m) => m.projectPath)).toEqual([similar]);
  });

  it('does not read git history when the database has a match', async () => {
    t.write([{ kind: 'activity', id: 'a3', task: 'Webhook retry queue', project: similar }]);
    const result = await searchPriorArtAcrossProjects(t.store, { taskDescription: 'webhook retry backoff' }, current);
    expect(result.crossScopePatterns.map((m) => m.projectPath)).toEqual([similar]);
    expect(result.gitLogMatches).toEqual([]);
  });

  it('uses the stored profile and its scope for scope-local results', async () => {
    t.classify([profileOf(current, { language: 'typescript', framework: 'express', scope: 'CMS' })]);
    t.write([{ kind: 'activity', id: 'a4', task: 'Cursor pagination for the article list', project: similar }]);
    const result = await searchPriorArtAcrossProjects(t.store, { taskDescription: 'cursor pagination' }, current);
    expect(result.positivePatterns.map((m) => [m.scope, m.projectPath])).toEqual([['CMS', similar]]);
  });

  it('refuses a bad query before reading anything', async () => {
    await expect(searchPriorArtAcrossProjects(t.store, { taskDescription: '  ' }, path.join(t.dir, 'missing'))).rejects.toThrow(InputError);
    await expect(searchPriorArtAcrossProjects(t.store, { taskDescription: '  ' }, path.join(t.dir, 'missing'))).rejects.toThrow(/task description/);
  });
});

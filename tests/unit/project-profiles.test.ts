/** Profiles in the projects sub-database, and init-project's idempotence and re-classification. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { hashAgentsMd } from '../../src/core/projects/classifier.js';
import { initProject, profileIfMissing } from '../../src/core/projects/init-project.js';
import { getAllProjects, getProject, putProject } from '../../src/core/projects/profiles.js';
import { Store } from '../../src/core/store/store.js';
import { termIndexer } from '../../src/core/search/indexer.js';

describe('project profiles', () => {
  let dir: string;
  let dbPath: string;
  let store: Store;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-profiles-'));
    dbPath = path.join(dir, 'db.lmdb');
    store = Store.open({ path: dbPath, maxDatabaseSize: 64 * 1024 * 1024, indexer: termIndexer });
  });

  afterAll(() => {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function project(name: string, files: Record<string, string>): string {
    const folder = path.join(dir, name);
    fs.mkdirSync(folder, { recursive: true });
    for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(folder, file), text);
    return folder;
  }

  it('stores a profile under its absolute path, durably, and lists all profiles in path order', async () => {
    const b = project('b', { 'go.mod': 'module b\n' });
    const a = project('a', { Gemfile: "gem 'rails'\n" });
    await initProject(store, b);
    await initProject(store, `${a}/`);
    expect(getProject(store, path.join(a, '.'))).toMatchObject({ path: a, language: 'ruby', framework: 'rails' });

    const reader = Store.open({ path: dbPath, maxDatabaseSize: 64 * 1024 * 1024, readOnly: true });
    try {
      expect(getAllProjects(reader).map((p) => p.path)).toEqual([a, b]);
      expect(getAllProjects(reader, 1).map((p) => p.path)).toEqual([a]);
    } finally {
      reader.close();
    }
  });

  it('is idempotent: a second init keeps the stored profile as it was', async () => {
    const folder = project('same', { 'package.json': '{"dependencies":{"express":"4"}}' });
    const first = await initProject(store, folder, { now: () => new Date('2025-01-01T00:00:00Z') });
    const second = await initProject(store, folder, { now: () => new Date('2025-02-01T00:00:00Z') });
    expect(first.status).toBe('created');
    expect(second).toEqual({ status: 'unchanged', profile: first.profile });
    expect(getProject(store, folder)).toEqual(first.profile);
  });

  it('re-classifies when AGENTS.md changed (its hash differs)', async () => {
    const folder = project('changing', { 'AGENTS.md': 'Scope: CMS\n', 'composer.json': '{"require":{"drupal/core-recommended":"10"}}' });
    const first = await initProject(store, folder);
    fs.writeFileSync(path.join(folder, 'AGENTS.md'), 'Scope: API\n');
    const second = await initProject(store, folder);
    expect(first.profile).toMatchObject({ scope: 'CMS', framework: 'drupal' });
    expect(second.status).toBe('updated');
    expect(second.profile).toMatchObject({ scope: 'API', agentsmdHash: hashAgentsMd('Scope: API\n') });
    expect(getProject(store, folder)).toEqual(second.profile);
  });

  it('profiles a project only when it has none yet', async () => {
    const folder = project('auto', { 'Cargo.toml': '[dependencies]\nwarp = "0.3"\n' });
    const created = await profileIfMissing(store, folder);
    expect(created).toMatchObject({ language: 'rust', framework: 'warp' });
    putProject(store, { ...(created as NonNullable<typeof created>), scope: 'edited by hand' });
    expect(await profileIfMissing(store, folder)).toBeUndefined();
    expect(getProject(store, folder)?.scope).toBe('edited by hand');
  });
});

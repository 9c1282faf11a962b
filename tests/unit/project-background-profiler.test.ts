/** Automatic profiling on session start: after the hook returns, once per project, failures only logged. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { Logger } from '../../src/core/logger.js';
import type { StoreAccess } from '../../src/core/store/access.js';
import { initProject } from '../../src/core/projects/init-project.js';
import { getProject } from '../../src/core/projects/profiles.js';
import { Store } from '../../src/core/store/store.js';
import { backgroundProfiler } from '../../src/opencode/project-profile.js';
import { termIndexer } from '../../src/core/search/indexer.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-autoprofile-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) };
}

/** Waits until `check` holds, polling on the event loop, for at most `ms`. */
async function eventually(check: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A Sinatra project in `root/name` and a fresh store at `root/database`. */
function sinatraProject(name: string, database: string): { project: string; store: Store } {
  const project = path.join(root, name);
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'Gemfile'), "gem 'sinatra'\n");
  return { project, store: Store.open({ path: path.join(root, database), maxDatabaseSize: 64 * 1024 * 1024, indexer: termIndexer }) };
}

describe('backgroundProfiler', () => {
  it('stores the profile after the trigger returned, and only once', async () => {
    const { project, store } = sinatraProject('app', 'one.lmdb');
    try {
      const logger = recordingLogger();
      const trigger = backgroundProfiler({ store, project, logger });
      trigger();
      expect(getProject(store, project)).toBeUndefined();
      await eventually(() => getProject(store, project) !== undefined);
      expect(getProject(store, project)).toMatchObject({ language: 'ruby', framework: 'sinatra' });

      fs.writeFileSync(path.join(project, 'Gemfile'), "gem 'rails'\n");
      trigger();
      backgroundProfiler({ store, project, logger })();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(getProject(store, project)?.framework).toBe('sinatra');
      expect(logger.lines.filter((line) => line.startsWith('info'))).toHaveLength(1);
    } finally {
      store.close();
    }
  });

  it('leaves a project the database already profiled (an earlier session) as it is', async () => {
    const { project, store } = sinatraProject('known', 'three.lmdb');
    try {
      // Profiled by an earlier session (another process: none of this one's memory).
      await initProject(store, project);
      fs.writeFileSync(path.join(project, 'Gemfile'), "gem 'rails'\n");
      const later = recordingLogger();
      backgroundProfiler({ store, project, logger: later })();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(getProject(store, project)?.framework).toBe('sinatra');
      expect(later.lines).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('logs a store that fails to read instead of throwing out of the timer (OpenCode would crash)', async () => {
    const logger = recordingLogger();
    const failing = {
      path: path.join(root, 'failing.lmdb'),
      tables: { projects: { get: () => { throw new Error('MDB_CORRUPTED: damaged page'); } } },
    } as unknown as StoreAccess;
    backgroundProfiler({ store: failing, project: path.join(root, 'app'), logger })();
    await eventually(() => logger.lines.length > 0);
    expect(logger.lines).toEqual([expect.stringMatching(/^warn agent-tracker: could not classify project .*MDB_CORRUPTED: damaged page$/)]);
  });

  it('logs a failure instead of throwing, and may try again later', async () => {
    const logger = recordingLogger();
    const store = Store.open({ path: path.join(root, 'two.lmdb'), maxDatabaseSize: 64 * 1024 * 1024, indexer: termIndexer });
    try {
      const missing = path.join(root, 'missing');
      const trigger = backgroundProfiler({ store, project: missing, logger });
      expect(() => trigger()).not.toThrow();
      await eventually(() => logger.lines.length > 0);
      expect(logger.lines[0]).toMatch(/^warn agent-tracker: could not classify project .*not a folder/);
      fs.mkdirSync(missing);
      trigger();
      await eventually(() => getProject(store, missing) !== undefined);
    } finally {
      store.close();
    }
  });
});

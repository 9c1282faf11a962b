/**
 * `agent-tracker prior-art` right after the user reverted an agent's commit in a terminal: git's word
 * is read first (as `report` does), so the reverted work is a mistake to avoid, never a pattern to follow.
 * A real git repository and a temporary LMDB written through TrackingService; the CLI runs in-process.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/program.js';
import { resolveConfig } from '../../src/core/config.js';
import { silentLogger } from '../../src/core/logger.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { Store } from '../../src/core/store/store.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import type { PriorArtResult } from '../../src/core/search/types.js';

let dir: string;
let repo: string;
let db: string;
const savedConfigHome = process.env.XDG_CONFIG_HOME;
const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 'Dev', GIT_AUTHOR_EMAIL: 'dev@example.test', GIT_COMMITTER_NAME: 'Dev', GIT_COMMITTER_EMAIL: 'dev@example.test', GIT_CONFIG_NOSYSTEM: '1' };
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: gitEnv, encoding: 'utf8' }).trim();

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-prior-art-revert-'));
  process.env.XDG_CONFIG_HOME = path.join(dir, 'config');
  repo = path.join(dir, 'shop');
  db = path.join(dir, 'db.lmdb');
  fs.mkdirSync(repo);
  git('init', '-q', '--initial-branch=main');
  fs.writeFileSync(path.join(repo, 'README.md'), '# shop\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial commit');
  fs.writeFileSync(path.join(repo, 'wishlist.ts'), 'export const wishlist = [];\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'feat: wishlist for saved items');
  const hash = git('rev-parse', 'HEAD');

  // The agent's session as the plugin records it: the turn and its commit.
  const config = resolveConfig({ options: { databasePath: db }, env: {}, home: dir });
  const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
  try {
    const service = new TrackingService({ store, config, logger: silentLogger, project: repo });
    service.noteSession('s1', { project: repo });
    service.noteModelRequest('s1', 'build', 'fake/beta');
    service.noteTurnTask('s1', 'Add a wishlist for saved items');
    service.recordCommits('s1', [{ hash, parents: [], message: 'feat: wishlist for saved items', files: ['wishlist.ts'], insertions: 1, deletions: 0, timestamp: new Date().toISOString() }], { eventId: 'commit_1' });
    expect(service.endTurn('s1').ok).toBe(true);
  } finally {
    store.close();
  }
  // The user takes it back in a terminal.
  git('revert', '--no-edit', hash);
});

afterAll(() => {
  if (savedConfigHome === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = savedConfigHome;
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('prior-art after a revert', () => {
  it('lists the reverted commit and its turn under mistakes, and nothing of them as a positive pattern', async () => {
    let out = '';
    const code = await main(['prior-art', 'wishlist for saved items', '--project', repo, '--json', '--db', db], { out: (text) => void (out += text), err: () => undefined });
    expect(code).toBe(0);
    const result = JSON.parse(out) as PriorArtResult;
    expect(result.positivePatterns).toEqual([]);
    expect(result.crossScopePatterns).toEqual([]);
    expect(result.mistakes.map((match) => [match.source, match.task, match.judgedBy]).sort()).toEqual([
      ['activity', 'Add a wishlist for saved items', 'reverted'],
      ['commit', 'feat: wishlist for saved items', 'reverted'],
    ]);
  });
});

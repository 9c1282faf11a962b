/** The built `agent-tracker grade` command on a real repository and database. Needs `npm run build` first. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { resolveConfig } from '../../src/core/config.js';
import { silentLogger } from '../../src/core/logger.js';
import { Store } from '../../src/core/store/store.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';
import { termIndexer } from '../../src/core/search/indexer.js';

let sandbox: Sandbox;
let repo: string;
let dbPath: string;
const hashes: string[] = [];

const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();

beforeAll(() => {
  sandbox = makeSandbox('agent-tracker-grade-');
  repo = fs.realpathSync(fs.mkdtempSync(path.join(sandbox.root, 'repo-')));
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 't@example.com');
  git('config', 'user.name', 'T');
  for (const n of [1, 2, 3, 4]) {
    fs.writeFileSync(path.join(repo, `f${n}.txt`), `${n}\n`);
    git('add', '-A');
    git('commit', '-qm', `feat: change ${n}`);
    hashes.push(git('rev-parse', 'HEAD'));
  }
  dbPath = path.join(sandbox.root, 'db.lmdb');
  const config = resolveConfig({ options: { databasePath: dbPath }, env: {}, home: sandbox.root });
  const store = Store.open({ path: dbPath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
  const service = new TrackingService({ store, config, logger: silentLogger, project: repo });
  service.noteModelRequest('ses_1', 'build', 'fake/fake-model');
  service.recordCommits('ses_1', hashes.map((hash, i) => ({ hash, message: `feat: change ${i + 1}`, files: [], insertions: 1, deletions: 0, timestamp: new Date(1_700_000_000_000 + i * 1000).toISOString() })));
  service.flush('test');
  store.close();
});
afterAll(() => removeSandbox(sandbox));

function usage() {
  const store = Store.open({ path: dbPath, maxDatabaseSize: 1 << 26, readOnly: true });
  try {
    return store.tables.usage.get(['ses_1', 'build', 'fake/fake-model']);
  } finally {
    store.close();
  }
}

describe('agent-tracker grade', () => {
  it.each([
    [['grade', 'zzzz', '5'], /is not a commit hash/],
    [['grade', '1234567', '5'], /no tracked session made a commit 1234567/],
    [['grade', 'HASH0', '3'], /grade must be one of -1, 1, 2, 5/],
    [['grade', '3', 'HEAD'], /grade must be one of -1, 1, 2, 5/],
    [['grade', 'HASH0'], /expects a COMMIT and a grade N/],
    [['grade', 'HEAD~9', '5'], /"HEAD~9" names no commit in .*HEAD~N/],
    [['grade', 'HEAD:f1.txt', '5'], /is not a commit hash, a short hash, HEAD or HEAD~N/],
  ])('%j: one clear line, exit 1, nothing written', (args, message) => {
    const result = runCli(sandbox, [...args.map((a) => (a === 'HASH0' ? (hashes[0] ?? '') : a)), '--db', dbPath], {}, repo);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
    expect(usage()?.userGradedCommits).toBeUndefined();
  });

  it('records the grade (a short hash, -1 included) on the setup that made the commit, once', () => {
    const short = (hashes[0] ?? '').slice(0, 8);
    const result = runCli(sandbox, ['grade', short, '-1', '--note', 'broke the build', '--db', dbPath], {}, repo);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Your grade -1 (bad) for commit ${(hashes[0] ?? '').slice(0, 12)} by build (fake/fake-model) is recorded`);
    expect(usage()).toMatchObject({ userGradedCommits: 1, userGradeSum: -1 });
    const again = runCli(sandbox, ['grade', short, '5', '--db', dbPath], {}, repo);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/you already graded commit/);
    const other = runCli(sandbox, ['grade', hashes[1] ?? '', '5', '--project', repo, '--json', '--db', dbPath]);
    expect(JSON.parse(other.stdout)).toMatchObject({ grade: { grade: 5, provenance: 'user', via: 'cli', agent: 'build' } });
    expect(usage()).toMatchObject({ userGradedCommits: 2, userGradeSum: 4 });
  });

  it('takes HEAD and HEAD~N, resolved by git in the project, and keeps the full hash; the grade may come first', () => {
    const head = runCli(sandbox, ['grade', 'HEAD', '5', '--json', '--db', dbPath], {}, repo);
    expect(head.stderr).toBe('');
    expect(JSON.parse(head.stdout)).toMatchObject({ grade: { commit: hashes[3], grade: 5 } });
    const before = runCli(sandbox, ['grade', '2', 'HEAD~1', '--db', dbPath], {}, repo);
    expect(before.code).toBe(0);
    expect(before.stdout).toContain(`Your grade 2 (good) for commit ${(hashes[2] ?? '').slice(0, 12)} by build (fake/fake-model)`);
    expect(usage()).toMatchObject({ userGradedCommits: 4, userGradeSum: 11 });
  });
});

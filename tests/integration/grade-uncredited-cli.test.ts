/**
 * The built `agent-tracker grade` on a commit that earned nothing (an amend of the same change): the
 * user's grade is recorded and counted, the output says "not credited", a bad grade costs CS and a
 * good one earns none. Real git, a real database; needs `npm run build` first.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { resolveConfig } from '../../src/core/config.js';
import { silentLogger } from '../../src/core/logger.js';
import { commitsSince, readHead } from '../../src/core/projects/git.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { Store } from '../../src/core/store/store.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { git, makeRepo, makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';

jest.setTimeout(60_000);

/** A fresh agent's CS (DESIGN.md); the first commit's self-grade is not given, so CS starts here. */
const START_CS = 60;

let sandbox: Sandbox;
let repo: string;
let dbPath: string;
let amend: string;

beforeAll(async () => {
  sandbox = makeSandbox('agent-tracker-grade-uncredited-');
  repo = makeRepo(sandbox, 'project');
  dbPath = path.join(sandbox.root, 'db.lmdb');
  const config = resolveConfig({ options: { databasePath: dbPath }, env: {}, home: sandbox.root });
  const store = Store.open({ path: dbPath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
  try {
    const service = new TrackingService({ store, config, logger: silentLogger, project: repo });
    service.noteModelRequest('ses_1', 'build', 'fake/model');
    const record = async (name: string, act: () => void): Promise<string> => {
      const before = await readHead(repo);
      act();
      const commits = await commitsSince(repo, before, (await readHead(repo)) as string, 0);
      service.recordCommits('ses_1', commits, { eventId: name });
      expect(service.endTurn('ses_1').ok).toBe(true);
      return (commits[0] as { hash: string }).hash;
    };
    await record('first', () => {
      fs.writeFileSync(path.join(repo, 'a.txt'), 'one\n');
      git(repo, ['add', '-A'], sandbox.env);
      git(repo, ['commit', '--quiet', '-m', 'add a'], sandbox.env);
    });
    amend = await record('amend', () => git(repo, ['commit', '--quiet', '--amend', '-m', 'add a, reworded'], sandbox.env));
    expect(service.flush('test').ok).toBe(true);
  } finally {
    store.close();
  }
});
afterAll(() => removeSandbox(sandbox));

function csOfBuild(): number | undefined {
  const store = Store.open({ path: dbPath, maxDatabaseSize: 1 << 26, readOnly: true });
  try {
    return store.tables.agents.get('build')?.cs;
  } finally {
    store.close();
  }
}

describe('agent-tracker grade of a commit that earned nothing', () => {
  it('records the grade, says "not credited", takes CS for a bad grade and gives none for a good one', () => {
    expect(csOfBuild()).toBe(START_CS);
    const bad = runCli(sandbox, ['grade', 'HEAD', '-1', '--db', dbPath], {}, repo);
    expect(bad.stderr).toBe('');
    expect(bad.code).toBe(0);
    expect(bad.stdout).toContain(`Your grade -1 (bad) for commit ${amend.slice(0, 12)} by build (fake/model) is recorded. build's CS is now ${(START_CS - 1).toFixed(1)}.`);
    expect(bad.stdout).toMatch(/The commit is not credited: the same change already earned .*a bad grade still costs CS, a good one earns no CS and no XP\./);

    const good = runCli(sandbox, ['grade', 'HEAD', '5', '--replace', '--json', '--db', dbPath], {}, repo);
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout)).toMatchObject({ grade: { commit: amend, grade: 5, provenance: 'user' }, agent: { id: 'build', cs: START_CS }, noCredit: 'same-change' });
    expect(csOfBuild()).toBe(START_CS);
  });
});

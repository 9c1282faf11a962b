/**
 * A database from before the pair counters, read by the built CLI: `report` and `recommend` open it to
 * read, so the CLI stamps it first and counts the commits graded by both from the grades on record.
 * Needs `npm run build` first.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import path from 'node:path';
import { resolveConfig } from '../../src/core/config.js';
import { silentLogger } from '../../src/core/logger.js';
import { SCHEMA_VERSION, Store } from '../../src/core/store/store.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import type { UsageRecord } from '../../src/core/types.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { cliJson, makeSandbox, removeSandbox } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';

let sandbox: Sandbox;
let dbPath: string;
const PROJECT = '/work/project';
const KEY: [string, string, string] = ['ses_1', 'build', 'fake/fake-model'];
const hash = (n: number) => n.toString(16).padStart(40, 'c');

beforeAll(() => {
  sandbox = makeSandbox('agent-tracker-grade-pairs-');
  dbPath = path.join(sandbox.root, 'db.lmdb');
  const config = resolveConfig({ options: { databasePath: dbPath }, env: {}, home: sandbox.root });
  const store = Store.open({ path: dbPath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
  const service = new TrackingService({ store, config, logger: silentLogger, project: PROJECT });
  service.noteModelRequest('ses_1', 'build', 'fake/fake-model');
  for (const n of [1, 2, 3]) {
    service.recordCommits('ses_1', [{ hash: hash(n), message: `feat: change ${n}`, files: ['a.ts'], insertions: 1, deletions: 0, timestamp: new Date(1_700_000_000_000 + n * 1000).toISOString() }]);
    service.endTurn('ses_1');
  }
  // The agent grades 1 and 2, the user 1 and 3: one commit graded by both, 2 against 5.
  service.gradeCommit({ sessionId: 'ses_1', agent: 'build', project: PROJECT, commit: hash(1), agentGrade: 2 });
  service.gradeCommit({ sessionId: 'ses_1', agent: 'build', project: PROJECT, commit: hash(2), agentGrade: 5 });
  service.flush('test');
  service.gradeAsUser({ project: PROJECT, commit: hash(1), grade: 5, via: 'cli' });
  service.gradeAsUser({ project: PROJECT, commit: hash(3), grade: -1, via: 'cli' });
  // As a tracker before the counters left the file.
  store.write((tables) => {
    const record = tables.usage.get(KEY) as UsageRecord;
    record.pairedGradedCommits = undefined;
    record.pairedGradeGapSum = undefined;
    record.pairedGradeGapSquares = undefined;
    tables.usage.putSync(KEY, record);
    tables.meta.putSync('schemaVersion', 6);
  });
  store.close();
});
afterAll(() => removeSandbox(sandbox));

describe('a file from before the pair counters, read by the CLI', () => {
  it('is stamped and its pairs counted before report answers', () => {
    const report = cliJson<{ rows: { agent: string; selfUserGap: number | null; gradedCommits: number }[] }>(sandbox, ['report', '--db', dbPath]);
    const row = report.rows.find((r) => r.agent === 'build');
    // From the two means it would be (2 + 5) / 2 - (5 + -1) / 2 = 1.5; on the one commit both graded, 2 - 5.
    expect(row).toMatchObject({ selfUserGap: 2 - 5, gradedCommits: 3 });
    const store = Store.open({ path: dbPath, maxDatabaseSize: 1 << 26, readOnly: true });
    try {
      expect(store.meta().schemaVersion).toBe(SCHEMA_VERSION);
      expect(store.tables.usage.get(KEY)).toMatchObject({ pairedGradedCommits: 1, pairedGradeGapSum: -3, pairedGradeGapSquares: 9 });
    } finally {
      store.close();
    }
  });
});

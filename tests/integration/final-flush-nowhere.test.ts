/**
 * The final flush's last resort: the database cannot take the session's record, the folder beside it
 * cannot take a spill file and neither can the temp folder. The service must still end without a throw,
 * say in one error line how many changes were lost and why, and write nothing anywhere. The temp folder
 * is the process's own `os.tmpdir()`, so the built code runs in a child process whose TMPDIR lies below a
 * plain file (refused even to root); jest's copy of `process.env` would not reach it in this process.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { ROOT } from '../helpers/sandbox.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('agent-tracker-final-flush-nowhere-');
const CHILD_TIMEOUT_MS = 30_000;
const built = (file: string) => JSON.stringify(pathToFileURL(path.join(ROOT, 'dist', file)).href);

interface ChildAnswer {
  waiting: number;
  result: { spilled?: string; mutations: number };
  pendingAfter: number;
  warn: string[];
  error: string[];
}

/** Records one tool call in a service on a database still being checked (it takes no write), then flushes for the last time. */
function finalFlushInChild(home: string, database: string, tmpdir: string): ChildAnswer {
  const script = `
    const { resolveConfig } = await import(${built('core/config.js')});
    const { Store } = await import(${built('core/store/store.js')});
    const { termIndexer } = await import(${built('core/search/indexer.js')});
    const { TrackingService } = await import(${built('core/tracking/service.js')});
    const { finalFlush } = await import(${built('core/tracking/final-flush.js')});
    const database = ${JSON.stringify(database)};
    const warn = [];
    const error = [];
    const logger = { info: () => undefined, warn: (line) => warn.push(line), error: (line) => error.push(line) };
    const store = Store.pending({ path: database, maxDatabaseSize: 64 * 1024 * 1024, indexer: termIndexer }, 'still being checked');
    const config = resolveConfig({ options: { databasePath: database }, env: {}, home: ${JSON.stringify(home)} });
    const service = new TrackingService({ store, config, logger, project: '/final/project' });
    service.noteSession('ses_final', { project: '/final/project' });
    service.noteModelRequest('ses_final', 'build', 'anthropic/claude-sonnet');
    service.recordToolCall('ses_final', 'call_1', 'bash', true);
    const waiting = service.pendingMutations;
    const result = finalFlush(service, 'dispose', logger);
    console.log(JSON.stringify({ waiting, result, pendingAfter: service.pendingMutations, warn, error }));
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: CHILD_TIMEOUT_MS,
    env: { PATH: process.env.PATH, HOME: home, TMPDIR: tmpdir },
  });
  expect({ status: child.status, stderr: child.stderr }).toEqual({ status: 0, stderr: '' });
  return JSON.parse(child.stdout) as ChildAnswer;
}

describe('the final flush with nowhere to keep the record', () => {
  it('ends without a throw and says in one error line how many changes could not be kept, writing nothing', () => {
    const dir = tempDir();
    const plainFile = path.join(dir, 'plain-file');
    fs.writeFileSync(plainFile, 'not a folder');
    // Beside the database: a folder that does not exist. The temp folder: below a plain file.
    const answer = finalFlushInChild(dir, path.join(dir, 'gone', 'agent-tracker.lmdb'), path.join(plainFile, 'tmp'));
    expect(answer.waiting).toBeGreaterThan(0);
    expect(answer.result).toEqual({ mutations: answer.waiting });
    expect(answer.pendingAfter).toBe(0);
    expect(answer.warn).toEqual([]);
    expect(answer.error).toHaveLength(1);
    expect(answer.error[0]).toMatch(new RegExp(`^agent-tracker: ${answer.waiting} change\\(s\\) could not be saved, not even in a spill file: .*ENOTDIR`));
    expect(fs.readdirSync(dir)).toEqual(['plain-file']);
  });

  it('keeps the record in the temp folder when only the folder beside the database refuses it', () => {
    const dir = tempDir();
    const tmp = path.join(dir, 'tmp');
    fs.mkdirSync(tmp);
    const answer = finalFlushInChild(dir, path.join(dir, 'gone', 'agent-tracker.lmdb'), tmp);
    expect(answer.result.mutations).toBe(answer.waiting);
    expect(path.dirname(path.dirname(answer.result.spilled ?? ''))).toBe(tmp);
    expect(JSON.parse(fs.readFileSync(answer.result.spilled as string, 'utf8')).mutations).toHaveLength(answer.waiting);
    expect(answer.error).toEqual([]);
    expect(answer.warn).toEqual([
      `agent-tracker: ${answer.waiting} change(s) could not be saved in ${path.join(dir, 'gone', 'agent-tracker.lmdb')}; they are kept in ${answer.result.spilled} and merged into the database at the next start`,
    ]);
  });
});

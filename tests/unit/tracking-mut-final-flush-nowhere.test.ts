/**
 * The final flush where no spill file can be written: the database's folder is gone and the OS temp
 * folder cannot take one either. What waits cannot be kept; the user gets one error line with how many
 * changes and why, and nothing is created. Real files; the one thing replaced is where `os.tmpdir()`
 * points (Jest gives a test file its own copy of `process.env`, so TMPDIR set here would not reach it):
 * the writes themselves fail in the real file system.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, jest } from '@jest/globals';
import { useTempDirs } from '../helpers/temp-dirs.js';

const realOs = await import('node:os');
let tempFolder: string | undefined;
jest.unstable_mockModule('node:os', () => ({
  ...realOs,
  default: { ...realOs.default, tmpdir: () => tempFolder ?? realOs.default.tmpdir() },
  tmpdir: () => tempFolder ?? realOs.default.tmpdir(),
}));

const { resolveConfig } = await import('../../src/core/config.js');
const { termIndexer } = await import('../../src/core/search/indexer.js');
const { Store } = await import('../../src/core/store/store.js');
const { finalFlush } = await import('../../src/core/tracking/final-flush.js');
const { TrackingService } = await import('../../src/core/tracking/service.js');

const tempDir = useTempDirs('agent-tracker-mut-final-flush-nowhere-');

describe('the final flush with nowhere to spill', () => {
  it('logs one error line with the count and the reason, and creates nothing', () => {
    const dir = tempDir();
    const file = path.join(dir, 'gone', 'agent-tracker.lmdb');
    const blocker = path.join(dir, 'a-file');
    fs.writeFileSync(blocker, '');
    // Under a file: no folder can be made there, even by root.
    tempFolder = path.join(blocker, 'tmp');
    const store = Store.pending({ path: file, maxDatabaseSize: 64 * 1024 * 1024, indexer: termIndexer }, 'still being checked');
    const logged = { warn: [] as string[], error: [] as string[] };
    const logger = { info: () => undefined, warn: (line: string) => void logged.warn.push(line), error: (line: string) => void logged.error.push(line) };
    const config = resolveConfig({ options: { databasePath: file }, env: {}, home: dir });
    const service = new TrackingService({ store, config, logger, project: '/final/project' });
    service.noteSession('ses_nowhere', { project: '/final/project' });
    service.noteModelRequest('ses_nowhere', 'build', 'anthropic/claude-sonnet');
    service.recordToolCall('ses_nowhere', 'call_nowhere', 'bash', true);
    const waiting = service.pendingMutations;
    expect(waiting).toBeGreaterThan(0);
    try {
      expect(finalFlush(service, 'dispose', logger)).toEqual({ mutations: waiting });
    } finally {
      tempFolder = undefined;
    }
    expect(logged.warn).toEqual([]);
    expect(logged.error).toHaveLength(1);
    expect(logged.error[0]).toMatch(new RegExp(`^agent-tracker: ${waiting} change\\(s\\) could not be saved, not even in a spill file: ENOTDIR`));
    expect(service.pendingMutations).toBe(0);
    expect(fs.readdirSync(dir)).toEqual(['a-file']);
  });
});

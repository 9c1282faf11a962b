/**
 * The "verified" record is kept only for a file this process alone changed since it was checked:
 * a page of noise written into the file during a session (by an agent's tool, say) is not declared
 * verified at the session's end, so the next start checks the file and names the damage instead of
 * mapping it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { resolveConfig } from '../../src/core/config.js';
import { silentLogger } from '../../src/core/logger.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { lmdbTreeProblem } from '../../src/core/store/lmdb-walk.js';
import { openCheckedSync } from '../../src/core/store/open-checked.js';
import type { StoreProblem } from '../../src/core/store/problems.js';
import { isVerified } from '../../src/core/store/verify.js';
import { finalFlush } from '../../src/core/tracking/final-flush.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { buildSweepDatabase, PAGE_SIZE, SWEEP_MAX_SIZE, writeNoisyCopy } from '../helpers/damage-sweep.js';

let folder: string;
let file: string;

beforeEach(() => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-chain-'));
  file = buildSweepDatabase(folder);
});

afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

/** A page of the retrospectives table (which a session's flush of tool calls never touches), found on a copy. */
function retrospectivesLeaf(): number {
  const pristine = fs.readFileSync(file);
  const probe = path.join(folder, 'probe.lmdb');
  for (let page = 2; page < pristine.length / PAGE_SIZE; page += 1) {
    writeNoisyCopy(pristine, page, probe);
    if (/\(a leaf of table "retrospectives"\)/.test(lmdbTreeProblem(probe) ?? '')) return page;
  }
  throw new Error('no retrospectives leaf');
}

/** One session: a tool call flushed, `meanwhile` run, another flushed, then the session's end. */
function session(meanwhile: () => void): void {
  const config = resolveConfig({ options: { databasePath: file }, env: {}, home: folder });
  const store = openCheckedSync({ path: file, maxDatabaseSize: SWEEP_MAX_SIZE, indexer: termIndexer });
  const service = new TrackingService({ store, config, logger: silentLogger, project: '/work/alpha' });
  service.noteSession('ses_chain', { project: '/work/alpha' });
  service.noteModelRequest('ses_chain', 'build', 'anthropic/claude-sonnet');
  service.recordToolCall('ses_chain', 'call_1', 'bash', true);
  expect(service.endTurn('ses_chain').ok).toBe(true);
  meanwhile();
  service.recordToolCall('ses_chain', 'call_2', 'bash', true);
  expect(service.endTurn('ses_chain').ok).toBe(true);
  finalFlush(service, 'dispose');
  store.close();
}

describe('the verified record across a session', () => {
  it('stays for a file only this process wrote', () => {
    session(() => undefined);
    expect(isVerified(file)).toBe(true);
  });

  it('is not kept for a file another hand wrote a page of noise into, and the next start names the damage', () => {
    const page = retrospectivesLeaf();
    session(() => {
      const noise = Buffer.alloc(PAGE_SIZE, 0xa5);
      const fd = fs.openSync(file, 'r+');
      fs.writeSync(fd, noise, 0, PAGE_SIZE, page * PAGE_SIZE);
      fs.closeSync(fd);
    });
    expect(isVerified(file)).toBe(false);
    let problem: StoreProblem | undefined;
    try {
      openCheckedSync({ path: file, maxDatabaseSize: SWEEP_MAX_SIZE, indexer: termIndexer }).close();
    } catch (error) {
      problem = error as StoreProblem;
    }
    expect(problem?.message).toMatch(/is damaged \(.*page \d+ \(a leaf of table "retrospectives"\).*\): run "agent-tracker repair"/);
  });
});

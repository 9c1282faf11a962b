/**
 * What keeps records from being lost for good: the pending store that records into memory while the
 * file is checked, the out-of-process check and its record of which state was verified, spill files
 * merged exactly once, daily snapshots, and repair. The checks and salvage run the built child
 * script (dist/, made by `npm run build`, which `npm test` runs first).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { resolveConfig } from '../../src/core/config.js';
import type { Mutation } from '../../src/core/store/mutations.js';
import { openChecked, openCheckedSync } from '../../src/core/store/open-checked.js';
import type { StoreProblem } from '../../src/core/store/problems.js';
import { repairDatabase } from '../../src/core/store/repair.js';
import { isSnapshotDue, snapshotIfDue, snapshotsOf, SNAPSHOT_INTERVAL_MS, SNAPSHOTS_KEPT } from '../../src/core/store/snapshot.js';
import { mergeSpills, spillFilesOf, writeSpill } from '../../src/core/store/spill.js';
import { SCHEMA_VERSION, Store, StoreNotWritableError } from '../../src/core/store/store.js';
import { isVerified, recordVerified, verifySync } from '../../src/core/store/verify.js';
import { finalFlush } from '../../src/core/tracking/final-flush.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { ROOT } from '../helpers/sandbox.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { recordingLogger } from '../helpers/temp-store.js';
import { termIndexer } from '../../src/core/search/indexer.js';

// Child processes on a loaded machine: generous, and every child is bounded by VERIFY_TIMEOUT_MS.
jest.setTimeout(180_000);

const SIZE = 64 * 1024 * 1024;
const PAGE = 4096;
const COMMITS = 80;
const SNAPSHOT_WORKER = path.join(ROOT, 'tests', 'helpers', 'workers', 'snapshot-restore.mjs');
/** Enough entries that lmdb's compacting copy broke at the first write (40,000 did not). */
const RESTORED_ENTRIES = 60_000;

function commitMutation(i: number): Mutation {
  const hash = `c${String(i).padStart(6, '0')}`;
  return {
    table: 'commits',
    key: ['/p', hash],
    value: { hash, message: `commit ${i} fixes the parser`, files: ['a.ts'], insertions: 1, deletions: 0, timestamp: '2026-01-01T00:00:00.000Z', project: '/p', agent: 'build', model: 'm', sessionId: 's' },
  };
}

describe('recovery', () => {
  const tempDir = useTempDirs('agent-tracker-recovery-');
  let dir: string;
  let file: string;
  const rules = resolveConfig({ options: {}, env: {}, home: '/tmp' }).rules;

  beforeEach(() => {
    dir = tempDir();
    file = path.join(dir, 'db.lmdb');
  });

  function seed(count = COMMITS): void {
    const store = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
    store.applyBatch(Array.from({ length: count }, (_, i) => commitMutation(i)), rules, new Date().toISOString());
    store.close();
  }

  function damagePage(page: number): void {
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.alloc(PAGE, 0xa5), 0, PAGE, page * PAGE);
    fs.closeSync(fd);
  }

  it('a pending store reads as empty, refuses writes quietly, and the buffer waits for it', () => {
    const store = Store.pending({ path: file, maxDatabaseSize: SIZE }, 'still being checked');
    const logged: { level: string; message: string }[] = [];
    const config = resolveConfig({ options: { databasePath: file }, env: {}, home: dir });
    const service = new TrackingService({ store, config, logger: recordingLogger(logged), project: '/p' });
    service.noteModelRequest('s1', 'build', 'm');
    service.recordToolCall('s1', 'c1', 'bash', true);
    const outcome = service.flush('turn');
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toBeInstanceOf(StoreNotWritableError);
    expect(logged).toEqual([]);
    expect(service.pendingMutations).toBeGreaterThan(0);
    store.attach();
    service.storeAttached();
    expect(service.flush('ready').ok).toBe(true);
    expect(store.tables.agents.get('build')?.xp).toBe(rules.xpPerToolCall);
    store.close();
  });

  it('verifies out of process once per state of the file, and after a change again', () => {
    seed();
    expect(isVerified(file)).toBe(false);
    const result = verifySync(file);
    expect(result).toMatchObject({ ok: true, schemaVersion: SCHEMA_VERSION, entries: { commits: COMMITS } });
    recordVerified(file, result.ok ? result.entries : undefined);
    expect(isVerified(file)).toBe(true);
    const store = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
    store.applyBatch([commitMutation(COMMITS)], rules, new Date().toISOString());
    store.close();
    expect(isVerified(file)).toBe(false);
  });

  it('finds a damaged page out of process, with one line naming repair, and never crashes this process', () => {
    seed();
    const damaged: number[] = [];
    const pages = fs.statSync(file).size / PAGE;
    const pristine = fs.readFileSync(file);
    for (let page = 2; page < pages; page += 1) {
      fs.writeFileSync(file, pristine);
      fs.rmSync(`${file}.verified`, { force: true });
      damagePage(page);
      try {
        openCheckedSync({ path: file, maxDatabaseSize: SIZE }).close();
      } catch (error) {
        expect((error as StoreProblem).kind).toBe('damaged');
        expect((error as Error).message).toMatch(/is damaged \(.*\): run "agent-tracker repair"/);
        damaged.push(page);
      }
    }
    expect(damaged.length).toBeGreaterThan(0);
  });

  /** Damages the first page from 2 on that the out-of-process check finds. */
  function damageFoundPage(): void {
    const pristine = fs.readFileSync(file);
    const pages = pristine.length / PAGE;
    for (let page = 2; page < pages; page += 1) {
      fs.writeFileSync(file, pristine);
      damagePage(page);
      if (!verifySync(file).ok) return;
    }
    throw new Error('no page of the test database was found damaged');
  }

  it('the plugin opener returns at once and reports the damage when the check answers', async () => {
    seed();
    damageFoundPage();
    const problems: string[] = [];
    const ready = await new Promise<boolean>((resolve) => {
      const store = openChecked({ path: file, maxDatabaseSize: SIZE }, { problem: (p) => (problems.push(p.message), resolve(false)), ready: () => resolve(true) });
      expect(store.attached).toBe(false);
    });
    expect(ready).toBe(false);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/agent-tracker repair/);
  });

  it('merges a spill exactly once, even when the file is found again after its merge', () => {
    seed(1);
    const spilled = writeSpill(file, [commitMutation(900), { table: 'agents', key: 'build', ops: [{ kind: 'xp', amount: 4 }] }]);
    const copy = `${spilled}.copy`;
    fs.copyFileSync(spilled, copy);
    const store = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
    expect(mergeSpills(store, rules)).toMatchObject({ merged: 1, mutations: 2, alreadyMerged: 0 });
    expect(spillFilesOf(file)).toEqual([]);
    // A crash after the commit and before the removal: the same file again.
    fs.renameSync(copy, spilled);
    expect(mergeSpills(store, rules)).toMatchObject({ merged: 0, alreadyMerged: 1 });
    expect(store.tables.agents.get('build')?.xp).toBe(4);
    expect(store.tables.commits.getKeysCount()).toBe(2);
    store.close();
  });

  it('spills into the temp folder when the folder of the database cannot take it', () => {
    const blocked = path.join(dir, 'blocker', 'db.lmdb');
    fs.writeFileSync(path.join(dir, 'blocker'), 'a file where the folder should be');
    const spilled = writeSpill(blocked, [commitMutation(1)]);
    try {
      expect(path.dirname(spilled)).not.toBe(path.dirname(blocked));
      expect(spillFilesOf(blocked)).toEqual([spilled]);
    } finally {
      fs.rmSync(spilled, { force: true });
    }
  });

  it('the last flush of a service on a database it cannot write spills what it holds', () => {
    const store = Store.pending({ path: file, maxDatabaseSize: SIZE }, 'damaged');
    const config = resolveConfig({ options: { databasePath: file }, env: {}, home: dir });
    const service = new TrackingService({ store, config, logger: recordingLogger([]), project: '/p' });
    service.noteModelRequest('s1', 'build', 'm');
    service.recordToolCall('s1', 'c1', 'bash', true);
    const result = finalFlush(service, 'exit');
    expect(result.spilled).toBeDefined();
    expect(service.pendingMutations).toBe(0);
    expect(spillFilesOf(file)).toEqual([result.spilled]);
  });

  it('takes a snapshot at most once a day and keeps the last three', async () => {
    seed(10);
    const store = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
    const day0 = new Date('2026-01-01T00:00:00.000Z');
    for (let day = 0; day < SNAPSHOTS_KEPT + 2; day += 1) {
      const at = new Date(day0.getTime() + day * SNAPSHOT_INTERVAL_MS);
      expect(await snapshotIfDue(store, at)).toBeDefined();
      expect(await snapshotIfDue(store, new Date(at.getTime() + SNAPSHOT_INTERVAL_MS - 1))).toBeUndefined();
    }
    store.close();
    const kept = snapshotsOf(file);
    expect(kept).toHaveLength(SNAPSHOTS_KEPT);
    expect(kept[0]?.takenAt.toISOString()).toBe(new Date(day0.getTime() + (SNAPSHOTS_KEPT + 1) * SNAPSHOT_INTERVAL_MS).toISOString());
    expect(isSnapshotDue(file, new Date(day0.getTime() + (SNAPSHOTS_KEPT + 1) * SNAPSHOT_INTERVAL_MS))).toBe(false);
    expect(verifySync(kept[0]?.file ?? '')).toMatchObject({ ok: true, entries: { commits: 10 } });
  });

  it('takes a snapshot that, put back in place of the database by hand, takes writes like the database itself', () => {
    // A compacting copy (lmdb's) aborted the writing process at the first merge of 60,000 entries'
    // index runs; the worker runs in a child so that a crash fails this test, not the test runner.
    const worker = (...args: string[]) =>
      spawnSync(process.execPath, [SNAPSHOT_WORKER, ...args], { encoding: 'utf8', timeout: 110_000, killSignal: 'SIGKILL' });
    const filled = worker('fill', file, String(RESTORED_ENTRIES));
    expect(filled.stderr).toBe('');
    const snapshot = /^SNAPSHOT (.+)$/m.exec(filled.stdout)?.[1] ?? '';
    expect(fs.existsSync(snapshot)).toBe(true);
    fs.copyFileSync(snapshot, file);
    fs.rmSync(`${file}-lock`, { force: true });
    const wrote = worker('write', file, '20');
    expect({ status: wrote.status, signal: wrote.signal, stderr: wrote.stderr }).toEqual({ status: 0, signal: null, stderr: '' });
    expect(wrote.stdout).toContain(`WROTE {"entries":${RESTORED_ENTRIES + 20 * 500}}`);
    expect(verifySync(file)).toMatchObject({ ok: true });
  }, 240_000);

  it('repair keeps what reads, recovers the rest from the snapshot, names what is lost, and keeps the damaged file', async () => {
    seed(40);
    const store = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
    await snapshotIfDue(store, new Date());
    store.applyBatch(Array.from({ length: 80 }, (_, i) => commitMutation(40 + i)), rules, new Date().toISOString());
    store.close();
    const result = verifySync(file);
    recordVerified(file, result.ok ? result.entries : undefined);
    const pristine = fs.readFileSync(file);
    damageFoundPage();
    const dry = await repairDatabase({ path: file, maxDatabaseSize: SIZE, dryRun: true, indexer: termIndexer });
    expect(dry.damagedFileKeptAt).toBeNull();
    expect(fs.readFileSync(file).equals(pristine)).toBe(false);
    const report = await repairDatabase({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
    const commits = report.tables.commits;
    expect(commits.kept + commits.recovered + (commits.lost ?? 0)).toBe(120);
    expect(report.damagedFileKeptAt && fs.existsSync(report.damagedFileKeptAt)).toBeTruthy();
    const fresh = openCheckedSync({ path: file, maxDatabaseSize: SIZE });
    expect(fresh.tables.commits.getKeysCount()).toBe(commits.kept + commits.recovered);
    fresh.close();
  });
});

/**
 * The `doctor` answer on a temporary store: where the database is, how full, what it holds, what
 * provisioning recorded, why writes are refused, and the snapshots beside it with their age.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { databaseHealthAnswer } from '../../src/core/answers/doctor.js';
import { silentLogger } from '../../src/core/logger.js';
import { SCHEMA_VERSION } from '../../src/core/store/store.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker | undefined;
afterEach(() => {
  t?.dispose();
  t = undefined;
});

const NOW = Date.parse('2026-11-23T05:35:00.123Z');

/** A session with one tool call and `commits` commits, flushed at its end. */
function session(tracker: TempTracker, id: string, commits: number): void {
  const clock = new Date('2026-11-22T10:00:00.000Z');
  const service = new TrackingService({ store: tracker.store, config: tracker.config, logger: silentLogger, project: '/p/app', now: () => clock });
  service.noteSession(id, { project: '/p/app' });
  service.noteModelRequest(id, 'build', 'fake/a');
  service.recordToolCall(id, `prt_${id}`, 'bash', true);
  for (let commit = 0; commit < commits; commit += 1) {
    const hash = `${id === 's1' ? 'a' : 'b'}${commit}`.repeat(20);
    service.recordCommits(id, [{ hash, parents: ['f'.repeat(40)], message: `change ${commit}`, files: ['a.txt'], insertions: 1, deletions: 0, timestamp: clock.toISOString() }], { eventId: `commit_${commit}` });
  }
  expect(service.endTurn(id).ok).toBe(true);
}

describe('doctor answer', () => {
  it('describes a new database: its place, size limit, schema, no flush yet, nothing waiting, no snapshot', () => {
    t = tempTracker();
    const answer = databaseHealthAnswer(t.store, t.config, path.join(t.dir, 'opencode'), NOW);
    expect(answer).toMatchObject({
      databasePath: path.join(t.dir, 'db.lmdb'),
      maxDatabaseSize: t.config.maxDatabaseSize,
      fileSize: fs.statSync(path.join(t.dir, 'db.lmdb')).size,
      schemaVersion: SCHEMA_VERSION,
      flushes: 0,
      lastFlushAt: null,
      capacity: { entries: 0, bytesPerEntry: null, moreEntries: null },
      recordedItems: [],
      sizeWarning: null,
      readOnlyBecause: null,
      suspectUserActions: [],
      spilled: { files: 0, mutations: 0 },
      snapshots: [],
    });
    expect(answer.counts.sessions).toBe(0);
  });

  it('counts flushes and entries, and sizes an entry by the pages in use, not the whole file', () => {
    t = tempTracker();
    session(t, 's1', 2);
    session(t, 's2', 1);
    // A graded commit's retrospective is an entry too.
    const graded = 'a0'.repeat(20);
    t.store.applyBatch(
      [{ table: 'agents', key: 'build', ops: [{ kind: 'grade', delta: 1, retrospective: { commit: graded, timestamp: '2026-11-22T10:00:00.000Z', task: 'change 0', agent_grade: 5, agent_note: '', user_note: '', agent: 'build', model: 'fake/a', project: '/p/app' } }] }],
      t.config.rules,
      '2026-11-22T10:00:00.000Z',
    );
    const answer = databaseHealthAnswer(t.store, t.config, path.join(t.dir, 'opencode'), NOW);
    expect(answer.flushes).toBe(3);
    expect(answer.lastFlushAt).toBe('2026-11-22T10:00:00.000Z');
    expect([answer.counts.sessions, answer.counts.commits]).toEqual([2, 3]);
    // Three commits, the journal's two automatic turn entries and one retrospective.
    expect([answer.counts.activities, answer.counts.retrospectives]).toEqual([2, 1]);
    expect(answer.capacity.entries).toBe(6);
    const used = t.store.bytesInUse() as number;
    expect(used).toBeLessThan(answer.fileSize);
    expect(answer.capacity.bytesPerEntry).toBe(Math.round(used / 6));
  });

  it('lists what provisioning recorded into this config folder, and why writes are refused', () => {
    t = tempTracker();
    const configDir = path.join(t.dir, 'opencode');
    t.service.recordProvisioned(configDir, ['agent:reviewer', 'skill:tracker']);
    expect(t.service.flush('provisioned').ok).toBe(true);
    t.store.refuseWrites('the database is being checked');
    const answer = databaseHealthAnswer(t.store, t.config, configDir, NOW);
    expect(answer.recordedItems).toEqual(['agent:reviewer', 'skill:tracker']);
    expect(databaseHealthAnswer(t.store, t.config, path.join(t.dir, 'other'), NOW).recordedItems).toEqual([]);
    expect(answer.readOnlyBecause).toBe('the database is being checked');
  });

  it('warns when the file fills the size limit, saying how many more sessions fit', () => {
    t = tempTracker();
    session(t, 's1', 0);
    const fileSize = fs.statSync(t.store.path).size;
    const answer = databaseHealthAnswer(t.store, { ...t.config, maxDatabaseSize: fileSize }, path.join(t.dir, 'opencode'), NOW);
    expect(answer.maxDatabaseSize).toBe(fileSize);
    expect(answer.sizeWarning).toContain('is 100% full');
    expect(answer.sizeWarning).toContain('about 0 more session(s) fit');
  });

  it('lists the snapshots beside the database, newest first, with their size and age in hours to a tenth', () => {
    t = tempTracker();
    const older = path.join(t.dir, 'db.lmdb.snapshot-20261122T001500123Z');
    const newer = path.join(t.dir, 'db.lmdb.snapshot-20261123T001500123Z');
    fs.writeFileSync(older, 'x'.repeat(10));
    fs.writeFileSync(newer, 'x'.repeat(123));
    const answer = databaseHealthAnswer(t.store, t.config, path.join(t.dir, 'opencode'), NOW);
    // NOW is 5 h 20 min after the newer one (5.33 h) and 29 h 20 min after the older one (29.33 h).
    expect(answer.snapshots).toEqual([
      { file: newer, takenAt: '2026-11-23T00:15:00.123Z', ageHours: 5.3, size: 123 },
      { file: older, takenAt: '2026-11-22T00:15:00.123Z', ageHours: 29.3, size: 10 },
    ]);
  });
});

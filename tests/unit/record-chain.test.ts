/**
 * The chained digest over the records that restrain or credit agents, on a temporary database:
 * ordinary writes keep it whole; each kind of write around the tracker (an entry edited, an entry
 * removed, the head moved, a user grade planted, an agent record edited) is named by the full check, and the
 * tail check the plugin runs at start catches an edit since the last write.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { open } from 'lmdb';
import type { Key, RootDatabase } from 'lmdb';
import { chainTailNotice, verifyChain } from '../../src/core/integrity/chain-check.js';
import { compressionOf } from '../../src/core/store/compression.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker | undefined;
afterEach(() => t?.dispose());

function tracked(): TempTracker {
  t = tempTracker();
  t.service.noteModelRequest('s1', 'build', 'fake/model');
  for (const call of ['c1', 'c2', 'c3']) {
    t.service.recordToolCall('s1', call, 'bash', true);
    t.service.flush('test');
  }
  return t;
}

/** Writes straight into the LMDB file, around the tracker, as any process of the user can. */
function aroundTheTracker(tracker: TempTracker, write: (root: RootDatabase) => void): void {
  const root = open({ path: tracker.config.databasePath, maxDbs: 16, compression: true });
  root.transactionSync(() => write(root));
}

const entryKey = (seq: number) => `chain:entry:${String(seq).padStart(12, '0')}`;
const table = (root: RootDatabase, name: string) => root.openDB<unknown, Key>({ name, compression: compressionOf(name) });

describe('the record chain', () => {
  it('holds over ordinary writes: one entry per flush that touched an agent', () => {
    const tracker = tracked();
    expect(verifyChain(tracker.store.tables)).toEqual({ entries: 3, suspectWrites: 0 });
    expect(chainTailNotice(tracker.store.tables)).toBeUndefined();
  });

  it('names an edited agent record, at start and in the full check', () => {
    const tracker = tracked();
    aroundTheTracker(tracker, (root) => {
      const agents = table(root, 'agents');
      agents.putSync('build', { ...(agents.get('build') as object), halted: false, sp: 9 });
    });
    expect(verifyChain(tracker.store.tables).broken).toBe('agents record "build" was changed around the tracker after chain entry 3');
    expect(chainTailNotice(tracker.store.tables)).toMatch(/^agent-tracker: agents record "build" was changed around the tracker; .*agent-tracker doctor/);
  });

  it.each<[string, (meta: ReturnType<typeof table>) => void, RegExp]>([
    ['an edited entry', (meta) => meta.putSync(entryKey(2), { ...(meta.get(entryKey(2)) as object), at: '2020-01-01T00:00:00.000Z' }), /^chain entry 2 \(2020-01-01T00:00:00\.000Z\) was changed around the tracker: its digest does not follow from the entry before$/],
    ['a removed entry', (meta) => meta.removeSync(entryKey(2)), /^chain entry 2 is missing \(the next one found is 3\): entries were removed around the tracker$/],
    ['a moved head', (meta) => meta.putSync('chain:head', { ...(meta.get('chain:head') as object), seq: 2 }), /^the chain head \(entry 2\) does not match the last entry \(3\)$/],
  ])('names %s', (_name, tamper, broken) => {
    const tracker = tracked();
    aroundTheTracker(tracker, (root) => tamper(table(root, 'meta')));
    expect(verifyChain(tracker.store.tables).broken).toMatch(broken);
  });

  it('names a user grade planted straight into the table', () => {
    const tracker = tracked();
    const grade = { commit: 'a'.repeat(40), project: '/work/project', agent: 'build', model: 'fake/model', sessionId: 's1', grade: 5, note: '', timestamp: new Date().toISOString(), provenance: 'user', via: 'cli' };
    aroundTheTracker(tracker, (root) => table(root, 'userGrades').putSync(['/work/project', grade.commit], grade));
    expect(verifyChain(tracker.store.tables).broken).toBe(`userGrades record ["/work/project","${grade.commit}"] was written around the tracker: no chain entry holds it`);
  });
});

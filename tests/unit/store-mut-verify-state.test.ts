/**
 * Which state of the database file counts as verified (the `.verified` sidecar), and when the end of
 * a session keeps it verified: a file changed in any way since it passed (a copy put in its place,
 * an edit that set its mtime back, another hand's commit) is checked again at the next start; a file
 * only this process's commits changed (or another tracker process's commits that it recorded) is not.
 * Real temporary LMDB files; "another hand" writes with lmdb directly, outside the tracker.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { open } from 'lmdb';
import { DEFAULT_RULES } from '../../src/core/rules.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { Store } from '../../src/core/store/store.js';
import {
  afterOwnWrite,
  beforeOwnWrite,
  fingerprintOf,
  isVerified,
  lastKnownEntries,
  noteSoundIfRecorded,
  noteSoundState,
  recordVerified,
  recordVerifiedIfOwn,
  sidecarPath,
} from '../../src/core/store/verify.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('agent-tracker-mut-verify-');
const SIZE = 64 * 1024 * 1024;
const AT = '2026-03-01T12:00:00.000Z';

/** A new database file with `agents` agents, written by the tracker (no chain noted: nothing verified yet). */
function database(agents = 2): string {
  const file = path.join(tempDir(), 'agent-tracker.lmdb');
  const store = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
  store.applyBatch(
    Array.from({ length: agents }, (_, index) => ({ table: 'agents' as const, key: `agent-${index}`, ops: [{ kind: 'xp' as const, amount: 1 }] })),
    DEFAULT_RULES,
    AT,
  );
  store.close();
  return file;
}

/** One commit of this process, through the store's door for writes. */
function ownCommit(file: string, agent = 'own'): void {
  const store = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
  store.applyBatch([{ table: 'agents', key: agent, ops: [{ kind: 'xp', amount: 1 }] }], DEFAULT_RULES, AT);
  store.close();
}

/** A commit by another hand: lmdb used directly, no tracker code around it. */
function otherCommit(file: string, key = 'other'): void {
  const root = open({ path: file, mapSize: SIZE, maxDbs: 16, compression: true });
  root.transactionSync(() => root.putSync(key, 'written by someone else'));
  void root.close();
}

interface Sidecar {
  format?: number;
  fingerprint: Record<string, string | number>;
  entries?: Record<string, number>;
}

function readSidecar(file: string): Sidecar {
  return JSON.parse(fs.readFileSync(sidecarPath(file), 'utf8')) as Sidecar;
}

function writeSidecar(file: string, sidecar: unknown): void {
  fs.writeFileSync(sidecarPath(file), JSON.stringify(sidecar));
}

/** Waits (bounded) until the clock the file system stamps ctime with has moved past `ctimeNs`. */
function touchUntilCtimeMoves(file: string, ctimeNs: bigint, seconds: number): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 0; attempt < 200; attempt += 1) {
    fs.utimesSync(file, seconds, seconds);
    if (fs.statSync(file, { bigint: true }).ctimeNs !== ctimeNs) return;
    Atomics.wait(pause, 0, 0, 5);
  }
  throw new Error('ctime never moved');
}

describe('the state a sidecar vouches for', () => {
  it('is exactly the file as it was: a sidecar whose fingerprint differs in any one field does not vouch', () => {
    const file = database();
    recordVerified(file);
    expect(isVerified(file)).toBe(true);
    const pristine = readSidecar(file);
    const stat = fs.statSync(file, { bigint: true });
    // The sidecar names the file as stat and its meta pages show it (the test reads them itself).
    expect(pristine.fingerprint).toMatchObject({ dev: String(stat.dev), ino: String(stat.ino), size: String(stat.size), mtimeNs: String(stat.mtimeNs), ctimeNs: String(stat.ctimeNs) });
    const shifted: Record<string, string | number> = {
      dev: String(BigInt(String(pristine.fingerprint.dev)) + 1n),
      ino: String(BigInt(String(pristine.fingerprint.ino)) + 1n),
      size: String(BigInt(String(pristine.fingerprint.size)) + 4096n),
      mtimeNs: String(BigInt(String(pristine.fingerprint.mtimeNs)) - 1n),
      ctimeNs: String(BigInt(String(pristine.fingerprint.ctimeNs)) - 1n),
      txnId: Number(pristine.fingerprint.txnId) - 1,
    };
    for (const [field, value] of Object.entries(shifted)) {
      writeSidecar(file, { ...pristine, fingerprint: { ...pristine.fingerprint, [field]: value } });
      expect([field, isVerified(file)]).toEqual([field, false]);
    }
    writeSidecar(file, pristine);
    expect(isVerified(file)).toBe(true);
  });

  it("holds the id of the file's last commit: a sidecar naming the commit before does not vouch once the file is committed again", () => {
    const file = database();
    recordVerified(file);
    const before = readSidecar(file).fingerprint.txnId as number;
    otherCommit(file);
    recordVerified(file);
    expect(readSidecar(file).fingerprint.txnId).toBe(before + 1);
  });

  it('does not vouch for a copy put in the place of the file, even with its times set back', () => {
    const file = database();
    recordVerified(file);
    const stat = fs.statSync(file);
    const bytes = fs.readFileSync(file);
    const copy = `${file}.copy`;
    fs.copyFileSync(file, copy);
    fs.utimesSync(copy, stat.atime, stat.mtime);
    fs.renameSync(copy, file);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    expect(isVerified(file)).toBe(false);
  });

  it('does not vouch for a file whose mtime an edit set back: its ctime still moved', () => {
    const file = database();
    const seconds = 1_700_000_000;
    fs.utimesSync(file, seconds, seconds);
    recordVerified(file);
    expect(isVerified(file)).toBe(true);
    const stat = fs.statSync(file, { bigint: true });
    // The same bytes written back by hand, the mtime put back as it was: only the ctime tells.
    const fd = fs.openSync(file, 'r+');
    const page = Buffer.alloc(64);
    fs.readSync(fd, page, 0, page.length, 8192);
    fs.writeSync(fd, page, 0, page.length, 8192);
    fs.closeSync(fd);
    touchUntilCtimeMoves(file, stat.ctimeNs, seconds);
    expect(fs.statSync(file, { bigint: true }).mtimeNs).toBe(stat.mtimeNs);
    expect(isVerified(file)).toBe(false);
  });

  it('of an unknown format, or missing its format, does not vouch; one that is not JSON is no error', () => {
    const file = database();
    recordVerified(file);
    const pristine = readSidecar(file);
    expect(pristine.format).toBe(1);
    writeSidecar(file, { ...pristine, format: 2 });
    expect(isVerified(file)).toBe(false);
    const { format: _format, ...formatless } = pristine;
    writeSidecar(file, formatless);
    expect(isVerified(file)).toBe(false);
    writeSidecar(file, { format: 1 });
    expect(isVerified(file)).toBe(false);
    fs.writeFileSync(sidecarPath(file), 'not json');
    expect(isVerified(file)).toBe(false);
    expect(lastKnownEntries(file)).toBeUndefined();
  });

  it('is absent for a file that is not an LMDB database: nothing is recorded beside it', () => {
    const file = path.join(tempDir(), 'notes.txt');
    fs.writeFileSync(file, 'x'.repeat(20_000));
    expect(fingerprintOf(file)).toBeUndefined();
    recordVerified(file, { agents: 3 });
    expect(fs.existsSync(sidecarPath(file))).toBe(false);
    expect(isVerified(file)).toBe(false);
    expect(isVerified(path.join(tempDir(), 'missing.lmdb'))).toBe(false);
  });
});

describe('recording a check', () => {
  it('keeps the counts recorded before when none are given, and replaces them when they are', () => {
    const file = database();
    expect(lastKnownEntries(file)).toBeUndefined();
    recordVerified(file);
    expect(lastKnownEntries(file)).toBeUndefined();
    expect(Object.keys(readSidecar(file))).not.toContain('entries');
    recordVerified(file, { agents: 2, sessions: 5 });
    otherCommit(file);
    recordVerified(file);
    expect(isVerified(file)).toBe(true);
    expect(lastKnownEntries(file)).toEqual({ agents: 2, sessions: 5 });
    recordVerified(file, { agents: 3 });
    expect(lastKnownEntries(file)).toEqual({ agents: 3 });
  });

  it('records the state the check read; a file changed during the check is not recorded and is checked next time', () => {
    const file = database();
    const checked = fingerprintOf(file);
    recordVerified(file, { agents: 2 }, checked);
    expect(isVerified(file)).toBe(true);
    fs.rmSync(sidecarPath(file));
    const readByCheck = fingerprintOf(file);
    otherCommit(file);
    recordVerified(file, { agents: 2 }, readByCheck);
    expect(fs.existsSync(sidecarPath(file))).toBe(false);
    expect(isVerified(file)).toBe(false);
  });

  it('is best effort: a sidecar that cannot be written leaves the file unverified, with no error', () => {
    const file = database();
    fs.mkdirSync(sidecarPath(file));
    expect(() => recordVerified(file, { agents: 2 })).not.toThrow();
    expect(isVerified(file)).toBe(false);
    expect(lastKnownEntries(file)).toBeUndefined();
  });
});

describe('the chain of own writes at the end of a session', () => {
  const counts = { agents: 3 };

  it('keeps verified a file only this process committed to since it was sound, with the counts of the session', () => {
    const file = database();
    noteSoundState(file);
    ownCommit(file, 'a');
    ownCommit(file, 'b');
    expect(isVerified(file)).toBe(false);
    expect(recordVerifiedIfOwn(file, () => counts)).toBe(true);
    expect(isVerified(file)).toBe(true);
    expect(lastKnownEntries(file)).toEqual(counts);
  });

  it('keeps nothing for a file it never knew sound', () => {
    const file = database();
    ownCommit(file);
    expect(recordVerifiedIfOwn(file, () => counts)).toBe(false);
    expect(isVerified(file)).toBe(false);
  });

  it('keeps nothing when the check read a state the file had left by the time it was noted sound', () => {
    const file = database();
    const readByCheck = fingerprintOf(file);
    otherCommit(file);
    noteSoundState(file, readByCheck);
    ownCommit(file);
    expect(recordVerifiedIfOwn(file, () => counts)).toBe(false);
    expect(isVerified(file)).toBe(false);
    // The same check with the state it read still current starts the chain.
    const again = database();
    noteSoundState(again, fingerprintOf(again));
    ownCommit(again);
    expect(recordVerifiedIfOwn(again, () => counts)).toBe(true);
  });

  it('is broken by another hand committing between own commits, for good', () => {
    const file = database();
    noteSoundState(file);
    ownCommit(file, 'a');
    otherCommit(file);
    ownCommit(file, 'b');
    ownCommit(file, 'c');
    expect(recordVerifiedIfOwn(file, () => counts)).toBe(false);
    expect(isVerified(file)).toBe(false);
    expect(lastKnownEntries(file)).toBeUndefined();
  });

  it('is broken by another hand committing after the last own commit', () => {
    const file = database();
    noteSoundState(file);
    ownCommit(file);
    otherCommit(file);
    expect(recordVerifiedIfOwn(file, () => counts)).toBe(false);
    expect(isVerified(file)).toBe(false);
  });

  it('goes on through a state another tracker process recorded as its own (the history import), and ends recorded', () => {
    const file = database();
    noteSoundState(file);
    ownCommit(file, 'a');
    // The other process's clean commits, recorded by it at its end.
    otherCommit(file);
    recordVerified(file, { agents: 4 });
    ownCommit(file, 'b');
    expect(recordVerifiedIfOwn(file, () => counts)).toBe(true);
    expect(isVerified(file)).toBe(true);
    expect(lastKnownEntries(file)).toEqual(counts);
  });

  it("ends on another tracker process's recorded commits: the file stays verified with that process's counts", () => {
    const file = database();
    noteSoundState(file);
    ownCommit(file);
    otherCommit(file);
    recordVerified(file, { agents: 4 });
    let counted = 0;
    expect(
      recordVerifiedIfOwn(file, () => {
        counted += 1;
        return counts;
      }),
    ).toBe(true);
    expect(counted).toBe(0);
    expect(isVerified(file)).toBe(true);
    expect(lastKnownEntries(file)).toEqual({ agents: 4 });
  });

  it('keeps nothing when the file is gone at the end of the session', () => {
    const file = database();
    noteSoundState(file);
    ownCommit(file);
    fs.rmSync(file);
    expect(recordVerifiedIfOwn(file, () => counts)).toBe(false);
    expect(fs.existsSync(sidecarPath(file))).toBe(false);
  });

  it('is not started for a file that is gone or not LMDB when noted sound', () => {
    const file = path.join(tempDir(), 'notes.lmdb');
    fs.writeFileSync(file, 'x'.repeat(20_000));
    noteSoundState(file);
    beforeOwnWrite(file);
    afterOwnWrite(file);
    expect(recordVerifiedIfOwn(file, () => counts)).toBe(false);
  });

  it('is not started for a file gone by the time its check is noted, and noting it throws nothing', () => {
    const file = database();
    const readByCheck = fingerprintOf(file);
    fs.rmSync(file);
    expect(() => noteSoundState(file, readByCheck)).not.toThrow();
    expect(recordVerifiedIfOwn(file, () => counts)).toBe(false);
  });

  it('is broken, and the write still done, when another file is put in the place of the open one', () => {
    const file = database();
    noteSoundState(file);
    const store = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
    // Not an LMDB file any more at that path: the open store writes on into the file it holds.
    fs.writeFileSync(`${file}.new`, 'not a database');
    fs.renameSync(`${file}.new`, file);
    expect(() => store.applyBatch([{ table: 'agents', key: 'late', ops: [{ kind: 'xp', amount: 1 }] }], DEFAULT_RULES, AT)).not.toThrow();
    expect(store.tables.agents.get('late')).toBeDefined();
    store.close();
    expect(recordVerifiedIfOwn(file, () => counts)).toBe(false);
    expect(fs.existsSync(sidecarPath(file))).toBe(false);
  });

  it('starts, in a process that opened the file unchecked, only when the sidecar vouches for the file as it is', () => {
    const vouched = database();
    recordVerified(vouched, { agents: 2 });
    noteSoundIfRecorded(vouched);
    ownCommit(vouched);
    expect(recordVerifiedIfOwn(vouched, () => counts)).toBe(true);
    expect(isVerified(vouched)).toBe(true);

    const stale = database();
    recordVerified(stale);
    otherCommit(stale);
    noteSoundIfRecorded(stale);
    ownCommit(stale);
    expect(recordVerifiedIfOwn(stale, () => counts)).toBe(false);
    expect(isVerified(stale)).toBe(false);

    const never = database();
    noteSoundIfRecorded(never);
    ownCommit(never);
    expect(recordVerifiedIfOwn(never, () => counts)).toBe(false);
  });

  it("does not go on through a state recorded in a sidecar of an unknown format", () => {
    const file = database();
    noteSoundState(file);
    ownCommit(file, 'a');
    otherCommit(file);
    recordVerified(file);
    writeSidecar(file, { ...readSidecar(file), format: 2 });
    ownCommit(file, 'b');
    expect(recordVerifiedIfOwn(file, () => counts)).toBe(false);
  });
});

/**
 * Out-of-process verification of the database file, and the record of which state of the file was
 * verified, so that it is verified again only after it changed.
 *
 * How "unchanged since verified" is known cheaply (one stat and a read of the two meta pages, no
 * page of the data itself): the sidecar file `<db>.verified` holds the file's fingerprint when it
 * passed:
 *   - device and inode: a file put in its place (a copy, a restore, repair's swap) is a new file;
 *   - size, mtime and ctime in nanoseconds: every write through the file system moves mtime and
 *     ctime, and ctime cannot be set back by any user tool (utimes sets it to now), so an edit that
 *     restores mtime still shows;
 *   - the id of the last committed lmdb transaction, read from the meta pages: the file's own word
 *     on which commit it holds.
 * A commit by this tracker changes the fingerprint too; after its own clean writes the tracker
 * records the new one (`recordVerified` at the end of a session): pages lmdb just wrote are as sound
 * as the ones verified, and the pages it did not touch are the verified ones.
 * What it cannot see: the medium failing under an unchanged file (a bad sector). Snapshots and
 * `agent-tracker repair` are the answer to that, not a full read at every start.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { readOwnFileText } from '../fs/read-bounded.js';
import { childRuntime, childScript } from './child-runtime.js';
import { lmdbMetaSummary } from './lmdb-file-check.js';

/** Bounds the check: a healthy 100,000-entry file is read in well under this (docs/PERFORMANCE.md). */
export const VERIFY_TIMEOUT_MS = 60_000;
const SIDECAR_SUFFIX = '.verified';
/** The most of a sidecar read: it holds a fingerprint and a count per table. */
const MAX_SIDECAR_BYTES = 1024 * 1024;
const SIDECAR_FORMAT = 1;

export interface Fingerprint {
  dev: string;
  ino: string;
  size: string;
  mtimeNs: string;
  ctimeNs: string;
  txnId: number;
}

export type VerifyResult =
  /** `checked`: the file's state when the check began (a file that changed since was not what was read). */
  | { ok: true; schemaVersion: number; entries: Record<string, number>; checked?: Fingerprint }
  | { ok: false; cause: string };

/** The file's fingerprint, or undefined when it cannot be read as an LMDB file. */
export function fingerprintOf(file: string): Fingerprint | undefined {
  try {
    const stats = fs.statSync(file, { bigint: true });
    const meta = lmdbMetaSummary(file);
    if (!meta) return undefined;
    return {
      dev: String(stats.dev),
      ino: String(stats.ino),
      size: String(stats.size),
      mtimeNs: String(stats.mtimeNs),
      ctimeNs: String(stats.ctimeNs),
      txnId: meta.txnId,
    };
  } catch {
    return undefined;
  }
}

export function sidecarPath(file: string): string {
  return `${file}${SIDECAR_SUFFIX}`;
}

function sameFingerprint(a: Fingerprint, b: Fingerprint): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs && a.txnId === b.txnId;
}

/** Whether the file is exactly as it was when it last passed verification. */
export function isVerified(file: string): boolean {
  const now = fingerprintOf(file);
  return now !== undefined && recordedState(file, now);
}

/**
 * How many records each table held when the file was last verified (or last written cleanly by this
 * tracker), whatever happened to the file since: records are never deleted, so these are lower
 * bounds of what a later damaged file held. Repair counts its losses against them when the damaged
 * file's own counts cannot be read.
 */
export function lastKnownEntries(file: string): Record<string, number> | undefined {
  try {
    const stored = JSON.parse(readOwnFileText(sidecarPath(file), MAX_SIDECAR_BYTES)) as { entries?: Record<string, number> };
    return stored.entries;
  } catch {
    return undefined;
  }
}

/**
 * Records the file's current state as verified, with its entry counts per table when known (else
 * the counts recorded before are kept). With `checked`, the state the check read: a file changed
 * since is not recorded (it is checked again next time). Best effort: where the sidecar cannot be
 * written (a read-only folder) the file is verified again next time, which costs time, never safety.
 */
export function recordVerified(file: string, entries?: Record<string, number>, checked?: Fingerprint): void {
  const fingerprint = fingerprintOf(file);
  if (!fingerprint) return;
  if (checked && !sameFingerprint(checked, fingerprint)) return;
  const counts = entries ?? lastKnownEntries(file);
  try {
    // A fresh, exclusively created temporary name (never `<sidecar>.<pid>.tmp`, a name a planted link can wait at).
    writeFileAtomic(sidecarPath(file), JSON.stringify({ format: SIDECAR_FORMAT, fingerprint, verifiedAt: new Date().toISOString(), ...(counts ? { entries: counts } : {}) }));
  } catch {
    // Not recorded: verified again next time.
  }
}

/**
 * The chain of this process's own writes, per file: the state it last knew sound (verified, or
 * left by its own commit) and whether every change since came from its own commits. A file some
 * other hand changed in between (another process, or an agent writing into it) is not recorded as
 * verified at the end of the session: the next start checks it, which costs time, never safety.
 */
const ownWrites = new Map<string, { last: Fingerprint | undefined; broken: boolean }>();

/** The file is sound as it is now (just verified, or just created by this process): the chain starts here. */
export function noteSoundState(file: string, expected?: Fingerprint): void {
  const now = fingerprintOf(file);
  const sound = now !== undefined && (expected === undefined || sameFingerprint(expected, now));
  ownWrites.set(file, { last: sound ? now : undefined, broken: !sound });
}

/** Starts the chain in a process that opened the file without checking it, only when the sidecar vouches for its state now. */
export function noteSoundIfRecorded(file: string): void {
  const now = fingerprintOf(file);
  if (now && recordedState(file, now)) noteSoundState(file, now);
}

/** Before a commit of this process: a file changed since its last known sound state breaks the chain. */
export function beforeOwnWrite(file: string): void {
  const chain = ownWrites.get(file);
  if (!chain || chain.broken) return;
  const now = fingerprintOf(file);
  if (now && chain.last && sameFingerprint(chain.last, now)) return;
  // Changed by another tracker process that recorded its own clean commits (the history import's child):
  // a state the sidecar vouches for is as sound as one verified at start.
  if (now && chain.last && recordedState(file, now)) chain.last = now;
  else chain.broken = true;
}

/** Whether the sidecar holds exactly this state of the file. */
function recordedState(file: string, now: Fingerprint): boolean {
  try {
    const stored = JSON.parse(readOwnFileText(sidecarPath(file), MAX_SIDECAR_BYTES)) as { format?: number; fingerprint?: Fingerprint };
    return stored.format === SIDECAR_FORMAT && stored.fingerprint !== undefined && sameFingerprint(stored.fingerprint, now);
  } catch {
    return false;
  }
}

/** After a commit of this process: its result is the new known state. */
export function afterOwnWrite(file: string): void {
  const chain = ownWrites.get(file);
  if (chain && !chain.broken) chain.last = fingerprintOf(file);
}

/**
 * At the end of a session: records the file as verified only when every change since it was last
 * known sound was this process's own commit and nothing changed it after the last one.
 */
export function recordVerifiedIfOwn(file: string, entries: () => Record<string, number>): boolean {
  const chain = ownWrites.get(file);
  if (!chain || chain.broken || !chain.last) return false;
  const now = fingerprintOf(file);
  if (!now) return false;
  // Another tracker process's clean commits came last and are recorded already.
  if (!sameFingerprint(chain.last, now)) return recordedState(file, now);
  // The counts are read from the file: only a file known sound is read (a changed one may crash lmdb).
  recordVerified(file, entries(), chain.last);
  return true;
}

function childArgs(file: string, out: string): string[] {
  return [childScript(), 'verify', file, out];
}

function outFile(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-verify-')), 'result.json');
}

function withChecked(result: VerifyResult, checked: Fingerprint | undefined): VerifyResult {
  return result.ok && checked ? { ...result, checked } : result;
}

/** Reads the child's answer; a child that died by a signal never wrote one. */
function resultOf(out: string, code: number | null, signal: string | null, timedOut: boolean): VerifyResult {
  let line = '';
  try {
    line = fs.readFileSync(out, 'utf8').trim().split('\n').pop() ?? '';
  } catch {
    // no answer: judged by how the child ended (verdictOf)
  } finally {
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
  }
  return verdictOf(line, code, signal, timedOut);
}

/** The check's result from the child's last line and how the child ended: an ended check vouches only by its own answer. */
export function verdictOf(line: string, code: number | null, signal: string | null, timedOut: boolean): VerifyResult {
  if (timedOut) return { ok: false, cause: `reading it took longer than ${VERIFY_TIMEOUT_MS / 1000} s` };
  if (signal) return { ok: false, cause: `reading it crashed a test process with ${signal}` };
  try {
    const answer = JSON.parse(line) as { ok?: boolean; error?: string; schemaVersion?: number; entries?: Record<string, number> };
    if (answer.ok === true) return { ok: true, schemaVersion: Number(answer.schemaVersion ?? 0), entries: answer.entries ?? {} };
    return { ok: false, cause: `reading it failed: ${answer.error ?? 'no reason given'}` };
  } catch {
    return { ok: false, cause: `the test process ended with code ${code ?? 'none'} and no answer` };
  }
}

/**
 * Checks the file in a child process, waiting for it (the CLI's way): the child walks every page
 * the trees reference with plain reads (lmdb-walk.ts) and only then reads and decodes every record
 * with lmdb, so a page that would crash lmdb or answer wrong numbers is named, never read.
 */
export function verifySync(file: string): VerifyResult {
  const checked = fingerprintOf(file);
  const out = outFile();
  const runtime = childRuntime();
  const child = spawnSync(runtime.command, childArgs(file, out), { env: runtime.env, stdio: 'ignore', timeout: VERIFY_TIMEOUT_MS });
  const timedOut = child.error !== undefined && (child.error as NodeJS.ErrnoException).code === 'ETIMEDOUT';
  return withChecked(resultOf(out, child.status, timedOut ? null : child.signal, timedOut), checked);
}

/** The same check without blocking: the plugin records into memory while it runs. */
export function verifyInBackground(file: string): Promise<VerifyResult> {
  const checked = fingerprintOf(file);
  return new Promise((resolve) => {
    const out = outFile();
    const runtime = childRuntime();
    let timedOut = false;
    const child = spawn(runtime.command, childArgs(file, out), { env: runtime.env, stdio: 'ignore' });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, VERIFY_TIMEOUT_MS);
    // The check must not keep a finished host alive.
    timer.unref();
    child.unref();
    child.on('error', (error) => {
      clearTimeout(timer);
      fs.rmSync(path.dirname(out), { recursive: true, force: true });
      resolve({ ok: false, cause: `the test process could not start: ${error.message}` });
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(withChecked(resultOf(out, code, signal, timedOut), checked));
    });
  });
}

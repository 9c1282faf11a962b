/**
 * Snapshots: compacted, consistent copies of the database beside it (lmdb copies while it stays open,
 * in its own thread), taken at the end of a session at most once a day; the newest SNAPSHOTS_KEPT
 * are kept. `agent-tracker repair` merges the newest good one; `doctor` lists them.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { StoreAccess } from './access.js';

export const SNAPSHOT_INTERVAL_MS = 24 * 60 * 60 * 1000;
export const SNAPSHOTS_KEPT = 3;
const SNAPSHOT_INFIX = '.snapshot-';

export interface SnapshotInfo {
  file: string;
  takenAt: Date;
  size: number;
}

/** `20261123T001500123Z` ↔ a Date: sorts as text, readable in a file name. */
function stampOf(date: Date): string {
  return date.toISOString().replace(/[-:.]/g, '');
}

function dateOf(stamp: string): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z$/.exec(stamp);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, ms] = match;
  return new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`);
}

/** The database's snapshots, newest first. */
export function snapshotsOf(database: string): SnapshotInfo[] {
  const prefix = `${path.basename(database)}${SNAPSHOT_INFIX}`;
  let names: string[];
  try {
    names = fs.readdirSync(path.dirname(database));
  } catch {
    return [];
  }
  const found: SnapshotInfo[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const takenAt = dateOf(name.slice(prefix.length));
    if (!takenAt) continue;
    const file = path.join(path.dirname(database), name);
    try {
      found.push({ file, takenAt, size: fs.statSync(file).size });
    } catch {
      // removed meanwhile
    }
  }
  return found.sort((a, b) => b.takenAt.getTime() - a.takenAt.getTime());
}

/**
 * Puts the newest snapshot in place of a database file that is gone while its snapshots remain: moved or
 * deleted around the tracker (an agent's shell can), a fresh file would start an empty record, every
 * halt and bug report gone. Returns the snapshot put there; undefined when the file is there (a link
 * or anything else at the name counts: the open's checks deal with it) or there is no snapshot.
 */
export function restoreMissingDatabase(database: string): SnapshotInfo | undefined {
  if (fs.lstatSync(database, { throwIfNoEntry: false })) return undefined;
  const newest = snapshotsOf(database)[0];
  if (!newest) return undefined;
  // Exclusive: a file another process created meanwhile is kept.
  fs.copyFileSync(newest.file, database, fs.constants.COPYFILE_EXCL);
  return newest;
}

/** What the user is told when `restoreMissingDatabase` put a snapshot in place. */
export function restoredNotice(database: string, snapshot: SnapshotInfo): string {
  return (
    `agent-tracker: the database ${database} was gone (moved or deleted outside the tracker), so its newest snapshot, ` +
    `of ${snapshot.takenAt.toISOString()}, was put in its place: what was recorded after that is missing. If you moved it, ` +
    'put it back (after closing OpenCode); to start an empty record, delete its snapshots too.'
  );
}

/** Whether the newest snapshot is older than a day (or there is none). */
export function isSnapshotDue(database: string, now: Date): boolean {
  const newest = snapshotsOf(database)[0];
  return !newest || now.getTime() - newest.takenAt.getTime() >= SNAPSHOT_INTERVAL_MS;
}

/** Removes all but the newest `SNAPSHOTS_KEPT` snapshots (and their lock files). */
export function pruneSnapshots(database: string): void {
  for (const old of snapshotsOf(database).slice(SNAPSHOTS_KEPT)) {
    fs.rmSync(old.file, { force: true });
    fs.rmSync(`${old.file}-lock`, { force: true });
  }
}

/**
 * Takes a snapshot when one is due; returns its file, or undefined when none was due.
 * Written under a temporary name and renamed, so a half-copied snapshot never looks whole.
 */
export async function snapshotIfDue(store: StoreAccess, now: Date = new Date()): Promise<string | undefined> {
  if (!store.attached || !isSnapshotDue(store.path, now)) return undefined;
  const target = `${store.path}${SNAPSHOT_INFIX}${stampOf(now)}`;
  const temporary = `${path.dirname(store.path)}${path.sep}.${path.basename(target)}.partial`;
  try {
    await store.backup(temporary);
    fs.renameSync(temporary, target);
  } finally {
    fs.rmSync(temporary, { force: true });
  }
  pruneSnapshots(store.path);
  return target;
}

/**
 * The spill file: what a session could not write (disk full, size limit, a damaged or locked file,
 * a database still being checked) is kept in a small JSON file beside the database, or in the OS
 * temp folder when that folder cannot take it, and merged into the database at the next start.
 *
 * Exactly once: the merge writes the spill's id into the meta table (`spill:<id>`) in the SAME
 * transaction as its mutations, and skips a spill whose id is there. A crash between the commit and
 * the removal of the file leaves a file that the next merge finds done and removes; two processes
 * merging at once are serialized by lmdb's write lock, and the second finds the id.
 *
 * A write whose caller stopped waiting (the plugin's store lives in a worker thread; its main thread
 * waits a bounded time, remote/channel.ts): the caller names the batch with the id it spills it
 * under (`newSpillId`) and, once it gives up, spills it under that id at once. The write may still
 * be on its way, usually waiting for lmdb's write lock (another process's backfill, import or flush).
 * Inside its transaction, with the lock held, it checks twice (`LateWriteGuard`, late-write.ts):
 * - before its puts: the caller gave up, so nothing is written (the spill brings it later);
 * - after its puts, just before the commit: the caller gave up meanwhile, so nothing is written; or the
 *   commit now comes within a margin of the caller's deadline (`lateMarkMarginMs`), so the
 *   transaction also writes the batch's `spill:<id>` marker: if the caller gives up while the commit
 *   runs, its spill is already merged, and the next start's merge finds the marker and skips it.
 * "Gave up" is told exactly, by a shared-memory cell the main thread sets before it spills, and also
 * by the deadline on the worker's clock (Date.now; the main thread times its wait with performance.now,
 * so a wall clock set forward only refuses a write the caller then retries). Whether the commit may
 * still be running when the caller gives up can only be guessed from the clock: hence a wide margin (a
 * third of the wait, at least a second), which covers the commit's own time (an fsync), the reply's
 * way back to the main thread and the two clocks' disagreement. What stays open: a commit that starts
 * before the margin and takes longer than all of it (an fsync stalled for seconds), or a wall clock set
 * back by more than it during the wait, lands after the caller spilled the batch without the marker:
 * counted twice. So does a batch no spill file could take (both places full): it waits in memory and
 * goes to the last spill under another id. Markers are written only near a deadline (a healthy flush
 * takes milliseconds); those no spill came for (the caller got its answer after all) are removed by
 * the merge once LATE_MARKER_KEEP_MS old.
 *
 * Any process of the user can write a spill file (an agent's shell too): its user-only records are merged
 * as suspect and a revive in it is held for review (src/core/integrity/spilled-records.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { readOwnFileText } from '../fs/read-bounded.js';
import { spilledMutations } from '../integrity/spilled-records.js';
import type { ScoringRules } from '../rules.js';
import type { Mutation } from './mutations.js';
import type { Store } from './store.js';
import { lateMarkerTime, LATE_MARKERS_END, SPILL_MARKER_PREFIX, spillMarker } from './late-write.js';

const SPILL_FORMAT = 1;
const SPILL_INFIX = '.spill-';
const SPILL_EXTENSION = '.json';
const TEMP_FOLDER = 'agent-tracker-spill';
/** The most of a spill file read: a buffer is flushed long before its spill could reach this. */
const MAX_SPILL_BYTES = 512 * 1024 * 1024;
/** How long a marker a late write left stays without its spill file: far longer than a caller waits before it spills. */
const LATE_MARKER_KEEP_MS = 7 * 24 * 3_600_000;

interface SpillFile {
  format: number;
  id: string;
  database: string;
  createdAt: string;
  mutations: Mutation[];
}

/** What a merge at start did. */
export interface SpillMergeResult {
  merged: number;
  mutations: number;
  /** Files already merged before (a crash after the commit): removed now. */
  alreadyMerged: number;
  /** Files that could not be merged yet (they stay for the next start), with why. */
  left: { file: string; reason: string }[];
}

/** A new spill id: sorts by time, unique across processes. */
export function newSpillId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:.]/g, '');
  return `${stamp}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** The temp-folder place for spills (one per user: the temp folder is shared; a database's path is hashed into the name). */
function tempFolder(): string {
  return path.join(os.tmpdir(), `${TEMP_FOLDER}-${process.getuid?.() ?? 'user'}`);
}

function tempPrefix(database: string): string {
  return `${createHash('sha256').update(path.resolve(database)).digest('hex').slice(0, 16)}-`;
}

/** Every spill file of the database: beside it and in the temp folder. */
export function spillFilesOf(database: string): string[] {
  const found: string[] = [];
  const besideName = `${path.basename(database)}${SPILL_INFIX}`;
  const places: [string, string][] = [
    [path.dirname(database), besideName],
    [tempFolder(), tempPrefix(database)],
  ];
  for (const [folder, prefix] of places) {
    let names: string[] = [];
    try {
      names = fs.readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) if (name.startsWith(prefix) && name.endsWith(SPILL_EXTENSION)) found.push(path.join(folder, name));
  }
  return found.sort();
}

/** Only the user reads a spill: it holds recorded text. */
const SPILL_FILE_MODE = 0o600;

/** Writes `content` at `file` (through a temp name, so a half-written spill never looks whole). */
function writeWhole(file: string, content: string): void {
  // An exclusively created temporary name: a link planted at `<spill>.tmp` (the OS temp folder is shared) is never followed.
  writeFileAtomic(file, content, { mode: SPILL_FILE_MODE });
}

/**
 * Keeps `mutations` in a spill file for the database at `database`: beside it, else (that folder is
 * full or not writable) in the OS temp folder, under `id` (a batch the caller named before it wrote).
 * Returns the file written.
 * @throws the error of the temp folder when neither place takes it.
 */
export function writeSpill(database: string, mutations: readonly Mutation[], now: Date = new Date(), id: string = newSpillId(now)): string {
  const content = JSON.stringify({ format: SPILL_FORMAT, id, database: path.resolve(database), createdAt: now.toISOString(), mutations: [...mutations] } satisfies SpillFile);
  const beside = `${database}${SPILL_INFIX}${id}${SPILL_EXTENSION}`;
  try {
    writeWhole(beside, content);
    return beside;
  } catch {
    fs.mkdirSync(tempFolder(), { recursive: true, mode: 0o700 });
    const inTemp = path.join(tempFolder(), `${tempPrefix(database)}${id}${SPILL_EXTENSION}`);
    writeWhole(inTemp, content);
    return inTemp;
  }
}

function readSpill(file: string): SpillFile {
  const parsed = JSON.parse(readOwnFileText(file, MAX_SPILL_BYTES)) as Partial<SpillFile>;
  if (parsed.format !== SPILL_FORMAT || typeof parsed.id !== 'string' || !Array.isArray(parsed.mutations)) {
    throw new Error(`${file} is not a spill file this agent-tracker can read (format ${String(parsed.format)})`);
  }
  return parsed as SpillFile;
}

/** The mutations waiting in spill files of the database, without merging them (for `doctor`). */
export function pendingSpills(database: string): { files: number; mutations: number } {
  let mutations = 0;
  const files = spillFilesOf(database);
  for (const file of files) {
    try {
      mutations += readSpill(file).mutations.length;
    } catch {
      // counted as a file; its mutations are unknown
    }
  }
  return { files: files.length, mutations };
}

/**
 * Merges every spill file of the store's database, each in one transaction with its marker, and
 * removes the merged files. A spill that cannot be merged now (the database is full, read-only)
 * stays for the next start and is reported in `left`.
 */
export function mergeSpills(store: Store, rules: ScoringRules, now: Date = new Date()): SpillMergeResult {
  const result: SpillMergeResult = { merged: 0, mutations: 0, alreadyMerged: 0, left: [] };
  for (const file of spillFilesOf(store.path)) {
    let spill: SpillFile;
    try {
      spill = readSpill(file);
    } catch (error) {
      result.left.push({ file, reason: (error as Error).message });
      continue;
    }
    const marker = spillMarker(spill.id);
    try {
      const applied = store.write((t) => {
        if (t.meta.doesExist(marker)) return false;
        t.meta.putSync(marker, now.toISOString());
        store.applyBatch(spilledMutations(spill.mutations, { id: spill.id, file }, now.toISOString()), rules, now.toISOString());
        return true;
      });
      if (applied) {
        result.merged += 1;
        result.mutations += spill.mutations.length;
      } else {
        result.alreadyMerged += 1;
      }
      fs.rmSync(file, { force: true });
    } catch (error) {
      result.left.push({ file, reason: (error as Error).message });
    }
  }
  pruneLateMarkers(store, now);
  return result;
}

function spillIdOf(file: string): string {
  const name = path.basename(file, SPILL_EXTENSION);
  const infix = name.lastIndexOf(SPILL_INFIX);
  return infix >= 0 ? name.slice(infix + SPILL_INFIX.length) : name.slice(name.indexOf('-') + 1);
}

/** Removes the markers late writes left whose spill never came (or is merged and gone), once they are LATE_MARKER_KEEP_MS old. */
function pruneLateMarkers(store: Store, now: Date): void {
  const old: string[] = [];
  for (const { key, value } of store.tables.meta.getRange({ start: SPILL_MARKER_PREFIX, end: LATE_MARKERS_END })) {
    const at = lateMarkerTime(value);
    if (at !== undefined && now.getTime() - at > LATE_MARKER_KEEP_MS) old.push(key);
  }
  // The spill folders are listed again only when there is an old marker to weigh (almost never).
  if (old.length === 0) return;
  const spilled = new Set(spillFilesOf(store.path).map(spillIdOf));
  const stale = old.filter((key) => !spilled.has(key.slice(SPILL_MARKER_PREFIX.length)));
  if (stale.length === 0) return;
  try {
    store.write((tables) => {
      for (const key of stale) tables.meta.removeSync(key);
    });
  } catch {
    // Kept for the next start: a marker left in place only costs a few bytes.
  }
}

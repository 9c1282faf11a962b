/**
 * The spill file: what a session could not write (disk full, size limit, a damaged or locked file,
 * a database still being checked) is kept in a small JSON file beside the database, or in the OS
 * temp folder when that folder cannot take it, and merged into the database at the next start.
 *
 * Exactly once: the merge writes the spill's id into the meta table in the SAME transaction as its
 * mutations, and skips a spill whose id is there. A crash between the commit and the removal of the
 * file leaves a file that the next merge finds done and removes; two processes merging at once are
 * serialized by lmdb's write lock, and the second finds the id.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeFileAtomic } from '../fs/atomic-write.js';
import type { ScoringRules } from '../rules.js';
import type { Mutation } from './mutations.js';
import type { Store } from './store.js';

const SPILL_FORMAT = 1;
const SPILL_INFIX = '.spill-';
const SPILL_EXTENSION = '.json';
const TEMP_FOLDER = 'agent-tracker-spill';
const MARKER_PREFIX = 'spill:';

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
 * full or not writable) in the OS temp folder. Returns the file written.
 * @throws the error of the temp folder when neither place takes it.
 */
export function writeSpill(database: string, mutations: readonly Mutation[], now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:.]/g, '');
  const id = `${stamp}-${process.pid}-${randomBytes(4).toString('hex')}`;
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
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<SpillFile>;
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
    const marker = `${MARKER_PREFIX}${spill.id}`;
    try {
      const applied = store.write((t) => {
        if (t.meta.doesExist(marker)) return false;
        t.meta.putSync(marker, now.toISOString());
        store.applyBatch(spill.mutations, rules, now.toISOString());
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
  return result;
}

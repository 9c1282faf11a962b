/**
 * Checks of the database's place made in plain JS BEFORE lmdb ever sees the path. lmdb is native
 * code on a memory map: a folder it cannot create its lock file in, a lock file it cannot map on a
 * full disk, or a foreign file it maps, end in a signal (SIGSEGV/SIGBUS) that takes the host down,
 * not in an exception. Each failure here is one StoreProblem line with the advice that fits.
 */
import fs from 'node:fs';
import path from 'node:path';
import { lmdbFileProblem } from './lmdb-file-check.js';
import { damaged, diskFull, fileNotAccessible, folderNotWritable, notAFile } from './problems.js';
import type { StoreProblem } from './problems.js';

/** Room for lmdb's lock file (126 reader slots of 64 bytes plus its header, rounded up generously). */
export const LOCK_FILE_BYTES = 64 * 1024;
/** Room for a new data file: its two meta pages and the first pages of the named sub-databases. */
export const NEW_FILE_BYTES = 64 * 1024;
/** Room kept free for the next flush when no batch is known yet (a long turn writes well under this). */
export const NEXT_WRITE_BYTES = 256 * 1024;

export interface PreflightInput {
  path: string;
  /** Readers need no room and no write access to the data file. */
  readOnly?: boolean;
  /** Bytes the next write needs, when the caller knows (defaults to NEXT_WRITE_BYTES). */
  nextWriteBytes?: number;
}

function statOf(file: string): fs.Stats | NodeJS.ErrnoException {
  try {
    return fs.statSync(file);
  } catch (error) {
    return error as NodeJS.ErrnoException;
  }
}

function canAccess(file: string, mode: number): string | undefined {
  try {
    fs.accessSync(file, mode);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  }
}

/** The nearest folder on the way to `folder` that exists (the one `mkdir -p` would write into). */
function nearestExisting(folder: string): { folder: string; stats: fs.Stats | NodeJS.ErrnoException } {
  let current = folder;
  for (;;) {
    const stats = statOf(current);
    if (stats instanceof fs.Stats || stats.code !== 'ENOENT' || path.dirname(current) === current) return { folder: current, stats };
    current = path.dirname(current);
  }
}

/** Free bytes for this user on the file system holding `folder`, or undefined where statfs is missing. */
export function freeBytes(folder: string): number | undefined {
  try {
    const stats = fs.statfsSync(folder);
    return Number(stats.bavail) * Number(stats.bsize);
  } catch {
    return undefined;
  }
}

/**
 * What the folder at the database's path is. Builds before lmdb was told to keep one file made such a
 * folder for a path without an extension, with the records in its data.mdb: the user is told how to keep them.
 */
function folderInPlace(file: string): string {
  const records = path.join(file, 'data.mdb');
  if (!fs.existsSync(records)) return 'a folder is in its place';
  return `a folder is in its place, made by an earlier agent-tracker for a path without an extension; its records are in ${records}: to keep them, move that file out, remove the folder and move the file to ${file}`;
}

/**
 * The first reason the database at `input.path` cannot be opened safely, or undefined when lmdb
 * may open it. Cheap: a few stat/access calls, one statfs and a read of the two meta pages.
 */
export function preflight(input: PreflightInput): StoreProblem | undefined {
  const file = input.path;
  const lockFile = `${file}-lock`;
  const data = statOf(file);
  const dataExists = data instanceof fs.Stats;
  if (dataExists && !data.isFile()) return notAFile(file, data.isDirectory() ? folderInPlace(file) : 'it is not a regular file');
  if (!dataExists && data.code === 'ENOTDIR') return notAFile(file, 'a file is in the way of its folder (ENOTDIR)');
  if (!dataExists && data.code !== 'ENOENT') {
    return data.code === 'EACCES' ? folderNotWritable(path.dirname(file), 'EACCES') : notAFile(file, data.code ?? data.message);
  }

  if (dataExists) {
    const denied = canAccess(file, input.readOnly ? fs.constants.R_OK : fs.constants.R_OK | fs.constants.W_OK);
    if (denied) return fileNotAccessible(file, denied);
    if (data.size > 0 || input.readOnly) {
      const problem = lmdbFileProblem(file);
      if (problem) return damaged(file, problem);
    }
  }

  const { folder, stats: folderStats } = nearestExisting(path.dirname(file));
  if (!(folderStats instanceof fs.Stats)) return folderStats.code === 'ENOTDIR' ? notAFile(file, 'a file is in the way of its folder (ENOTDIR)') : folderNotWritable(folder, folderStats.code ?? 'unknown');
  if (!folderStats.isDirectory()) return notAFile(file, `${folder} is a file, not a folder (ENOTDIR)`);
  const lock = statOf(lockFile);
  const lockExists = lock instanceof fs.Stats;
  const folderDenied = canAccess(folder, fs.constants.W_OK | fs.constants.X_OK);
  if (folderDenied) {
    // lmdb opens an existing data file and lock file without creating anything in the folder.
    const lockUsable = lockExists && dataExists && canAccess(lockFile, fs.constants.R_OK | fs.constants.W_OK) === undefined;
    if (!lockUsable) return folderNotWritable(folder, folderDenied);
  } else if (lockExists) {
    const lockDenied = canAccess(lockFile, fs.constants.R_OK | fs.constants.W_OK);
    if (lockDenied) return fileNotAccessible(lockFile, lockDenied);
  }

  // A reader with an existing lock file writes nothing; anyone else needs room.
  if (input.readOnly && lockExists) return undefined;
  const needed = (input.readOnly ? 0 : input.nextWriteBytes ?? NEXT_WRITE_BYTES) + (lockExists ? 0 : LOCK_FILE_BYTES) + (dataExists ? 0 : NEW_FILE_BYTES);
  const free = freeBytes(folder);
  if (free !== undefined && free < needed) return diskFull(folder, free, needed);
  return undefined;
}

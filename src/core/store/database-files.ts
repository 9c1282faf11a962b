/**
 * The files that make up a database at a path: the lmdb file, lmdb's lock file beside it and the
 * tracker's own files named after it (the `.verified` fingerprint, spill files, snapshots, a damaged
 * file `repair` kept aside). Nothing the tracker writes for the user (an export, a page) may replace one.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Exact names beside the database, after its own name. */
const OWN_SUFFIXES = ['', '-lock', '.verified'] as const;
/** Name beginnings beside the database (spill.ts, snapshot.ts and repair.ts add an id or a time). */
const OWN_INFIXES = ['.spill-', '.snapshot-', '.damaged-'] as const;

/** `file` with its folder's links resolved (the file itself may not exist yet). */
function resolvedPath(file: string): string {
  const absolute = path.resolve(file);
  try {
    return path.join(fs.realpathSync(path.dirname(absolute)), path.basename(absolute));
  } catch {
    return absolute;
  }
}

/** Whether `file` is the database at `database` or one of the files beside it that belong to it. */
export function isDatabaseFile(file: string, database: string): boolean {
  const target = resolvedPath(file);
  const own = resolvedPath(database);
  if (path.dirname(target) !== path.dirname(own)) return false;
  const name = path.basename(target);
  const base = path.basename(own);
  return OWN_SUFFIXES.some((suffix) => name === `${base}${suffix}`) || OWN_INFIXES.some((infix) => name.startsWith(`${base}${infix}`));
}

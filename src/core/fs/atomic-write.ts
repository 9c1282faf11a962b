/**
 * Writes that never follow links and never replace what is not a plain file: the content goes to
 * a new temporary file in the target's folder (created exclusively, so a planted link at that name
 * is refused, not followed) and is renamed over the target. The target must be missing or a
 * regular file: a symlink, FIFO, device or folder there is refused with one line and left as it is.
 * Readers see the old file or the new one, never half of one.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeAllSync } from './write-all.js';

/** Mode for a new file: what the user's umask allows of rw-r--r--. */
const NEW_FILE_MODE = 0o644;

/** A write the tracker refuses because of what is at the path; the message says what and what to do. */
export class UnsafeWriteError extends Error {
  override name = 'UnsafeWriteError';
}

/** A file being written: `write` chunks, then `commit` (rename into place) or `abort` (remove). */
export interface AtomicFile {
  write(chunk: string | Uint8Array): void;
  commit(): void;
  abort(): void;
}

/** What a non-regular file is, in words. */
function kindOf(stat: fs.Stats): string {
  if (stat.isSymbolicLink()) return 'a symbolic link';
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a named pipe (FIFO)';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * The target's stat when it is a regular file, undefined when it is missing.
 * @throws UnsafeWriteError for anything else (checked without following a link at the name).
 */
export function assertReplaceable(target: string): fs.Stats | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if (stat.isFile()) return stat;
  throw new UnsafeWriteError(`refusing to write ${target}: it is ${kindOf(stat)}, and agent-tracker replaces only regular files; remove it or choose another path`);
}

/**
 * Creates `folder` (its parents as needed) and checks that the folder itself is a real folder, not
 * a link planted at its name: the tracker's own folders (`.agent`) are never followed elsewhere.
 * @throws UnsafeWriteError when a link or a non-folder stands at the name.
 */
export function ensureOwnFolder(folder: string): void {
  fs.mkdirSync(folder, { recursive: true });
  const stat = fs.lstatSync(folder);
  if (!stat.isDirectory()) {
    throw new UnsafeWriteError(`refusing to write into ${folder}: it is ${kindOf(stat)}, not a folder agent-tracker made; remove it to let the tracker recreate it`);
  }
}

/**
 * Opens a temporary sibling of `target` for writing; nothing is visible at `target` until `commit`.
 * @throws UnsafeWriteError when `target` exists and is not a regular file (nothing is created).
 */
export function openAtomic(target: string, options: { mode?: number } = {}): AtomicFile {
  const existing = assertReplaceable(target);
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
  // 'wx': O_CREAT|O_EXCL, which refuses an existing name, symlinks included. The mode is the one
  // asked for, else the target's own when it is a regular file.
  const fd = fs.openSync(temporary, 'wx', options.mode ?? (existing ? existing.mode & 0o777 : NEW_FILE_MODE));
  let open = true;
  const close = () => {
    if (open) fs.closeSync(fd);
    open = false;
  };
  return {
    write(chunk) {
      writeAllSync(fd, chunk);
    },
    commit() {
      try {
        close();
        // Again just before the rename: what stands at the name may have changed while writing.
        assertReplaceable(target);
        fs.renameSync(temporary, target);
      } catch (error) {
        fs.rmSync(temporary, { force: true });
        throw error;
      }
    },
    abort() {
      close();
      fs.rmSync(temporary, { force: true });
    },
  };
}

/** Writes `content` to `target` atomically; anything but a regular file or a missing path at `target` is refused. */
export function writeFileAtomic(target: string, content: string | Uint8Array, options: { mode?: number } = {}): void {
  const file = openAtomic(target, options);
  try {
    file.write(content);
  } catch (error) {
    file.abort();
    throw error;
  }
  file.commit();
}

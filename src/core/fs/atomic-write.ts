/**
 * Writes that never follow links out of place: the content goes to a new temporary file in the
 * target's folder (created exclusively, so a planted link at that name is refused, not followed)
 * and is renamed over the target. A rename replaces a symlink at the target; it never writes
 * through it. Readers see the old file or the new one, never half of one.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Mode for a new file: what the user's umask allows of rw-r--r--. */
const NEW_FILE_MODE = 0o644;

/** A file being written: `write` chunks, then `commit` (rename into place) or `abort` (remove). */
export interface AtomicFile {
  write(chunk: string | Uint8Array): void;
  commit(): void;
  abort(): void;
}

/** The mode to keep: the target's own when it is a regular file (a symlink's target is not ours to copy). */
function modeFor(target: string): number {
  try {
    const stat = fs.lstatSync(target);
    return stat.isFile() ? stat.mode & 0o777 : NEW_FILE_MODE;
  } catch {
    return NEW_FILE_MODE;
  }
}

/** Opens a temporary sibling of `target` for writing; nothing is visible at `target` until `commit`. */
export function openAtomic(target: string): AtomicFile {
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
  // 'wx': O_CREAT|O_EXCL, which refuses an existing name, symlinks included.
  const fd = fs.openSync(temporary, 'wx', modeFor(target));
  let open = true;
  const close = () => {
    if (open) fs.closeSync(fd);
    open = false;
  };
  return {
    write(chunk) {
      fs.writeSync(fd, typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    },
    commit() {
      try {
        close();
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

/** Writes `content` to `target` atomically; a symlink at `target` is replaced, never followed. */
export function writeFileAtomic(target: string, content: string | Uint8Array): void {
  const file = openAtomic(target);
  try {
    file.write(content);
  } catch (error) {
    file.abort();
    throw error;
  }
  file.commit();
}

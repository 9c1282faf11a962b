/**
 * Replacing a config file safely: a backup of the old text first (in the backups folder, never
 * beside the file: src/provisioning/backups.ts), then the new text written to a
 * fresh temporary file in the same folder and renamed over the target. Every file this creates is
 * opened exclusively (`wx`), so a planted file or symlink at a temporary or backup name makes the
 * write fail instead of writing through it; and the rename replaces a symlink at the target rather
 * than writing into what it points to.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { backupPath } from './backups.js';

/**
 * Writes `text` to `file` atomically. `before` (the text the caller read, if the file existed) is
 * saved to a backup in `backupDir` first; returns the backup's path, or null when there was nothing to back up.
 */
export function replaceFile(file: string, text: string, before: string | undefined, now: Date, backupDir: string): string | null {
  const folder = path.dirname(file);
  let backup: string | null = null;
  if (before !== undefined) {
    fs.mkdirSync(backupDir, { recursive: true });
    backup = backupPath(file, now, backupDir);
    fs.writeFileSync(backup, before, { flag: 'wx' });
  }
  let mode = 0o644;
  try {
    mode = fs.statSync(file).mode & 0o777;
  } catch {
    // A new file (or a dangling link): the default mode.
  }
  const temporary = path.join(folder, `.${path.basename(file)}.agent-tracker-tmp-${process.pid}-${crypto.randomBytes(6).toString('hex')}`);
  try {
    fs.writeFileSync(temporary, text, { flag: 'wx', mode });
    fs.renameSync(temporary, file);
  } finally {
    fs.rmSync(temporary, { force: true });
  }
  return backup;
}

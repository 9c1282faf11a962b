/**
 * Replacing a config file safely: a backup of the old text first, then the new text written to a
 * fresh temporary file in the same folder and renamed over the target. Every file this creates is
 * opened exclusively (`wx`), so a planted file or symlink at a temporary or backup name makes the
 * write fail instead of writing through it; and the rename replaces a symlink at the target rather
 * than writing into what it points to.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** `opencode.json.agent-tracker-backup-20260223T101500Z` (a counter is added when that name exists). */
export function backupPath(file: string, now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  let candidate = `${file}.agent-tracker-backup-${stamp}`;
  for (let n = 2; fs.existsSync(candidate) || isLink(candidate); n += 1) candidate = `${file}.agent-tracker-backup-${stamp}-${n}`;
  return candidate;
}

function isLink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Writes `text` to `file` atomically. `before` (the text the caller read, if the file existed) is
 * saved to a backup first; returns the backup's path, or null when there was nothing to back up.
 */
export function replaceFile(file: string, text: string, before: string | undefined, now: Date): string | null {
  const folder = path.dirname(file);
  let backup: string | null = null;
  if (before !== undefined) {
    backup = backupPath(file, now);
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

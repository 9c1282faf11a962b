/**
 * Where the tracker keeps the old text of a config file it replaces: one folder in the OpenCode
 * config folder, never beside the file. A backup beside a project's opencode.json sat untracked in
 * the project, and one `git add -A` committed it.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The backups folder's name inside the OpenCode config folder. */
export const BACKUP_FOLDER_NAME = 'agent-tracker-backups';
const BACKUP_MARK = '.agent-tracker-backup-';

/** The backups folder of an OpenCode config folder. */
export function backupFolder(configDir: string): string {
  return path.join(configDir, BACKUP_FOLDER_NAME);
}

function isLink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * `<folder>/shop-opencode.json.agent-tracker-backup-20260223T101500Z` for `/…/shop/opencode.json`:
 * the file's folder and name, so the user can tell which file it was; a counter when the name is taken.
 */
export function backupPath(file: string, now: Date, folder: string): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const owner = path.basename(path.dirname(path.resolve(file))) || 'root';
  const base = path.join(folder, `${owner}-${path.basename(file)}${BACKUP_MARK}${stamp}`);
  let candidate = base;
  for (let n = 2; fs.existsSync(candidate) || isLink(candidate); n += 1) candidate = `${base}-${n}`;
  return candidate;
}

export interface BackupFile {
  file: string;
  size: number;
  takenAt: string;
}

/** The backups in `folder`, newest first; none when the folder does not exist. */
export function listBackups(folder: string): BackupFile[] {
  let names: string[];
  try {
    names = fs.readdirSync(folder);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.includes(BACKUP_MARK))
    .flatMap((name) => {
      try {
        const stat = fs.lstatSync(path.join(folder, name));
        return stat.isFile() ? [{ file: path.join(folder, name), size: stat.size, takenAt: stat.mtime.toISOString() }] : [];
      } catch {
        return [];
      }
    })
    .sort((a, b) => b.takenAt.localeCompare(a.takenAt) || b.file.localeCompare(a.file));
}

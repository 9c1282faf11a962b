/**
 * The secret values of a project's protected env files (`.env`, `.env.*` but templates, anywhere
 * in the project but dependency and build folders), kept in memory only, as a SecretMasker.
 * The tree is scanned in the background when the plugin starts and again at most every
 * `rescanMs`; the files found are checked (inode, size, mtime and ctime: one `stat` each) on every
 * use, so an edited, replaced or deleted file counts at once. Bad files degrade to "mask what could be read" with one warning each.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../core/logger.js';
import { parseEnvFile } from '../../core/secrets/env-file.js';
import { SecretMasker } from '../../core/secrets/mask.js';
import type { SecretSource } from '../../core/secrets/mask.js';
import { isProtectedEnvPath } from './env-guard.js';

/** Bounds of the scan and of what is read, so a huge tree or file never stalls a session. */
export const ENV_SCAN_LIMITS = {
  maxDepth: 8,
  maxEntries: 20_000,
  maxFileBytes: 1024 * 1024,
  rescanMs: 30_000,
} as const;

/** Folders that hold dependencies or build output, not the project's own env files. */
const SKIPPED_FOLDERS: ReadonlySet<string> = new Set([
  'node_modules', '.git', '.hg', '.svn', 'vendor', 'dist', 'build', 'target', '.venv', 'venv', '__pycache__',
  '.next', '.nuxt', '.cache', 'bower_components', 'Pods', '.gradle', '.terraform', 'coverage',
]);

/** The protected env files below `root`, bounded by ENV_SCAN_LIMITS; links to folders are not followed. */
export async function findEnvFiles(root: string): Promise<string[]> {
  const found: string[] = [];
  let entries = 0;
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > ENV_SCAN_LIMITS.maxDepth || entries > ENV_SCAN_LIMITS.maxEntries) return;
    let listing: fs.Dirent[];
    try {
      listing = await fs.promises.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of listing) {
      entries += 1;
      if (entries > ENV_SCAN_LIMITS.maxEntries) return;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) await walk(full, depth + 1);
      } else if ((entry.isFile() || entry.isSymbolicLink()) && isProtectedEnvPath(entry.name)) {
        found.push(full);
      }
    }
  };
  await walk(root, 0);
  return found.sort();
}

interface ReadResult {
  sources: SecretSource[];
  problem?: string;
}

/** The entries of one env file, as much of it as can be read. */
export function readEnvFile(file: string, root: string): ReadResult {
  const name = path.relative(root, file) || path.basename(file);
  let handle: number | undefined;
  try {
    handle = fs.openSync(file, 'r');
    const buffer = Buffer.alloc(ENV_SCAN_LIMITS.maxFileBytes);
    const length = fs.readSync(handle, buffer, 0, buffer.length, 0);
    const size = fs.fstatSync(handle).size;
    const sources = parseEnvFile(buffer.subarray(0, length).toString('utf8')).map((entry) => ({ ...entry, file: name }));
    return size > length ? { sources, problem: `${name} is larger than ${ENV_SCAN_LIMITS.maxFileBytes} bytes: only its start is masked` } : { sources };
  } catch (error) {
    return { sources: [], problem: `${name} could not be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): its values are not masked` };
  } finally {
    if (handle !== undefined) fs.closeSync(handle);
  }
}

/** What an env file was when it was last read: a change in any of these means it must be read again. */
interface FileStamp {
  /** 0 when the file could not be stat'ed (gone, or a link that leads nowhere). */
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

const GONE: FileStamp = { ino: 0, size: -1, mtimeMs: 0, ctimeMs: 0 };

/** The stamp of a file not read yet: equal to nothing, so the first check reads it. */
function unreadStamp(): FileStamp {
  return { ino: Number.NaN, size: Number.NaN, mtimeMs: Number.NaN, ctimeMs: Number.NaN };
}

/**
 * Brings `stamp` up to date with the file at `file` (one `stat`, following links) and says whether
 * it changed: an edit (size, mtime or ctime), a replacement (inode) or a deletion. In place, so a
 * check of unchanged files allocates nothing of its own.
 */
function restamp(file: string, stamp: FileStamp): boolean {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(file, { throwIfNoEntry: false });
  } catch {
    stat = undefined;
  }
  const next = stat ?? GONE;
  if (stamp.ino === next.ino && stamp.size === next.size && stamp.mtimeMs === next.mtimeMs && stamp.ctimeMs === next.ctimeMs) return false;
  stamp.ino = next.ino;
  stamp.size = next.size;
  stamp.mtimeMs = next.mtimeMs;
  stamp.ctimeMs = next.ctimeMs;
  return true;
}

export class ProjectSecrets {
  private files: string[] = [];
  /** One per file of `files`, as it was when last read. */
  private stamps: FileStamp[] = [];
  private current = new SecretMasker([]);
  private scanning: Promise<void> | undefined;
  private scannedAt = -Infinity;
  private readonly warned = new Set<string>();

  constructor(
    private readonly root: string,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Starts (or joins) a scan of the tree; resolves when the masker reflects it. */
  scan(): Promise<void> {
    this.scanning ??= findEnvFiles(this.root)
      .then((files) => {
        // The same files keep their stamps (nothing to re-read); any other list is read afresh.
        const same = files.length === this.files.length && files.every((file, i) => file === this.files[i]);
        if (!same) this.stamps = files.map(unreadStamp);
        this.files = files;
        this.scannedAt = this.now();
        this.refresh();
      })
      .finally(() => {
        this.scanning = undefined;
      });
    return this.scanning;
  }

  /**
   * The masker, with changed files re-read; rescans in the background when due. Synchronous once
   * the first scan is done (a promise only while it runs), so masking an output costs no promise.
   */
  masker(): SecretMasker | Promise<SecretMasker> {
    if (this.scannedAt === -Infinity) {
      return this.scan().then(() => {
        this.refresh();
        return this.current;
      });
    }
    if (this.now() - this.scannedAt > ENV_SCAN_LIMITS.rescanMs) void this.scan().catch(() => undefined);
    this.refresh();
    return this.current;
  }

  /** Masks with what is known now, without waiting (for text the tracker is about to store). */
  maskNow(text: string): string {
    this.refresh();
    return this.current.mask(text);
  }

  /** Re-reads every file when one of them changed: checked (one `stat` per file) on every use, so an edit counts at once. */
  private refresh(): void {
    let changed = false;
    // Every file is checked, even after a change is found: each stamp must match what is read next.
    for (let i = 0; i < this.files.length; i += 1) {
      if (restamp(this.files[i] as string, this.stamps[i] as FileStamp)) changed = true;
    }
    if (!changed) return;
    const sources: SecretSource[] = [];
    for (const file of this.files) {
      const { sources: found, problem } = readEnvFile(file, this.root);
      sources.push(...found);
      if (problem && !this.warned.has(problem)) {
        this.warned.add(problem);
        this.logger.warn(`agent-tracker: ${problem}`);
      }
    }
    this.current = new SecretMasker(sources);
  }
}

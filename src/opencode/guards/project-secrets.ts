/**
 * The secret values of a project's protected env files (`.env`, `.env.*` but templates, anywhere
 * in the project but dependency and build folders), kept in memory only, as a SecretMasker.
 * The tree is scanned in the background when the plugin starts and again at most every
 * `rescanMs`, a rescan listing only the folders that changed since (a `stat` of each of the others);
 * the files found are checked (inode, size, mtime and ctime: one `stat` each) on every
 * use, so an edited, replaced or deleted file counts at once. Bad files degrade to "mask what could be read" with one warning each.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../core/logger.js';
import { parseEnvFile } from '../../core/secrets/env-file.js';
import { SecretMasker } from '../../core/secrets/mask.js';
import type { SecretSource } from '../../core/secrets/mask.js';
import { isProtectedEnvPath, shellWords, stringArgs } from './env-guard.js';

/**
 * Bounds of the scan and of what is read, so a huge tree or file never stalls a session. There is
 * no depth bound: the scan goes breadth first, so shallow folders are listed before deep ones, and
 * past `maxEntries` it names the folders it did not list (see EnvScan.unscanned).
 */
export const ENV_SCAN_LIMITS = {
  maxEntries: 100_000,
  maxFileBytes: 1024 * 1024,
  rescanMs: 30_000,
} as const;

/** Folders that hold dependencies or build output, not the project's own env files. */
const SKIPPED_FOLDERS: ReadonlySet<string> = new Set([
  'node_modules', '.git', '.hg', '.svn', 'vendor', 'dist', 'build', 'target', '.venv', 'venv', '__pycache__',
  '.next', '.nuxt', '.cache', 'bower_components', 'Pods', '.gradle', '.terraform', 'coverage', 'site-packages',
]);
/** A file that marks a Python virtualenv whatever the folder is called (`env/`, `py311/`): its tree is dependencies. */
const VIRTUALENV_MARKER = 'pyvenv.cfg';
/** Arguments of file tools that name a path. */
const PATH_ARGUMENTS = ['filePath', 'path', 'filePaths'] as const;
/** How many unscanned folders a warning names before it says "and N more". */
const NAMED_UNSCANNED = 5;

/** What a scan found: the protected env files, and the folders it did not list (past its bound). */
export interface EnvScan {
  files: string[];
  /** Folders (absolute, as reached from the root) whose contents were not listed: their env files are unknown. */
  unscanned: string[];
  /** What the scan knows of each folder it reached, by real path: the next scan reuses a folder's while it is unchanged. */
  listings: FolderListings;
  /** How many folders were read from disk (the others' listings were reused). */
  read: number;
}

/** One folder's entries that matter to the scan, in the order they were listed. */
export interface FolderListing {
  /** The folder as `stat` saw it just before it was read. */
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
  /** When it was read (this clock). */
  listedAt: number;
  /** How many entries it has, all kinds (counted against the scan's bound). */
  count: number;
  /** It holds a `pyvenv.cfg`: a virtualenv. */
  virtualenv: boolean;
  entries: { name: string; kind: 'folder' | 'link' | 'env' }[];
}

export type FolderListings = Map<string, FolderListing>;

/**
 * A folder's listing is reused only when its modification time is this much older than the listing:
 * an entry added or removed within the file system's time granularity (2 s on FAT) after the folder
 * was read could leave its time stamp as it was (git's "racily clean" rule).
 */
const RACY_MS = 2_000;
/** The scan stats this many folders, then lets the event loop run. */
const STATS_PER_TURN = 256;

/** `stat` of a path, following links; undefined when it is gone or cannot be read. */
function statOf(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * The listing of `dir` (real path `real`): the previous scan's when the folder's inode, modification
 * and change times are the same and it was read well after its last change; else read now (undefined
 * when it cannot be read). Reusing it costs one `stat`; reading, a directory listing and an object per entry.
 */
async function listFolder(dir: string, real: string, previous: FolderListings | undefined): Promise<{ listing: FolderListing; read: boolean } | undefined> {
  const stat = statOf(dir);
  const known = previous?.get(real);
  if (stat && known && known.ino === stat.ino && known.mtimeMs === stat.mtimeMs && known.ctimeMs === stat.ctimeMs && known.listedAt - stat.mtimeMs >= RACY_MS) {
    return { listing: known, read: false };
  }
  const listedAt = Date.now();
  let dirents: fs.Dirent[];
  try {
    dirents = await fs.promises.readdir(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  const entries: FolderListing['entries'] = [];
  for (const entry of dirents) {
    if (entry.isDirectory()) entries.push({ name: entry.name, kind: 'folder' });
    else if (entry.isSymbolicLink()) entries.push({ name: entry.name, kind: 'link' });
    else if (entry.isFile() && isProtectedEnvPath(entry.name)) entries.push({ name: entry.name, kind: 'env' });
  }
  const virtualenv = dirents.some((entry) => entry.name === VIRTUALENV_MARKER && entry.isFile());
  // Without a stamp (the folder went away between the two calls) the listing is used once, never reused.
  const stamp = stat ?? { ino: Number.NaN, mtimeMs: Number.NaN, ctimeMs: Number.NaN };
  return { listing: { ino: stamp.ino, mtimeMs: stamp.mtimeMs, ctimeMs: stamp.ctimeMs, listedAt, count: dirents.length, virtualenv, entries }, read: true };
}

/** Whether `target` is `root` or inside it (both real paths). */
function inside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * The protected env files below `root`, breadth first, with no depth bound. Links to folders are
 * followed when they lead inside the project (each real folder is listed once, so a loop ends);
 * past `limits.maxEntries` the scan stops and names the folders it did not list. `previous` is an
 * earlier scan's `listings`: its folders that did not change since are not read again (a rescan of
 * an unchanged tree is a `stat` per folder).
 */
export async function findEnvFiles(root: string, limits: { maxEntries: number } = ENV_SCAN_LIMITS, previous?: FolderListings): Promise<EnvScan> {
  const found: string[] = [];
  const listings: FolderListings = new Map();
  let read = 0;
  let rootReal: string;
  try {
    rootReal = await fs.promises.realpath(root);
  } catch {
    return { files: [], unscanned: [], listings, read };
  }
  const listed = new Set<string>([rootReal]);
  // Each folder as reached from the root (the name the user sees) and as it really is.
  // Normalized once, as path.join normalized every path below it.
  const top = path.normalize(root);
  const queue: { dir: string; real: string }[] = [{ dir: top, real: rootReal }];
  let entries = 0;
  for (let next = 0; next < queue.length; next += 1) {
    const { dir, real } = queue[next] as { dir: string; real: string };
    if (entries >= limits.maxEntries) return { files: found.sort(), unscanned: queue.slice(next).map((item) => item.dir), listings, read };
    if (next % STATS_PER_TURN === STATS_PER_TURN - 1) await new Promise((resolve) => setImmediate(resolve));
    const folder = await listFolder(dir, real, previous);
    if (!folder) continue;
    const { listing } = folder;
    if (folder.read) read += 1;
    listings.set(real, listing);
    entries += listing.count;
    if (dir !== top && listing.virtualenv) continue;
    // What path.join gives for a name without separators in a normalized folder, without normalizing each time.
    const inDir = dir.endsWith(path.sep) ? dir : `${dir}${path.sep}`;
    const inReal = real.endsWith(path.sep) ? real : `${real}${path.sep}`;
    for (const entry of listing.entries) {
      if (entry.kind === 'folder') {
        if (SKIPPED_FOLDERS.has(entry.name)) continue;
        const realChild = `${inReal}${entry.name}`;
        if (listed.has(realChild)) continue;
        listed.add(realChild);
        queue.push({ dir: `${inDir}${entry.name}`, real: realChild });
      } else if (entry.kind === 'link') {
        if (isProtectedEnvPath(entry.name)) found.push(`${inDir}${entry.name}`);
        else if (!SKIPPED_FOLDERS.has(entry.name)) await followLink(`${inDir}${entry.name}`, rootReal, listed, queue);
      } else {
        found.push(`${inDir}${entry.name}`);
      }
    }
  }
  return { files: found.sort(), unscanned: [], listings, read };
}

/** Queues a link to a folder inside the project, once per real folder. */
async function followLink(link: string, rootReal: string, listed: Set<string>, queue: { dir: string; real: string }[]): Promise<void> {
  let real: string;
  try {
    real = await fs.promises.realpath(link);
    if (!(await fs.promises.stat(real)).isDirectory()) return;
  } catch {
    return;
  }
  if (!inside(rootReal, real) || listed.has(real)) return;
  listed.add(real);
  queue.push({ dir: link, real });
}

/** The warning for a scan that stopped at its bound: where it stopped, and what that means. */
export function unscannedWarning(root: string, unscanned: readonly string[], maxEntries: number = ENV_SCAN_LIMITS.maxEntries): string {
  const named = unscanned.slice(0, NAMED_UNSCANNED).map((dir) => path.relative(root, dir) || '.');
  const more = unscanned.length > NAMED_UNSCANNED ? ` and ${unscanned.length - NAMED_UNSCANNED} more` : '';
  return (
    `the scan for .env files stopped after ${maxEntries} entries; not scanned: ${named.join(', ')}${more}. ` +
    'Tools are refused inside these folders, since their env values cannot be masked.'
  );
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
    // Non-blocking, and checked before a byte is read: the scan lists links by their name, and a FIFO
    // behind one (an agent can plant it) would block this read, and the host's main thread, for good.
    handle = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    const stat = fs.fstatSync(handle);
    if (!stat.isFile()) return { sources: [], problem: `${name} is not a regular file (a pipe, device or folder): it is not read` };
    const buffer = Buffer.alloc(ENV_SCAN_LIMITS.maxFileBytes);
    const length = fs.readSync(handle, buffer, 0, buffer.length, 0);
    const sources = parseEnvFile(buffer.subarray(0, length).toString('utf8')).map((entry) => ({ ...entry, file: name }));
    return stat.size > length ? { sources, problem: `${name} is larger than ${ENV_SCAN_LIMITS.maxFileBytes} bytes: only its start is masked` } : { sources };
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
  const next = statOf(file) ?? GONE;
  if (stamp.ino === next.ino && stamp.size === next.size && stamp.mtimeMs === next.mtimeMs && stamp.ctimeMs === next.ctimeMs) return false;
  stamp.ino = next.ino;
  stamp.size = next.size;
  stamp.mtimeMs = next.mtimeMs;
  stamp.ctimeMs = next.ctimeMs;
  return true;
}

export class ProjectSecrets {
  private files: string[] = [];
  /** Folders the last scan did not list (past its bound): tools are refused inside them. */
  private unscanned: string[] = [];
  /** One per file of `files`, as it was when last read. */
  private stamps: FileStamp[] = [];
  private current = new SecretMasker([]);
  private scanning: Promise<void> | undefined;
  private scannedAt = -Infinity;
  /** How many folders the last scan read from disk. */
  private read = 0;
  private readonly warned = new Set<string>();

  constructor(
    private readonly root: string,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    private readonly limits: { maxEntries: number } = ENV_SCAN_LIMITS,
    /** The folders as an earlier scan left them (another session's, env-folders.ts): a rescan reads only those that changed. */
    private listings: FolderListings = new Map(),
  ) {}

  /** The last scan's folders, and how many of them it read from disk (the others' listings were reused). */
  lastScan(): { listings: FolderListings; read: number } {
    return { listings: this.listings, read: this.read };
  }

  /** Starts (or joins) a scan of the tree; resolves when the masker reflects it. */
  scan(): Promise<void> {
    this.scanning ??= findEnvFiles(this.root, this.limits, this.listings)
      .then(({ files, unscanned, listings, read }) => {
        this.listings = listings;
        this.read = read;
        this.unscanned = unscanned;
        if (unscanned.length > 0) this.warnOnce(unscannedWarning(this.root, unscanned, this.limits.maxEntries));
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

  /**
   * Masks with what is known now, without waiting (for text the tracker is about to store).
   * `recheck: false` skips the stat of each file (another project's values, re-checked on a timer).
   */
  maskNow(text: string, options: { recheck?: boolean } = {}): string {
    if (options.recheck !== false) this.refresh();
    return this.current.mask(text);
  }

  /**
   * A guard for `tool.execute.before`: refuses a call that names a path inside a folder the scan
   * did not list (past its bound), since env files there are unknown and their values unmasked.
   */
  readonly guard = (tool: string, args: unknown): string | undefined => {
    if (this.unscanned.length === 0) return undefined;
    const named = [...stringArgs(args, PATH_ARGUMENTS), ...(tool === 'bash' ? stringArgs(args, ['command']).flatMap(shellWords) : [])];
    for (const word of named) {
      const target = path.resolve(this.root, word.trim());
      const folder = this.unscanned.find((dir) => target === dir || target.startsWith(`${dir}${path.sep}`));
      if (folder) {
        return (
          `agent-tracker refused ${tool}: "${word}" is inside ${path.relative(this.root, folder)}, which the scan for .env files did not reach ` +
          `(it stopped after ${this.limits.maxEntries} entries), so secrets there could not be masked. Ask the user to look at it.`
        );
      }
    }
    return undefined;
  };

  private warnOnce(problem: string): void {
    if (this.warned.has(problem)) return;
    this.warned.add(problem);
    this.logger.warn(`agent-tracker: ${problem}`);
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
      if (problem) this.warnOnce(problem);
    }
    this.current = new SecretMasker(sources);
  }
}

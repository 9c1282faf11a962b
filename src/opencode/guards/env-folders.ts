/**
 * What the scans for env files learned of the OTHER known projects' folders (project-secrets.ts:
 * `FolderListings`), kept beside the database between sessions. At each session start the plugin
 * reads every other known project's env files so that stored text is masked with their values too
 * (stored-text.ts); with the listings of the last session, that costs a `stat` per unchanged folder
 * instead of listing every folder of every project (20 projects of 5,000 entries: 325 ms of CPU at
 * every start, under OpenCode's Bun). A listing is only reused while its folder's stamp is the same
 * and was not racy, as within one session, so what is found is what a full scan finds.
 *
 * Folder names and time stamps only, never a value. The current project is always scanned afresh
 * (its values mask every tool output; nothing in this file can hide one of its env files). Reading
 * never throws (a damaged or foreign file counts as empty); writing is atomic and never throws.
 */
import type { Logger } from '../../core/logger.js';
import { writeFileAtomic } from '../../core/fs/atomic-write.js';
import { readOwnFileText } from '../../core/fs/read-bounded.js';
import type { FolderListing, FolderListings } from './project-secrets.js';

export const ENV_FOLDERS_LIMITS = {
  /** At most this many folders are kept, over all projects (the rest are scanned in full each start). */
  maxFolders: 50_000,
  /** A larger file is not read. */
  maxFileBytes: 32 * 1024 * 1024,
} as const;

const FORMAT = 'agent-tracker env folders 1';
const KINDS = { folder: 'd', link: 'l', env: 'e' } as const;
const KIND_OF: Readonly<Record<string, FolderListing['entries'][number]['kind']>> = { d: 'folder', l: 'link', e: 'env' };

/** The file beside the database. */
export function envFoldersPath(databasePath: string): string {
  return `${databasePath}.env-folders.json`;
}

/** One listing as stored: [real path, ino, mtimeMs, ctimeMs, listedAt, count, virtualenv (0/1), kind+name...]. */
type StoredListing = [string, number, number, number, number, number, number, ...string[]];

function encode(real: string, listing: FolderListing): StoredListing {
  return [real, listing.ino, listing.mtimeMs, listing.ctimeMs, listing.listedAt, listing.count, listing.virtualenv ? 1 : 0, ...listing.entries.map((entry) => `${KINDS[entry.kind]}${entry.name}`)];
}

function decode(row: unknown): [string, FolderListing] | undefined {
  if (!Array.isArray(row) || row.length < 7 || typeof row[0] !== 'string') return undefined;
  const numbers = row.slice(1, 7);
  if (!numbers.every((value) => typeof value === 'number' && Number.isFinite(value))) return undefined;
  const entries: FolderListing['entries'] = [];
  for (const item of row.slice(7)) {
    if (typeof item !== 'string') return undefined;
    const kind = KIND_OF[item.charAt(0)];
    const name = item.slice(1);
    // A name is one folder entry: no separator, and never `.` or `..` (a walk must not leave the project).
    if (!kind || name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\\')) return undefined;
    entries.push({ name, kind });
  }
  const [ino, mtimeMs, ctimeMs, listedAt, count, virtualenv] = numbers as number[];
  return [row[0], { ino: ino as number, mtimeMs: mtimeMs as number, ctimeMs: ctimeMs as number, listedAt: listedAt as number, count: count as number, virtualenv: virtualenv === 1, entries }];
}

/** The listings kept for other projects, read once, and written back when a scan changed them. */
export class EnvFolders {
  private projects: Map<string, FolderListings> | undefined;
  /** The projects scanned in this session: what the file keeps when it is written (a project no longer known drops out). */
  private readonly seen = new Set<string>();
  private changed = false;

  constructor(
    private readonly file: string,
    private readonly logger: Logger,
    private readonly maxFolders: number = ENV_FOLDERS_LIMITS.maxFolders,
  ) {}

  /** The listings kept for the project at `root` (empty when none are). */
  of(root: string): FolderListings | undefined {
    return this.load().get(root);
  }

  /** A scan of the project at `root` ended with these listings; `read` folders were read from disk. */
  keep(root: string, listings: FolderListings, read: number): void {
    const projects = this.load();
    const before = projects.get(root);
    this.seen.add(root);
    if (read === 0 && before?.size === listings.size) return;
    projects.set(root, listings);
    this.changed = true;
  }

  /** Writes the listings of this session's projects when a scan changed them, at most `maxFolders` folders in all. */
  save(): void {
    if (!this.changed || !this.projects) return;
    this.changed = false;
    const stored: Record<string, StoredListing[]> = {};
    let folders = 0;
    // The smallest projects first: the bound keeps as many projects as it can.
    const kept = [...this.projects].filter(([root]) => this.seen.has(root)).sort(([rootA, a], [rootB, b]) => a.size - b.size || (rootA < rootB ? -1 : 1));
    for (const [root, listings] of kept) {
      if (folders + listings.size > this.maxFolders) continue;
      folders += listings.size;
      stored[root] = [...listings].map(([real, listing]) => encode(real, listing));
    }
    try {
      writeFileAtomic(this.file, JSON.stringify({ format: FORMAT, projects: stored }), { mode: 0o600 });
    } catch (error) {
      this.logger.info(`agent-tracker: the other projects' folders could not be kept in ${this.file} (${(error as Error).message}); the next start lists them again`);
    }
  }

  private load(): Map<string, FolderListings> {
    if (this.projects) return this.projects;
    this.projects = new Map();
    let parsed: unknown;
    try {
      parsed = JSON.parse(readOwnFileText(this.file, ENV_FOLDERS_LIMITS.maxFileBytes));
    } catch {
      // Missing, unreadable or damaged: every project is listed in full, and the file is written anew.
      return this.projects;
    }
    const body = parsed as { format?: unknown; projects?: unknown };
    if (body?.format !== FORMAT || typeof body.projects !== 'object' || body.projects === null) return this.projects;
    for (const [root, rows] of Object.entries(body.projects as Record<string, unknown>)) {
      if (!Array.isArray(rows)) continue;
      const listings: FolderListings = new Map();
      for (const row of rows) {
        const decoded = decode(row);
        if (decoded) listings.set(decoded[0], decoded[1]);
      }
      this.projects.set(root, listings);
    }
    return this.projects;
  }
}

/**
 * Masking of text before the tracker stores it (task texts, commit messages, notes, activity
 * entries): a value must not be recorded in project A and shown later in project B, whose masker
 * does not know A's values. So stored text is masked with the current project's values AND with
 * those of every other project the database knows (their env files scanned once, in the
 * background, within named bounds; folders unchanged since the last session are not listed again,
 * env-folders.ts). A reader-side pass (`maskForReader`) masks recorded text again
 * with the reader's values, for what was stored before this existed. Fails CLOSED: text that cannot
 * be checked is stored as a one-line notice.
 */
import fs from 'node:fs';
import type { Logger } from '../../core/logger.js';
import type { TextMasker } from '../../core/secrets/mask.js';
import type { EnvFolders } from './env-folders.js';
import { ProjectSecrets } from './project-secrets.js';

/** Bounds on the other projects scanned, so a database of many projects never stalls a session. */
export const STORED_TEXT_LIMITS = {
  /** At most this many other projects' env files are read (the first in path order). */
  maxOtherProjects: 100,
  /** The scan of another project stops after this many directory entries. */
  maxEntriesPerProject: 20_000,
  /** Other projects' env files are re-checked (one stat each) at most this often. */
  recheckMs: 10_000,
} as const;

export const STORED_TEXT_WITHHELD = '[agent-tracker: text withheld, it could not be checked for secrets]';

export class StoredTextMasker {
  private readonly others: ProjectSecrets[] = [];
  /** The other projects read (or being read), at most STORED_TEXT_LIMITS.maxOtherProjects. */
  private readonly otherRoots = new Set<string>();
  private checkedAt = -Infinity;
  private started = false;

  constructor(
    private readonly current: ProjectSecrets | undefined,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    /** The other projects' folders as the last session left them (the plugin's: beside the database); none in the CLI. */
    private readonly folders?: EnvFolders,
  ) {}

  /**
   * Starts reading the env files of the other known projects, in the background (once); their
   * values mask stored text as soon as each scan ends. `roots` is read lazily and may throw.
   */
  addKnownProjects(roots: () => Iterable<string>, self: string): Promise<void> {
    if (this.started) return Promise.resolve();
    this.started = true;
    let chosen: string[];
    try {
      chosen = [...roots()].filter((root) => root !== self && !this.otherRoots.has(root) && fs.existsSync(root)).slice(0, STORED_TEXT_LIMITS.maxOtherProjects - this.otherRoots.size);
    } catch (error) {
      this.logger.warn(`agent-tracker: other projects' .env values could not be listed; stored text is masked with this project's only: ${(error as Error).message}`);
      return Promise.resolve();
    }
    return Promise.allSettled(chosen.map((root) => this.scanOther(root))).then(() => this.folders?.save());
  }

  /**
   * Reads one more project's env files (one whose history is being imported): their values mask stored
   * text once this resolves. Nothing when it is read already, gone, or past the bound of other projects.
   * Never rejects.
   */
  async addProject(root: string): Promise<void> {
    if (this.otherRoots.has(root) || this.otherRoots.size >= STORED_TEXT_LIMITS.maxOtherProjects || !fs.existsSync(root)) return;
    await this.scanOther(root).catch(() => undefined);
    this.folders?.save();
  }

  private async scanOther(root: string): Promise<void> {
    this.otherRoots.add(root);
    const secrets = new ProjectSecrets(root, this.logger, this.now, { maxEntries: STORED_TEXT_LIMITS.maxEntriesPerProject }, this.folders?.of(root));
    await secrets.scan();
    const { listings, read } = secrets.lastScan();
    this.folders?.keep(root, listings, read);
    this.others.push(secrets);
  }

  /** How many other projects' values are known now. */
  get otherProjects(): number {
    return this.others.length;
  }

  /** The masker of every known project, for the output guards (which fail closed on their own). */
  masker(): TextMasker {
    return {
      // Never 0: the guards skip a masker with no values, and these are only known once scans end.
      values: 1,
      mask: (text) => {
        const masked = this.mask(text);
        if (masked === STORED_TEXT_WITHHELD && text !== STORED_TEXT_WITHHELD) throw new Error('masking failed');
        return masked;
      },
      finds: (text) => this.mask(text) !== text,
    };
  }

  /** The text as it may be stored: every known project's values masked. Never throws. */
  mask(text: string): string {
    try {
      let masked = this.current ? this.current.maskNow(text) : text;
      const recheck = this.now() - this.checkedAt > STORED_TEXT_LIMITS.recheckMs;
      if (recheck) this.checkedAt = this.now();
      for (const other of this.others) masked = other.maskNow(masked, { recheck });
      return masked;
    } catch {
      return STORED_TEXT_WITHHELD;
    }
  }
}

/**
 * Recorded text as a reader may see it: masked again with the reader's values (text stored before
 * masking at record time, or by a project whose values were unknown then). Never throws.
 */
export function maskForReader(text: string, reader: ProjectSecrets | undefined): string {
  if (!reader) return text;
  try {
    return reader.maskNow(text);
  } catch {
    return STORED_TEXT_WITHHELD;
  }
}

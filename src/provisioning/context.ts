/**
 * What every provisioning step shares: the config folder it may write in, dry-run, and the only
 * write operations steps use. Every write is checked to stay inside the config folder, an existing
 * file gets one timestamped backup before its first change in a run, and files are written to a
 * temporary sibling first and renamed into place.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeFileAtomic } from '../core/fs/atomic-write.js';
import type { ConfigShape } from './host-version.js';
import { backupFolder, backupPath } from './backups.js';

/** Shared by the steps of one setup run. */
export interface ProvisionContext {
  /** The OpenCode config folder; nothing is ever written outside it. */
  configDir: string;
  /** When set, steps report what they would do and write nothing. */
  dryRun: boolean;
  /** The run's time, used in backup names. */
  now: Date;
  /** Original file → its backup, for files changed in this run. */
  backups: Map<string, string>;
  /** Files written in this run: backed up (if they existed) on the first write, never again. */
  written: Set<string>;
  /** In a dry run, the text a step "wrote", so later steps see it. */
  pendingText: Map<string, string>;
  /** Items (ids from items.ts) the steps leave out: the user removed them after setup added them. */
  skipItems: ReadonlySet<string>;
  /** The OpenCode version whose config shape to write, when the caller knows it; else detected (host-version.ts). */
  configShape?: ConfigShape;
}

/** A fresh context for one run. */
export function createContext(configDir: string, options: { dryRun?: boolean; now?: Date; skipItems?: ReadonlySet<string>; configShape?: ConfigShape } = {}): ProvisionContext {
  return {
    configDir: path.resolve(configDir),
    dryRun: options.dryRun ?? false,
    now: options.now ?? new Date(),
    backups: new Map(),
    written: new Set(),
    pendingText: new Map(),
    skipItems: options.skipItems ?? new Set(),
    ...(options.configShape ? { configShape: options.configShape } : {}),
  };
}

/**
 * Why nothing at all can be written in the config folder (it, or the nearest folder above it that
 * exists, is not a folder or not writable), as one line with the fix; undefined when setup can go on.
 */
export function configFolderProblem(configDir: string): string | undefined {
  let existing = path.resolve(configDir);
  while (!fs.existsSync(existing) && path.dirname(existing) !== existing) existing = path.dirname(existing);
  const what = existing === path.resolve(configDir) ? 'the OpenCode config folder' : `${path.resolve(configDir)} cannot be made: the folder above it`;
  if (!fs.statSync(existing).isDirectory()) return `${what} ${existing} is not a folder: move that file aside, then run "agent-tracker setup"`;
  try {
    fs.accessSync(existing, fs.constants.W_OK);
    return undefined;
  } catch (error) {
    const user = os.userInfo();
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return `${what} ${existing} is not writable by user ${user.username} (${code}): run "chown ${user.uid} '${existing}' && chmod u+rwx '${existing}'", then "agent-tracker setup"`;
  }
}

/** The message for an item a step leaves out because the user removed it. */
export function removedByUser(what: string): string {
  return `left out ${what}: it was removed after setup added it (run "agent-tracker setup" to add it back)`;
}

/** Refuses any path outside the config folder (the one place setup may write). */
export function assertInsideConfig(context: ProvisionContext, target: string): void {
  const relative = path.relative(context.configDir, path.resolve(target));
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
    throw new Error(`refusing to write ${target}: it is outside the OpenCode config folder ${context.configDir}`);
  }
  // A sub-folder (skills/, plugins/, agents/, command/) that is a link out of the folder would
  // carry the write elsewhere: compare real paths of the deepest folder that exists.
  const realConfig = realPathOrSelf(context.configDir);
  const realParent = realPathOfExisting(path.dirname(path.resolve(target)));
  const realRelative = path.relative(realConfig, realParent);
  if (realRelative.startsWith('..') || path.isAbsolute(realRelative)) {
    throw new Error(
      `refusing to write ${target}: its folder resolves to ${realParent}, outside the OpenCode config folder ${realConfig}; ` +
        'remove that link (or make it a real folder), then run "agent-tracker setup" again',
    );
  }
}

function realPathOrSelf(folder: string): string {
  try {
    return fs.realpathSync(folder);
  } catch {
    return path.resolve(folder);
  }
}

/** The real path of `folder`, resolving its deepest existing ancestor (the rest does not exist yet). */
function realPathOfExisting(folder: string): string {
  let existing = folder;
  const rest: string[] = [];
  while (!fs.existsSync(existing) && path.dirname(existing) !== existing) {
    rest.unshift(path.basename(existing));
    existing = path.dirname(existing);
  }
  return path.join(realPathOrSelf(existing), ...rest);
}

/** A file's text as this run sees it (dry-run writes included), or undefined when it does not exist. */
export function readText(context: ProvisionContext, file: string): string | undefined {
  const pending = context.pendingText.get(file);
  if (pending !== undefined) return pending;
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
}

/**
 * Writes a text file inside the config folder: a backup of the existing file first (once per run, in
 * the backups folder),
 * then an atomic replace. Unchanged text writes nothing. Returns whether the file changed.
 */
export function writeText(context: ProvisionContext, file: string, text: string): boolean {
  assertInsideConfig(context, file);
  const before = readText(context, file);
  if (before === text) return false;
  if (context.dryRun) {
    context.pendingText.set(file, text);
    return true;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (before !== undefined && !context.written.has(file)) {
    const folder = backupFolder(context.configDir);
    fs.mkdirSync(folder, { recursive: true });
    const backup = backupPath(file, context.now, folder);
    fs.copyFileSync(file, backup, fs.constants.COPYFILE_EXCL);
    context.backups.set(file, backup);
  }
  writeFileAtomic(file, text);
  context.written.add(file);
  return true;
}

/**
 * Fills a new folder through `fill` in a temporary sibling, then moves it to `target`, replacing
 * what was there. The old folder is moved aside first and removed after the swap, so `target`
 * is never half-written.
 */
export function replaceFolder(context: ProvisionContext, target: string, fill: (folder: string) => void): void {
  assertInsideConfig(context, target);
  if (context.dryRun) return;
  const parent = path.dirname(target);
  fs.mkdirSync(parent, { recursive: true });
  const base = path.basename(target);
  removeLeftovers(parent, base);
  const suffix = `${process.pid}-${context.now.getTime()}`;
  const temporary = path.join(parent, `.${base}.tmp-${suffix}`);
  const old = path.join(parent, `.${base}.old-${suffix}`);
  try {
    fs.mkdirSync(temporary);
    fill(temporary);
    if (fs.existsSync(target)) fs.renameSync(target, old);
    fs.renameSync(temporary, target);
  } catch (error) {
    if (!fs.existsSync(target) && fs.existsSync(old)) fs.renameSync(old, target);
    throw error;
  } finally {
    fs.rmSync(temporary, { recursive: true, force: true });
    fs.rmSync(old, { recursive: true, force: true });
  }
}

/** Temporary folders an interrupted earlier run of `replaceFolder` left behind. */
function removeLeftovers(parent: string, base: string): void {
  const pattern = new RegExp(`^\\.${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(tmp|old)-\\d+-\\d+$`);
  for (const entry of fs.readdirSync(parent)) {
    if (pattern.test(entry)) fs.rmSync(path.join(parent, entry), { recursive: true, force: true });
  }
}

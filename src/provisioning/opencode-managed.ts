/**
 * An install OpenCode manages itself: the package named in the `"plugin"` array
 * (`"opencode-agent-tracker@0.1.0"`), installed by OpenCode into `$XDG_CACHE_HOME/opencode/packages/…`
 * with lifecycle scripts off. `agent-tracker setup` would replace that entry with the plugin folder,
 * so doctor must not advise it; an interrupted install leaves a half-filled cache folder that makes
 * every later start run without the plugin, which doctor names with the command that clears it.
 * Reads only.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PACKAGE_NAME } from './package-root.js';

/** The folder in OpenCode's cache folder where it installs packages named in `"plugin"`. */
export const OPENCODE_PACKAGES_FOLDER = 'packages';
/** What the plugin entry must have for OpenCode to load it. */
const PLUGIN_ENTRY_FILE = path.join('dist', 'opencode', 'plugin.js');
/**
 * How many folders below a cache folder are looked through for the package. OpenCode makes a folder
 * of each part of a spec's path (`opencode-agent-tracker@file:/home/me/src/pkg.tgz` is five deep), so
 * the bound is on folders visited, not on depth.
 */
const MAX_FOLDERS_SEARCHED = 4096;

/** OpenCode's cache folder: `$XDG_CACHE_HOME/opencode`, else `~/.cache/opencode`. */
export function opencodeCacheDir(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  const xdg = env.XDG_CACHE_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.cache'), 'opencode');
}

/** A `"plugin"` spec OpenCode installs from a registry or tarball itself: this package's name, not a local folder. */
export function isManagedSpec(spec: string): boolean {
  return spec === PACKAGE_NAME || spec.startsWith(`${PACKAGE_NAME}@`);
}

export type ManagedInstallState =
  | { state: 'installed'; folder: string; packageDir: string; version: string | null }
  | { state: 'not-installed-yet' }
  | { state: 'half-installed'; folder: string; missing: string[]; fix: string };

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Where this package sits below a cache folder, if it is there at all. */
function findPackageDir(folder: string): string | undefined {
  // Breadth first: the folder that holds node_modules/<name> is found before any node_modules tree below it is walked.
  const queue = [folder];
  for (let next = 0; next < queue.length && next < MAX_FOLDERS_SEARCHED; next += 1) {
    const current = queue[next] as string;
    const candidate = path.join(current, 'node_modules', PACKAGE_NAME);
    if (readJson(path.join(candidate, 'package.json'))?.name === PACKAGE_NAME) return candidate;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (queue.length >= MAX_FOLDERS_SEARCHED) break;
      if (entry.isDirectory() && entry.name !== PACKAGE_NAME) queue.push(path.join(current, entry.name));
    }
  }
  return undefined;
}

/** The runtime dependencies the package needs that neither it nor the cache folder holds. */
function missingDependencies(folder: string, packageDir: string): string[] {
  const manifest = readJson(path.join(packageDir, 'package.json'));
  const dependencies = manifest?.dependencies !== null && typeof manifest?.dependencies === 'object' ? Object.keys(manifest.dependencies as object) : [];
  return dependencies.filter((name) => {
    for (let dir = packageDir; dir.startsWith(folder); dir = path.dirname(dir)) {
      if (fs.existsSync(path.join(dir, 'node_modules', name, 'package.json'))) return false;
      if (dir === folder) break;
    }
    return true;
  });
}

/** A shell-safe rendering of a path for the fix command (single quotes, quotes inside escaped). */
function quoted(file: string): string {
  return `'${file.replace(/'/g, `'\\''`)}'`;
}

/**
 * The state of OpenCode's install of this package: installed (with its plugin entry and every
 * dependency), not installed yet, or half-installed (named, with the command that clears it so
 * OpenCode installs it afresh at its next start).
 */
export function inspectManagedInstall(cacheDir: string = opencodeCacheDir()): ManagedInstallState {
  const packagesDir = path.join(cacheDir, OPENCODE_PACKAGES_FOLDER);
  let folders: string[];
  try {
    folders = fs.readdirSync(packagesDir).filter((name) => name.startsWith(PACKAGE_NAME)).map((name) => path.join(packagesDir, name));
  } catch {
    return { state: 'not-installed-yet' };
  }
  let broken: ManagedInstallState | undefined;
  for (const folder of folders.sort()) {
    const packageDir = findPackageDir(folder);
    const missing = packageDir
      ? [...(fs.existsSync(path.join(packageDir, PLUGIN_ENTRY_FILE)) ? [] : [PLUGIN_ENTRY_FILE]), ...missingDependencies(folder, packageDir)]
      : [`node_modules/${PACKAGE_NAME}`];
    if (packageDir && missing.length === 0) {
      const version = readJson(path.join(packageDir, 'package.json'))?.version;
      return { state: 'installed', folder, packageDir, version: typeof version === 'string' ? version : null };
    }
    broken ??= { state: 'half-installed', folder, missing, fix: `rm -rf ${quoted(folder)} and restart OpenCode (it installs the plugin again)` };
  }
  return broken ?? { state: 'not-installed-yet' };
}

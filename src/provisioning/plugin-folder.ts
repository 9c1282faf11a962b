/**
 * The self-contained plugin folder `<config>/plugins/agent-tracker/`: the built code, the shipped
 * skills and agent definitions, a small package.json, and the runtime dependencies in its own
 * `node_modules`, so it keeps loading after the folder npm installed into is deleted. It is always
 * replaced by the version being installed; an identical folder is left as it is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { replaceFolder } from './context.js';
import type { ProvisionContext } from './context.js';
import { runtimeClosure } from './dependency-closure.js';
import type { PartialPackage } from './dependency-closure.js';
import { PLUGIN_NAME } from './opencode-json.js';
import type { StepResult } from './step.js';

/** The plugin folder, relative to the config folder. */
export const PLUGIN_FOLDER = path.join('plugins', PLUGIN_NAME);

/** Package folders copied (the built code without what is not loaded at run time, see loadedAtRunTime). */
const SHIPPED_FOLDERS = ['dist', 'skills', 'agents'] as const;

/**
 * Packages of which only some files are used. Of `@opencode-ai/plugin` only `tool` (from `@opencode-ai/plugin/tool`, which needs zod
 * alone) is kept; the built code imports nothing of it at run time any more (the tools build their schemas with zod on first read, see
 * opencode/tools/define.ts), and the rest of that package and its large dependencies are never loaded.
 */
const PARTIAL_PACKAGES: Readonly<Record<string, PartialPackage>> = {
  '@opencode-ai/plugin': { files: ['package.json', 'dist/tool.js'], dependencies: ['zod'] },
  // The history import loads only the WASM build (1.6 MiB of the package's 21 MiB: asm.js, debug builds and zips are left out).
  'sql.js': { files: ['package.json', 'LICENSE', 'dist/sql-wasm.js', 'dist/sql-wasm.wasm'], dependencies: [] },
};

/**
 * Fields of the package's own package.json that the plugin folder's package.json keeps. Not its
 * dependencies: they are already in the folder, and nothing should try to install them again.
 */
const MANIFEST_FIELDS = ['name', 'version', 'description', 'license', 'type', 'main', 'exports', 'bin', 'engines'] as const;

/** One file of the plugin folder: copied from `source`, or written from `content`. */
export interface PlannedFile {
  target: string;
  source?: string;
  content?: Buffer;
}

/**
 * The figlet fonts the sheet draws with, imported as modules (src/core/report/name-banner.ts); figlet's
 * other fonts and its `.flf` files are never read (tests/integration/plugin-folder-files.test.ts checks
 * this list against the built code's imports).
 */
const FIGLET_FONTS = ['Cybermedium', 'Cybersmall', 'Mini'] as const;

/** Files of a package that nothing loads, by package: figlet's fonts but the sheet's (10 of its 21 MiB are `.flf` files). */
const UNLOADED_FILES: Readonly<Record<string, (file: string) => boolean>> = {
  figlet: (file) => {
    const [folder, name] = file.split(path.sep);
    return folder === 'fonts' || (folder === 'importable-fonts' && !FIGLET_FONTS.some((font) => name === `${font}.js`));
  },
};

/** Licence and notice files are kept whatever their extension. */
const NOTICE = /^(licen[cs]e|notice|copying)/i;

/**
 * Whether a file of the built code or of a package is loaded at run time. Source maps, type
 * declarations and markdown (readmes, changelogs) are not: left out, the folder has about half as many
 * files, and setup copies that much less.
 */
function loadedAtRunTime(file: string): boolean {
  const name = path.basename(file);
  if (NOTICE.test(name)) return true;
  return !(name.endsWith('.map') || /\.d\.[cm]?ts$/.test(name) || /\.(md|markdown)$/i.test(name));
}

/** Every file below `dir` (relative paths), leaving out `node_modules` folders and symlinked folders. */
function listFiles(dir: string, skipNodeModules: boolean, prefix = ''): string[] {
  const files: string[] = [];
  for (const entry of fs.readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const relative = path.join(prefix, entry.name);
    if (entry.isDirectory()) {
      if (!(skipNodeModules && entry.name === 'node_modules')) files.push(...listFiles(dir, skipNodeModules, relative));
    } else if (entry.isFile() || (entry.isSymbolicLink() && fs.statSync(path.join(dir, relative)).isFile())) {
      files.push(relative);
    }
  }
  return files;
}

/** The plugin folder's package.json: the package's entry points and name, marked private. */
function pluginManifest(root: string): Buffer {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
  const kept: Record<string, unknown> = {};
  for (const field of MANIFEST_FIELDS) if (manifest[field] !== undefined) kept[field] = manifest[field];
  kept.private = true;
  return Buffer.from(`${JSON.stringify(kept, null, 2)}\n`);
}

/** Everything the plugin folder should hold, built from the package at `root`. */
export function planPluginFolder(root: string): PlannedFile[] {
  if (!fs.existsSync(path.join(root, 'dist', 'opencode', 'plugin.js'))) {
    throw new Error(`${path.join(root, 'dist')} has no built plugin; run "npm run build" in ${root} first`);
  }
  const planned: PlannedFile[] = [{ target: 'package.json', content: pluginManifest(root) }];
  for (const folder of SHIPPED_FOLDERS) {
    const dir = path.join(root, folder);
    if (!fs.existsSync(dir)) continue;
    // Skills and agent definitions are markdown read by OpenCode: only the built code is sifted.
    const files = folder === 'dist' ? listFiles(dir, false).filter(loadedAtRunTime) : listFiles(dir, false);
    for (const file of files) planned.push({ target: path.join(folder, file), source: path.join(dir, file) });
  }
  for (const copy of runtimeClosure(root, PARTIAL_PACKAGES)) {
    const unloaded = UNLOADED_FILES[copy.name];
    const files = copy.files ?? listFiles(copy.sourceDir, true).filter((file) => loadedAtRunTime(file) && !unloaded?.(file));
    for (const file of files) planned.push({ target: path.join(copy.targetDir, file), source: path.join(copy.sourceDir, file) });
  }
  return planned;
}

function sameBytes(file: string, planned: PlannedFile): boolean {
  const expected = planned.content ?? fs.readFileSync(planned.source as string);
  const stat = fs.statSync(file);
  return stat.size === expected.length && fs.readFileSync(file).equals(expected);
}

/** Whether `folder` holds exactly the planned files, byte for byte. */
export function folderMatches(folder: string, planned: readonly PlannedFile[]): boolean {
  if (!fs.existsSync(folder)) return false;
  const present = listFiles(folder, false);
  if (present.length !== planned.length) return false;
  const wanted = new Set(planned.map((file) => file.target));
  if (!present.every((file) => wanted.has(file))) return false;
  return planned.every((file) => sameBytes(path.join(folder, file.target), file));
}

function writePlanned(folder: string, planned: readonly PlannedFile[]): void {
  // Each folder is made once, not once per file in it.
  const made = new Set<string>();
  for (const file of planned) {
    const target = path.join(folder, file.target);
    const parent = path.dirname(target);
    if (!made.has(parent)) fs.mkdirSync(parent, { recursive: true });
    made.add(parent);
    if (file.content) fs.writeFileSync(target, file.content);
    else fs.copyFileSync(file.source as string, target);
  }
}

/** Whether two paths name the same folder once links are resolved (false when either is missing). */
function sameFolder(a: string, b: string): boolean {
  try {
    return fs.realpathSync(a) === fs.realpathSync(b);
  } catch {
    return false;
  }
}

/** Installs or replaces the plugin folder from the package at `root`; the folder itself as `root` is left as it is. */
export function installPluginFolder(context: ProvisionContext, root: string): StepResult {
  const folder = path.join(context.configDir, PLUGIN_FOLDER);
  // The copy running this setup is the folder itself: its package.json lists no dependencies, so a
  // plan made from it would leave out the node_modules the plugin and this very run load from.
  if (sameFolder(root, folder)) {
    return { step: 'plugin-folder', status: 'unchanged', messages: [`plugin folder ${folder} is the copy this setup runs from; left as it is`] };
  }
  const planned = planPluginFolder(root);
  if (folderMatches(folder, planned)) {
    return { step: 'plugin-folder', status: 'unchanged', messages: [`plugin folder ${folder} is up to date`] };
  }
  const existed = fs.existsSync(folder);
  replaceFolder(context, folder, (temporary) => writePlanned(temporary, planned));
  return { step: 'plugin-folder', status: 'changed', messages: [`${existed ? 'replaced' : 'created'} plugin folder ${folder} (${planned.length} files)`] };
}

#!/usr/bin/env node
/**
 * Second step of `npm run build`, after tsc: replaces the two entries users start, the plugin OpenCode
 * loads (dist/opencode/plugin.js) and the CLI (dist/cli/main.js), with bundles of our own code. Start is
 * mostly reading and parsing modules (docs/PERFORMANCE.md, "Start"): each entry and the shared chunks it
 * imports, whitespace and comments stripped, instead of tsc's file per module. The plugin starts 10-18%
 * faster under OpenCode's Bun (20% less CPU time) and a third faster under Node; `report --json` loads 38
 * files instead of 66. The sources are transpiled by Bun here, not by tsc (which still type-checks them
 * and builds the rest). The dynamic imports stay dynamic (their own chunks, loaded as late as before);
 * npm packages (simple-git, figlet, ...) stay external and are resolved from node_modules at run time,
 * as before, except in the plugin's bundle: zod (the tools' argument schemas use a handful of its mini
 * build's functions, about 18 KB carried instead of the package, src/opencode/tools/define.ts), and
 * lmdb with msgpackr, which only the store's worker thread loads: one chunk instead of about twenty
 * modules, their native add-ons still loaded from node_modules (scripts/bun-build.mjs says how). The
 * CLI keeps lmdb external. Every other file of dist/ (the modules tests and benches import, the
 * child scripts) is tsc's, unchanged. A module that starts a child or a worker finds its script from
 * either layout (src/core/fs/built-script.ts).
 *
 * The bundler is Bun's, from the `opencode` binary of the pinned `opencode-ai` dev dependency
 * (`BUN_BE_BUN=1` makes it behave as the `bun` it is built on), through its `Bun.build` API
 * (scripts/bun-build.mjs). When that binary cannot run here
 * (not installed, another platform), tsc's entries stay: the same code, only slower to start, and the
 * build says so on stderr. A bundler that runs and fails fails the build.
 *
 * `// @bun` on top of each file of the plugin's bundle tells Bun the file needs no transpiling of its
 * own (the pragma Bun's bundler writes for `--target=bun`); the code is built for Node
 * (`--target=node`), which ignores the comment, so one build serves both runtimes. The CLI runs under
 * Node (its first line is the `#!` npm's bin link needs), so its bundle has no pragma.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { asciiSource } from './ascii-source.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHUNK_PREFIX = 'chunk-';
const BUNDLE_TIMEOUT_MS = 120_000;

/**
 * What is bundled: each target's entries (the first is the one users start; the others are workers
 * started from it, written below `outDir` where tsc put them, sharing its chunks), the packages carried
 * in the bundle (tree-shaken) rather than loaded from node_modules at run time, and whether its files
 * carry Bun's pragma.
 */
const TARGETS = [
  {
    name: 'plugin',
    // The store's worker thread (src/opencode/remote/host.ts) goes to dist/opencode/remote/host.js.
    entries: [path.join('src', 'opencode', 'plugin.ts'), path.join('src', 'opencode', 'remote', 'host.ts')],
    outDir: path.join(ROOT, 'dist', 'opencode'),
    // lmdb and msgpackr load only in the worker: carried in its bundle (scripts/bun-build.mjs), their native add-ons stay in node_modules.
    bundledPackages: new Set(['zod', 'lmdb', 'msgpackr']),
    // Reached through a bundled package but kept external: it finds its add-on from its own folder (CommonJS `__dirname`).
    // ordered-binary (lmdb's keys) stays external as a dependency of ours: it makes its key reader by a direct `eval` of
    // code naming its module's variables, which a bundle renames (scripts/bun-build.mjs refuses such a file).
    externalAlso: ['msgpackr-extract'],
    bunPragma: true,
  },
  {
    name: 'CLI',
    // The backfill's import process (src/cli/commands/backfill-child.ts) goes to dist/cli/commands/backfill-child.js.
    // zod stays external: the MCP server's schemas must be the SDK's own zod's.
    entries: [path.join('src', 'cli', 'main.ts'), path.join('src', 'cli', 'commands', 'backfill-child.ts')],
    outDir: path.join(ROOT, 'dist', 'cli'),
    bundledPackages: new Set(),
    externalAlso: [],
    bunPragma: false,
  },
];

/** Every package we depend on but the bundled ones, each with its subpaths: loaded from node_modules at run time. */
function externalPackages(bundledPackages) {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  return Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })
    .filter((name) => !bundledPackages.has(name))
    .flatMap((name) => [name, `${name}/*`]);
}

/** The `opencode` binary of the opencode-ai dev dependency, or undefined when it is not installed. */
function bunBinary() {
  try {
    const manifestPath = createRequire(path.join(ROOT, 'package.json')).resolve('opencode-ai/package.json');
    const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
    const binary = path.resolve(path.dirname(manifestPath), typeof manifest.bin === 'string' ? manifest.bin : manifest.bin.opencode);
    return fs.existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}

/** Where each entry's bundle lands: its path below the first entry's folder, under `outDir`. */
function entryFiles(target) {
  const base = path.dirname(path.join(ROOT, target.entries[0]));
  return target.entries.map((entry) => path.relative(base, path.join(ROOT, entry)).replace(/\.ts$/, '.js'));
}

/** The files the bundler wrote for `target`, relative to its outDir: the entries and their chunks, each with its map. */
function bundleFiles(target) {
  const chunks = fs.readdirSync(target.outDir).filter((file) => file.startsWith(CHUNK_PREFIX) && (file.endsWith('.js') || file.endsWith('.js.map')));
  return [...entryFiles(target).flatMap((file) => [file, `${file}.map`]), ...chunks].filter((file) => fs.existsSync(path.join(target.outDir, file)));
}

/**
 * Bun's source maps carry the sources' text; tsc's maps (the rest of dist/) do not, and pointing at
 * src/ is enough where the sources are. Without it the bundle's maps are a sixth of their size.
 */
function dropSourcesContent(target) {
  for (const file of bundleFiles(target).filter((name) => name.endsWith('.js.map'))) {
    const mapPath = path.join(target.outDir, file);
    const map = JSON.parse(fs.readFileSync(mapPath, 'utf8'));
    delete map.sourcesContent;
    fs.writeFileSync(mapPath, JSON.stringify(map));
  }
}

/** The bundle's files, pure ASCII: Bun decodes a `// @bun` file that is not as Latin-1 (scripts/ascii-source.mjs). */
function escapeNonAscii(target) {
  for (const file of bundleFiles(target).filter((name) => name.endsWith('.js'))) {
    const filePath = path.join(target.outDir, file);
    const text = fs.readFileSync(filePath, 'utf8');
    const ascii = asciiSource(text);
    if (ascii !== text) fs.writeFileSync(filePath, ascii);
  }
}

/** Chunks of an earlier bundle: their names change with their content, so they are removed first. */
function removeOldChunks(target) {
  for (const file of fs.readdirSync(target.outDir)) {
    if (file.startsWith(CHUNK_PREFIX) && (file.endsWith('.js') || file.endsWith('.js.map'))) fs.rmSync(path.join(target.outDir, file));
  }
}

/**
 * Bundles one target over tsc's files: undefined when done, `{ unrunnable }` when the binary cannot run
 * on this machine (another platform, no exec permission), else `{ failed }` with the bundler's message.
 */
function bundle(binary, target) {
  removeOldChunks(target);
  const options = {
    entries: target.entries.map((entry) => path.join(ROOT, entry)),
    root: path.dirname(path.join(ROOT, target.entries[0])),
    outDir: target.outDir,
    external: [...externalPackages(target.bundledPackages), ...target.externalAlso],
    chunkPrefix: CHUNK_PREFIX,
    installedUrlPackages: [...target.bundledPackages],
    ...(target.bunPragma ? { banner: '// @bun' } : {}),
  };
  const script = path.join(ROOT, 'scripts', 'bun-build.mjs');
  const result = spawnSync(binary, [script, JSON.stringify(options)], { cwd: ROOT, env: { ...process.env, BUN_BE_BUN: '1' }, encoding: 'utf8', timeout: BUNDLE_TIMEOUT_MS });
  if (result.error && ['ENOENT', 'ENOEXEC', 'EACCES'].includes(result.error.code)) return { unrunnable: result.error.code };
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
    return { failed: `bundling the ${target.name} failed (${result.error?.message ?? `exit ${result.status}`})${output ? `:\n${output}` : ''}` };
  }
  dropSourcesContent(target);
  if (target.bunPragma) escapeNonAscii(target);
  return undefined;
}

function main() {
  const missing = TARGETS.map((target) => path.join(target.outDir, entryFiles(target)[0])).find((entry) => !fs.existsSync(entry));
  if (missing) {
    console.error(`bundle-dist: ${missing} is missing; run tsc -p tsconfig.build.json first.`);
    return 1;
  }
  const binary = bunBinary();
  const keepTsc = (why) => {
    console.error(`bundle-dist: ${why}; dist/opencode/plugin.js and dist/cli/main.js stay as tsc wrote them (they work, they only start slower).`);
    return 0;
  };
  if (!binary) return keepTsc('the opencode binary of the opencode-ai dev dependency is not installed');
  for (const target of TARGETS) {
    const problem = bundle(binary, target);
    // The first target finds out; a binary that cannot run has touched nothing.
    if (problem?.unrunnable) return keepTsc(`the opencode binary cannot run here (${problem.unrunnable})`);
    if (problem) {
      console.error(`bundle-dist: ${problem.failed}`);
      return 1;
    }
  }
  return 0;
}

process.exitCode = main();

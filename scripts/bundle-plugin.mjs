#!/usr/bin/env node
/**
 * Second step of `npm run build`, after tsc: replaces the plugin entry OpenCode loads,
 * dist/opencode/plugin.js, with a bundle of our own code. Plugin start is mostly reading and parsing
 * modules (docs/PERFORMANCE.md, "Start"): one entry and the shared chunks it imports (about 15 files
 * instead of the ~85 tsc writes), whitespace and comments stripped, start 10–18% faster under OpenCode's
 * Bun (20% less CPU time) and a third faster under Node. The sources are transpiled by Bun here, not by
 * tsc (which still type-checks them and builds the rest). The dynamic imports stay dynamic (their own chunks, loaded as late as
 * before); npm packages (lmdb, msgpackr, simple-git, figlet, ...) stay external and are resolved
 * from node_modules at run time, as before, except zod: the tools' argument schemas use a handful of
 * its mini build's functions, which the bundle carries (about 18 KB) instead of loading the package
 * (src/opencode/tools/define.ts). Every other file of dist/ (the CLI, setup, the modules
 * tests and benches import) is tsc's, unchanged.
 *
 * The bundler is Bun's, from the `opencode` binary of the pinned `opencode-ai` dev dependency
 * (`BUN_BE_BUN=1` makes it behave as the `bun` it is built on). When that binary cannot run here
 * (not installed, another platform), tsc's plugin.js stays: it is the same code, only slower to
 * start, and the build says so on stderr. A bundler that runs and fails fails the build.
 *
 * `// @bun` on top of each file tells Bun the file needs no transpiling of its own (the pragma Bun's
 * bundler writes for `--target=bun`); the code is built for Node (`--target=node`), which ignores the
 * comment, so one build serves both runtimes.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { asciiSource } from './ascii-source.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY_SOURCE = path.join(ROOT, 'src', 'opencode', 'plugin.ts');
/** The store's worker thread (src/opencode/remote/host.ts): bundled too, to dist/opencode/remote/host.js, sharing chunks with the plugin. */
const HOST_SOURCE = path.join(ROOT, 'src', 'opencode', 'remote', 'host.ts');
const HOST_FILE = path.join('remote', 'host.js');
const OUT_DIR = path.join(ROOT, 'dist', 'opencode');
const CHUNK_PREFIX = 'chunk-';
const BUNDLE_TIMEOUT_MS = 120_000;
/** The one package bundled (tree-shaken) rather than loaded from node_modules at run time. */
const BUNDLED_PACKAGES = new Set(['zod']);

/** `--external` flags for every package the plugin depends on but the bundled ones (each with its subpaths). */
function externalFlags() {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  return Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })
    .filter((name) => !BUNDLED_PACKAGES.has(name))
    .flatMap((name) => [`--external=${name}`, `--external=${name}/*`]);
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

/** The files the bundler wrote: the entry and its chunks in dist/opencode/, and the worker's entry below it. */
function bundleFiles() {
  return [...fs.readdirSync(OUT_DIR), HOST_FILE, `${HOST_FILE}.map`].filter((file) => fs.existsSync(path.join(OUT_DIR, file)));
}

/**
 * Bun's source maps carry the sources' text; tsc's maps (the rest of dist/) do not, and pointing at
 * src/ is enough where the sources are. Without it the bundle's maps are a sixth of their size.
 */
function dropSourcesContent() {
  for (const file of bundleFiles()) {
    if (!(file === 'plugin.js.map' || file === `${HOST_FILE}.map` || (file.startsWith(CHUNK_PREFIX) && file.endsWith('.js.map')))) continue;
    const mapPath = path.join(OUT_DIR, file);
    const map = JSON.parse(fs.readFileSync(mapPath, 'utf8'));
    delete map.sourcesContent;
    fs.writeFileSync(mapPath, JSON.stringify(map));
  }
}

/** The bundle's files, pure ASCII: Bun decodes a `// @bun` file that is not as Latin-1 (scripts/ascii-source.mjs). */
function escapeNonAscii() {
  for (const file of bundleFiles()) {
    if (!(file === 'plugin.js' || file === HOST_FILE || (file.startsWith(CHUNK_PREFIX) && file.endsWith('.js')))) continue;
    const filePath = path.join(OUT_DIR, file);
    const text = fs.readFileSync(filePath, 'utf8');
    const ascii = asciiSource(text);
    if (ascii !== text) fs.writeFileSync(filePath, ascii);
  }
}

/** Chunks of an earlier bundle: their names change with their content, so they are removed first. */
function removeOldChunks() {
  for (const file of fs.readdirSync(OUT_DIR)) {
    if (file.startsWith(CHUNK_PREFIX) && (file.endsWith('.js') || file.endsWith('.js.map'))) fs.rmSync(path.join(OUT_DIR, file));
  }
}

function main() {
  if (!fs.existsSync(path.join(OUT_DIR, 'plugin.js'))) {
    console.error(`bundle-plugin: ${path.join(OUT_DIR, 'plugin.js')} is missing; run tsc -p tsconfig.build.json first.`);
    return 1;
  }
  const binary = bunBinary();
  const keepTsc = (why) => {
    console.error(`bundle-plugin: ${why}; dist/opencode/plugin.js stays as tsc wrote it (it works, it only starts slower).`);
    return 0;
  };
  if (!binary) return keepTsc('the opencode binary of the opencode-ai dev dependency is not installed');
  removeOldChunks();
  const args = [
    'build',
    ENTRY_SOURCE,
    HOST_SOURCE,
    `--outdir=${OUT_DIR}`,
    '--target=node',
    '--format=esm',
    '--splitting',
    ...externalFlags(),
    '--minify-whitespace',
    '--minify-syntax',
    '--sourcemap=linked',
    `--chunk-naming=${CHUNK_PREFIX}[name]-[hash].[ext]`,
    '--banner=// @bun',
  ];
  const result = spawnSync(binary, args, { cwd: ROOT, env: { ...process.env, BUN_BE_BUN: '1' }, encoding: 'utf8', timeout: BUNDLE_TIMEOUT_MS });
  // The binary exists but cannot run on this machine (another platform, no exec permission).
  if (result.error && ['ENOENT', 'ENOEXEC', 'EACCES'].includes(result.error.code)) return keepTsc(`the opencode binary cannot run here (${result.error.code})`);
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
    console.error(`bundle-plugin: bundling the plugin failed (${result.error?.message ?? `exit ${result.status}`})${output ? `:\n${output}` : ''}`);
    return 1;
  }
  dropSourcesContent();
  escapeNonAscii();
  return 0;
}

process.exitCode = main();

#!/usr/bin/env node
/**
 * Building dist/ in a source checkout, once per `npm install`: npm runs postinstall (which builds
 * when dist is missing or older than src, so setup gets the bundled plugin) and then prepare, which
 * runs this with `--if-stale` and so skips the second build. `npm run build` runs it without, and so always builds.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BUILD_TIMEOUT_MS = 300_000;

/** The files of a checkout at `root` the build reads and writes. */
function layout(root) {
  return {
    sources: path.join(root, 'src'),
    buildConfig: path.join(root, 'tsconfig.build.json'),
    dist: path.join(root, 'dist'),
    setupEntry: path.join(root, 'dist', 'provisioning', 'index.js'),
    bundleDist: path.join(root, 'scripts', 'bundle-dist.mjs'),
  };
}

/** The newest modification time of any file below `dir`. */
function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** Only a source checkout has src/ and the build config (the published package ships neither). */
export function isSourceCheckout(root) {
  const files = layout(root);
  return fs.existsSync(files.sources) && fs.existsSync(files.buildConfig);
}

/** Whether dist/ was built after the last change to src/. */
export function distIsCurrent(root) {
  const files = layout(root);
  return fs.existsSync(files.setupEntry) && fs.statSync(files.setupEntry).mtimeMs >= newestMtime(files.sources);
}

/**
 * The tsc that `root` resolves as Node does, from its node_modules or a parent's (Stryker's sandbox
 * copy sits inside the checkout and builds before it links node_modules); undefined when none.
 */
function typescriptCompiler(root) {
  try {
    return createRequire(path.join(root, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    return undefined;
  }
}

/** Builds dist from empty (the checkout's tsc, then the plugin's and the CLI's bundles); an error message, or undefined when built. */
export function buildDist(root) {
  const files = layout(root);
  const tsc = typescriptCompiler(root);
  if (!tsc) return `cannot build: typescript is not installed where ${root} can load it (run "npm install" with dev dependencies)`;
  // From empty: a file left from a module since moved or renamed would hide an import of the old path.
  fs.rmSync(files.dist, { recursive: true, force: true });
  let result = spawnSync(process.execPath, [tsc, '-p', files.buildConfig], { cwd: root, encoding: 'utf8', timeout: BUILD_TIMEOUT_MS });
  if (result.status === 0) result = spawnSync(process.execPath, [files.bundleDist], { cwd: root, encoding: 'utf8', timeout: BUILD_TIMEOUT_MS });
  if (result.status === 0) return undefined;
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(0, 5).join('\n');
  return `the build failed (${result.error?.message ?? `exit ${result.status}`})${output ? `:\n${output}` : ''}`;
}

// `node scripts/build-dist.mjs --if-stale` (npm's prepare): build unless postinstall just did.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  if (process.argv.includes('--if-stale') && distIsCurrent(root)) {
    console.log('agent-tracker: dist/ is already built from the current sources.');
  } else {
    const problem = buildDist(root);
    if (problem) {
      console.error(`agent-tracker: ${problem}`);
      process.exitCode = 1;
    }
  }
}

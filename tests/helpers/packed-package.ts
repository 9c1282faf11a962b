/**
 * This checkout packed as npm publishes it (`npm pack`), and the loopback registry's tarballs of its
 * runtime dependencies: made once per test run and shared by the files that install the package
 * (tests/e2e/install.test.ts, tests/e2e/opencode-install.test.ts), which otherwise pay for both each.
 * The run's shared folder comes from the e2e globalSetup (scripts/test-prerequisites.mjs) in
 * AGENT_TRACKER_TEST_SHARED_DIR; the first file to ask makes the files, holding a lock folder, and a
 * file asking meanwhile waits for them. Without that variable the files go to the `fallbackDir` given.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runtimeClosure } from '../../src/provisioning/dependency-closure.js';
import { packRegistry } from './local-registry.js';
import type { RegistryIndex } from './local-registry.js';
import { ROOT, runBounded } from './sandbox.js';

export const SHARED_DIR_ENV = 'AGENT_TRACKER_TEST_SHARED_DIR';

const NPM_TIMEOUT_MS = 300_000;
/** How long a second file waits for the first to finish packing; packing takes seconds, not minutes. */
const WAIT_MS = 600_000;
const POLL_MS = 250;

export interface PackedPackage {
  /** The `npm pack` tarball of this checkout. */
  tarball: string;
  /** The runtime dependencies' tarballs, for `serveRegistry`. */
  registry: RegistryIndex;
}

async function pack(dir: string): Promise<PackedPackage> {
  const home = path.join(dir, 'home');
  fs.mkdirSync(home, { recursive: true });
  const packDir = path.join(dir, 'pack');
  fs.mkdirSync(packDir, { recursive: true });
  const env = { PATH: process.env.PATH, HOME: home, npm_config_cache: path.join(dir, 'npm-cache'), npm_config_update_notifier: 'false' };
  // --ignore-scripts: the build is already done; packing must not rebuild a checkout others share.
  const packed = await runBounded('npm', ['pack', '--ignore-scripts', '--pack-destination', packDir], { cwd: ROOT, env, timeoutMs: NPM_TIMEOUT_MS });
  if (packed.code !== 0) throw new Error(`npm pack exited ${packed.code}: ${packed.stderr.slice(-2000)}`);
  const tarball = path.join(packDir, packed.stdout.trim().split('\n').pop() as string);
  return { tarball, registry: packRegistry(runtimeClosure(ROOT), path.join(dir, 'registry')) };
}

/** Waits until the file that holds the lock has written `done` (or `failed`), bounded by WAIT_MS. */
async function waitFor(done: string, failed: string): Promise<PackedPackage> {
  for (const started = Date.now(); Date.now() - started < WAIT_MS; ) {
    if (fs.existsSync(done)) return JSON.parse(fs.readFileSync(done, 'utf8')) as PackedPackage;
    if (fs.existsSync(failed)) throw new Error(`packing the package failed in another test file: ${fs.readFileSync(failed, 'utf8')}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`the packed package was not ready after ${WAIT_MS / 1000} s (${done})`);
}

/** The packed package of this run: made by the first caller, shared with the rest. Needs `npm run build`. */
export async function packedPackage(fallbackDir: string): Promise<PackedPackage> {
  const shared = process.env[SHARED_DIR_ENV];
  if (!shared) return pack(fallbackDir);
  const done = path.join(shared, 'packed-package.json');
  const failed = path.join(shared, 'packed-package.failed');
  // The pack folder is the lock: creating it is atomic, so one file packs. The tarball sits at the
  // same depth below the temporary folder as a file's own sandbox would put it (doctor looks for the
  // package a few folders deep in OpenCode's cache, whose folder names follow the tarball's path).
  try {
    fs.mkdirSync(path.join(shared, 'pack'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return waitFor(done, failed);
  }
  try {
    const packed = await pack(shared);
    fs.writeFileSync(`${done}.tmp`, JSON.stringify(packed));
    fs.renameSync(`${done}.tmp`, done);
    return packed;
  } catch (error) {
    fs.writeFileSync(failed, error instanceof Error ? error.message : String(error));
    throw error;
  }
}

/** A Node that has node:sqlite, for the tests of the native history reader on a machine whose Node has none. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './sandbox.js';

/** The fetch of a Node binary from the npm registry, the first time (50 MB); later runs reuse node_modules/.cache. */
const FETCH_TIMEOUT_MS = 300_000;

/**
 * This Node when it has node:sqlite; else the pinned Node of scripts/newer-node.mjs (fetched into
 * node_modules/.cache the first time).
 * @throws naming why none could be had (no registry, say), so the test that needs it fails with that line.
 */
export function nodeWithSqlite(): string {
  const result = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'newer-node.mjs')], { encoding: 'utf8', timeout: FETCH_TIMEOUT_MS });
  if (result.status !== 0) throw new Error(`no Node with node:sqlite for this test: ${(result.stderr || result.error?.message || '').trim()}`);
  return result.stdout.trim();
}

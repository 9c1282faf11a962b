/** A Node that has node:sqlite, for the tests of the native history reader on a machine whose Node has none. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './sandbox.js';

/** The script only looks in node_modules/.cache (npm test's pretest fetched it): no network here. */
const LOOKUP_TIMEOUT_MS = 30_000;

/**
 * This Node when it has node:sqlite; else the pinned Node of scripts/newer-node.mjs, which `npm test`'s
 * pretest fetched into node_modules/.cache.
 * @throws naming why none could be had (not fetched yet, say), so the test that needs it fails with that line.
 */
export function nodeWithSqlite(): string {
  const result = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'newer-node.mjs'), '--cached'], { encoding: 'utf8', timeout: LOOKUP_TIMEOUT_MS });
  if (result.status !== 0) throw new Error(`no Node with node:sqlite for this test: ${(result.stderr || result.error?.message || '').trim()}`);
  return result.stdout.trim();
}

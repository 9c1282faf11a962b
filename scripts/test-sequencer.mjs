/**
 * The order jest starts test files in: longest first, so that the two workers of a 2-core machine
 * finish together instead of one running a long e2e file alone at the end. Jest's own sequencer
 * already sorts by the durations it cached on this machine; a clean clone (CI) has no cache, so a
 * file with no cached time takes the one recorded in tests/durations.json (seconds, written by
 * `node scripts/record-test-durations.mjs <jest --json output>`). Files in neither run first, as
 * jest runs any file it knows nothing about.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Sequencer from '@jest/test-sequencer';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DURATIONS_FILE = path.join(ROOT, 'tests', 'durations.json');

function recordedDurations() {
  try {
    return JSON.parse(fs.readFileSync(DURATIONS_FILE, 'utf8'));
  } catch {
    return {};
  }
}

export default class LongestFirst extends Sequencer {
  recorded = recordedDurations();

  /** Milliseconds, as jest's cache holds them. */
  time(test) {
    const cached = super.time(test);
    if (cached !== undefined) return cached;
    const seconds = this.recorded[path.relative(ROOT, test.path).split(path.sep).join('/')];
    return typeof seconds === 'number' ? seconds * 1000 : undefined;
  }
}

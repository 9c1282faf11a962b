/**
 * The order jest starts test files in: longest first, so that the two workers of a 2-core machine
 * finish together instead of one running a long e2e file alone at the end. The durations come from
 * tests/durations.json (seconds, recorded on an idle machine by `node scripts/record-test-durations.mjs
 * <jest --json output>`), the same on every machine and in a clean clone (CI), where jest has no cache.
 * Times of one run are all on one scale, which a cache filled under changing load is not; a file the
 * table does not name yet takes jest's cached time, and a file in neither runs first, as jest runs any
 * file it knows nothing about.
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
    const seconds = this.recorded[path.relative(ROOT, test.path).split(path.sep).join('/')];
    return typeof seconds === 'number' ? seconds * 1000 : super.time(test);
  }
}

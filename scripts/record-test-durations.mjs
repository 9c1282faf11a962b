#!/usr/bin/env node
/**
 * Writes tests/durations.json from a jest run's JSON report, so that a clean clone starts the long
 * test files first (scripts/test-sequencer.mjs). Record from an idle machine:
 *   node --experimental-vm-modules node_modules/jest/bin/jest.js --json --outputFile=/tmp/jest.json
 *   node scripts/record-test-durations.mjs /tmp/jest.json
 * Files of the old table the report does not cover keep their time; files gone are dropped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DURATIONS_FILE = path.join(ROOT, 'tests', 'durations.json');

const report = process.argv[2];
if (!report) {
  console.error('usage: node scripts/record-test-durations.mjs <jest --json output file>');
  process.exit(1);
}
let results;
try {
  results = JSON.parse(fs.readFileSync(report, 'utf8')).testResults;
} catch (error) {
  console.error(`record-test-durations: cannot read ${report}: ${error.message}`);
  process.exit(1);
}
if (!Array.isArray(results)) {
  console.error(`record-test-durations: ${report} is not a jest --json report`);
  process.exit(1);
}
const old = fs.existsSync(DURATIONS_FILE) ? JSON.parse(fs.readFileSync(DURATIONS_FILE, 'utf8')) : {};
const table = Object.fromEntries(Object.entries(old).filter(([file]) => fs.existsSync(path.join(ROOT, file))));
for (const result of results) {
  const file = path.relative(ROOT, result.name).split(path.sep).join('/');
  table[file] = Math.round((result.endTime - result.startTime) / 100) / 10;
}
// Longest first, so the table reads as the order the suite runs in.
const sorted = Object.fromEntries(Object.entries(table).sort(([, a], [, b]) => b - a));
fs.writeFileSync(DURATIONS_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`record-test-durations: ${results.length} files written to ${path.relative(ROOT, DURATIONS_FILE)}`);

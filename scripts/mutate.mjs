#!/usr/bin/env node
/**
 * `npm run mutate [-- GROUP... [--stryker-option value...]]`: runs StrykerJS once per group of
 * stryker.config.mjs and prints the mutation score of each (killed + timed out, over every mutant
 * that is not ignored). Arguments from the first one starting with `-` go to Stryker as they are
 * (`--concurrency 1` on a shared machine, `--mutate src/core/store/store.ts` for one file of a group).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { GROUPS } from '../stryker.groups.mjs';

const args = process.argv.slice(2);
const firstOption = args.findIndex((arg) => arg.startsWith('-'));
const wanted = firstOption === -1 ? args : args.slice(0, firstOption);
const strykerOptions = firstOption === -1 ? [] : args.slice(firstOption);
const unknown = wanted.filter((name) => !(name in GROUPS));
if (unknown.length > 0) {
  console.error(`mutate: unknown group ${unknown.join(', ')}; groups: ${Object.keys(GROUPS).join(', ')}`);
  process.exit(1);
}

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

function score(report) {
  let detected = 0;
  let undetected = 0;
  for (const file of Object.values(report.files)) {
    for (const mutant of file.mutants) {
      if (DETECTED.has(mutant.status)) detected += 1;
      else if (UNDETECTED.has(mutant.status)) undetected += 1;
    }
  }
  return { detected, undetected, score: detected + undetected === 0 ? null : (100 * detected) / (detected + undetected) };
}

const rows = [];
let failed = false;
for (const name of wanted.length > 0 ? wanted : Object.keys(GROUPS)) {
  const run = spawnSync('npx', ['stryker', 'run', ...strykerOptions], { stdio: 'inherit', env: { ...process.env, MUTATE_GROUP: name } });
  const file = `reports/mutation/${name}.json`;
  if (run.status !== 0 || !fs.existsSync(file)) {
    rows.push(`${name.padEnd(14)} failed (exit ${run.status})`);
    failed = true;
    continue;
  }
  const result = score(JSON.parse(fs.readFileSync(file, 'utf8')));
  rows.push(`${name.padEnd(14)} ${result.score === null ? 'n/a' : `${result.score.toFixed(1)}%`}  (${result.detected} killed, ${result.undetected} survived)`);
}
console.log(['', 'mutation scores:', ...rows.map((row) => `  ${row}`)].join('\n'));
process.exit(failed ? 1 : 0);

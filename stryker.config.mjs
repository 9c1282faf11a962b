/**
 * Mutation testing of the core logic behind the answer. `npm run mutate` runs every group below
 * (scripts/mutate.mjs prints one score per group); `npm run mutate -- rules` runs one group.
 * Not part of CI: a full run takes long on two cores.
 *
 * Each group runs only the unit and integration tests that aim at its files: a static mutant (a
 * module-level constant) must be tested by a whole run of the selected tests, and the whole unit
 * suite takes a minute, the selected files seconds.
 */
import fs from 'node:fs';
import { GROUPS } from './stryker.groups.mjs';

const group = GROUPS[process.env.MUTATE_GROUP ?? ''];
if (!group) throw new Error(`set MUTATE_GROUP to one of: ${Object.keys(GROUPS).join(', ')} (npm run mutate does)`);
const name = process.env.MUTATE_GROUP;
/**
 * MUTATE_TESTS (comma-separated prefixes) runs fewer test files than the group's, for a quick look
 * at one file's survivors on a busy machine: its score is a lower bound of the group's.
 */
const tests = process.env.MUTATE_TESTS ? process.env.MUTATE_TESTS.split(',') : group.tests;

/** Whether any of the group's test prefixes names an integration test file. */
function usesIntegrationTests(prefixes) {
  return fs.readdirSync('tests/integration').some((file) => file.endsWith('.test.ts') && prefixes.some((test) => file.startsWith(test)));
}

export default {
  testRunner: 'jest',
  testRunnerNodeArgs: ['--experimental-vm-modules'],
  jest: {
    projectType: 'custom',
    configFile: 'stryker.jest.config.mjs',
    // A group's tests may be unit or integration tests (those start the built CLI or workers), less its `skip` patterns.
    config: { testMatch: tests.map((test) => `<rootDir>/tests/{unit,integration}/${test}*.test.ts`), testPathIgnorePatterns: ['/node_modules/', ...(group.skip ?? [])] },
    // Each mutant's run loads only the test files that import its file (then runs the tests that
    // cover it): loading every test file of a group for every mutant was most of a run's time.
    enableFindRelatedTests: true,
  },
  coverageAnalysis: 'perTest',
  // A group's integration tests run the built CLI (dist/) in a child process, as some unit tests run a
  // built child (the group says so); any other group needs no build.
  buildCommand: group.build || usesIntegrationTests(tests) ? 'node scripts/mutate-build.mjs' : undefined,
  mutate: group.mutate,
  ignorePatterns: ['dist', 'coverage', '.tmp', 'reports', 'bench/results'],
  // A static mutant (a module-level constant) is tested by a whole run of the group's tests per
  // mutant, which on two cores is most of a group's hours; they are left out of the score (Stryker
  // marks them ignored) and the constants are pinned by the tests that read them.
  ignoreStatic: true,
  concurrency: 2,
  timeoutMS: 20000,
  reporters: ['clear-text', 'progress-append-only', 'json'],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  tempDirName: '.tmp/stryker',
  cleanTempDir: true,
};

/**
 * Three projects: unit tests run in-process; integration tests start processes of their own (the
 * built CLI, worker scripts, the plugin in a child, the opencode binary as a script runner); e2e
 * tests drive the real opencode binary and are the slowest.
 */
import os from 'node:os';

/**
 * Jest's 5 s default fails tests that run git or the CLI a few dozen times when two workers share a
 * loaded 2-core machine; a hang is still caught, and each child process has its own timeout as well.
 * Set for each project (a run of one project, as Stryker's) and for the whole run.
 */
const TEST_TIMEOUT_MS = 30_000;

/**
 * Jest's default is one worker per core less one: on two cores, one worker, and the whole suite in
 * band. Much of a test's time is spent waiting on the processes it starts, so two workers on two
 * cores keep both busy. On a machine already busy with other work (load above its cores) a second
 * worker gains little and doubles the wait of each opencode run (two e2e files side by side ran
 * into their 150 s bound at a load of 30), so the run goes in band. `--maxWorkers` overrides both.
 */
function workers() {
  const cores = os.availableParallelism();
  if (os.loadavg()[0] > cores) return 1;
  return Math.max(2, cores - 1);
}

export const shared = {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  testTimeout: TEST_TIMEOUT_MS,
};

export const unit = { ...shared, displayName: 'unit', testMatch: ['<rootDir>/tests/unit/**/*.test.ts'] };

export const integration = { ...shared, displayName: 'integration', testMatch: ['<rootDir>/tests/integration/**/*.test.ts'] };

export default {
  testTimeout: TEST_TIMEOUT_MS,
  maxWorkers: workers(),
  // Longest files first (recorded in tests/durations.json), so the workers end together.
  testSequencer: '<rootDir>/scripts/test-sequencer.mjs',
  projects: [
    unit,
    integration,
    // Before any e2e test: rg and chromium on PATH, installed from Debian's packages when missing, and
    // the folder the e2e files of the run share (the packed package); removed after the run.
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['<rootDir>/tests/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/scripts/test-prerequisites.mjs',
      globalTeardown: '<rootDir>/scripts/test-teardown.mjs',
    },
  ],
};

/** Unit tests run in-process; e2e tests drive the real opencode binary and are slower. */
export const shared = {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
};

export const unit = { ...shared, displayName: 'unit', testMatch: ['<rootDir>/tests/unit/**/*.test.ts'] };

export default {
  projects: [
    unit,
    // Before any e2e test: rg and chromium on PATH, installed from Debian's packages when missing.
    { ...shared, displayName: 'e2e', testMatch: ['<rootDir>/tests/e2e/**/*.test.ts'], globalSetup: '<rootDir>/scripts/test-prerequisites.mjs' },
  ],
};

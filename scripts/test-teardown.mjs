/**
 * Jest's globalTeardown for the e2e tests: removes the folder the test files of the run shared
 * (made by the globalSetup in scripts/test-prerequisites.mjs).
 */
import fs from 'node:fs';
import { SHARED_DIR_ENV } from './test-prerequisites.mjs';

export default function globalTeardown() {
  const shared = process.env[SHARED_DIR_ENV];
  if (shared) fs.rmSync(shared, { recursive: true, force: true });
  delete process.env[SHARED_DIR_ENV];
}

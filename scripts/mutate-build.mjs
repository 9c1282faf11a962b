#!/usr/bin/env node
/**
 * The build Stryker runs in its sandbox before a group's integration tests (they start the built
 * CLI). Stryker links node_modules into the sandbox only after the build, so `npm run build` (which
 * wants the sandbox's own node_modules/typescript) cannot run there; tsc is found the way Node finds
 * a package instead, from the checkout the sandbox sits in.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(`${process.cwd()}/`);
for (const args of [[require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], ['scripts/bundle-plugin.mjs']]) {
  const run = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}

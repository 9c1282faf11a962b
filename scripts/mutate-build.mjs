#!/usr/bin/env node
/**
 * The build Stryker runs in its sandbox before a group's integration tests (they start the built
 * CLI): tsc only, found the way Node finds a package (Stryker links node_modules into the sandbox
 * after the build). The plugin bundle of `npm run build` is left out: Bun's bundler refuses the
 * instrumented code (a mutated `import('')`), and tsc's plugin.js is the same code.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(`${process.cwd()}/`);
const run = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
process.exit(run.status ?? 1);

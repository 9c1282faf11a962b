#!/usr/bin/env node
/**
 * The build Stryker runs in its sandbox before a group's integration tests (they start the built
 * CLI). Stryker links node_modules into the sandbox only after the build, so `npm run build` (which
 * wants the sandbox's own node_modules/typescript) cannot run there; tsc is found the way Node finds
 * a package instead, from the checkout the sandbox sits in. tsc only: the plugin bundle is left out,
 * as Bun's bundler refuses the instrumented code (a mutated `import('')`), and tsc's plugin.js is the
 * same code.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(`${process.cwd()}/`);
const run = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
process.exit(run.status ?? 1);

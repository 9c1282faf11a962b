#!/usr/bin/env node
/**
 * npm postinstall: sets up OpenCode for agent-tracker (plugin folder, its entry in the global
 * opencode.json, skills, agents, AGENTS.md) through dist/provisioning. It never fails the install: every
 * problem is reported on stderr and the exit code is always 0. `AGENT_TRACKER_SKIP_SETUP=1` skips it.
 *
 * In this repository's own checkout npm runs postinstall BEFORE prepare, so when the sources are
 * here and dist is missing or older than them, it builds first as `npm run build` does (the local
 * tsc, then scripts/bundle-dist.mjs), so the plugin folder gets the bundled entry; prepare then
 * finds dist current and does not build it again (scripts/build-dist.mjs).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SETUP_ENTRY = path.join(ROOT, 'dist', 'provisioning', 'index.js');
const BUILD_DIST = path.join(ROOT, 'scripts', 'build-dist.mjs');

async function main() {
  if (process.env.AGENT_TRACKER_SKIP_SETUP === '1') {
    console.log('agent-tracker: AGENT_TRACKER_SKIP_SETUP=1, OpenCode was not set up. Run "agent-tracker setup" to do it later.');
    return;
  }
  // Only a checkout has the build script (the published package ships dist, not scripts/build-dist.mjs).
  const checkout = fs.existsSync(BUILD_DIST) ? await import(pathToFileURL(BUILD_DIST).href) : undefined;
  if (checkout && checkout.isSourceCheckout(ROOT) && !checkout.distIsCurrent(ROOT)) {
    const problem = checkout.buildDist(ROOT);
    if (problem) {
      console.error(`agent-tracker: ${problem}. OpenCode was not set up; run "npm run build" and then "agent-tracker setup".`);
      return;
    }
  }
  if (!fs.existsSync(SETUP_ENTRY)) {
    console.error(`agent-tracker: ${SETUP_ENTRY} is missing, so OpenCode was not set up. Run "npm run build" and then "agent-tracker setup".`);
    return;
  }
  const setup = await import(pathToFileURL(SETUP_ENTRY).href);
  const report = setup.provision({ root: ROOT });
  const { out, err } = setup.formatReport(report, setup.isInteractive());
  if (out) console.log(out);
  if (err) console.error(`${err}\nThe install itself succeeded; fix the above and run "agent-tracker setup".`);
}

try {
  await main();
} catch (error) {
  console.error(`agent-tracker: setting up OpenCode failed: ${error instanceof Error ? error.message : String(error)}. The install itself succeeded; run "agent-tracker setup" to retry.`);
}
process.exitCode = 0;

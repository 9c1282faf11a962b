#!/usr/bin/env node
/**
 * npm postinstall: sets up OpenCode for agent-tracker (plugin folder, its entry in the global
 * opencode.json, skills, agents, AGENTS.md) through dist/setup. It never fails the install: every
 * problem is reported on stderr and the exit code is always 0. `AGENT_TRACKER_SKIP_SETUP=1` skips it.
 *
 * In this repository's own checkout npm runs postinstall BEFORE prepare (the build), so when the
 * sources are here and dist is missing or older than them, it builds first as `npm run build` does
 * (the local tsc, then scripts/bundle-plugin.mjs), so the plugin folder gets the bundled entry.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SETUP_ENTRY = path.join(ROOT, 'dist', 'setup', 'index.js');
const SOURCES = path.join(ROOT, 'src');
const BUILD_CONFIG = path.join(ROOT, 'tsconfig.build.json');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const BUNDLE_PLUGIN = path.join(ROOT, 'scripts', 'bundle-plugin.mjs');
const BUILD_TIMEOUT_MS = 300_000;

/** The newest modification time of any file below `dir`. */
function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** Only a source checkout has src/ and the build config (the published package ships neither). */
function isSourceCheckout() {
  return fs.existsSync(SOURCES) && fs.existsSync(BUILD_CONFIG);
}

function distIsCurrent() {
  return fs.existsSync(SETUP_ENTRY) && fs.statSync(SETUP_ENTRY).mtimeMs >= newestMtime(SOURCES);
}

/** Builds dist with the checkout's own TypeScript; returns an error message, or undefined when built. */
function build() {
  if (!fs.existsSync(TSC)) return `cannot build: ${TSC} is missing (run "npm install" with dev dependencies)`;
  let result = spawnSync(process.execPath, [TSC, '-p', BUILD_CONFIG], { cwd: ROOT, encoding: 'utf8', timeout: BUILD_TIMEOUT_MS });
  if (result.status === 0) result = spawnSync(process.execPath, [BUNDLE_PLUGIN], { cwd: ROOT, encoding: 'utf8', timeout: BUILD_TIMEOUT_MS });
  if (result.status === 0) return undefined;
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(0, 5).join('\n');
  return `the build failed (${result.error?.message ?? `exit ${result.status}`})${output ? `:\n${output}` : ''}`;
}

async function main() {
  if (process.env.AGENT_TRACKER_SKIP_SETUP === '1') {
    console.log('agent-tracker: AGENT_TRACKER_SKIP_SETUP=1, OpenCode was not set up. Run "agent-tracker setup" to do it later.');
    return;
  }
  if (isSourceCheckout() && !distIsCurrent()) {
    const problem = build();
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
  const report = setup.runSetup({ root: ROOT });
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

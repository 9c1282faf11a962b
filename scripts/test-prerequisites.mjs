#!/usr/bin/env node
/**
 * The two programs the end-to-end tests need beyond npm packages, installed when missing:
 * - `rg` (ripgrep): OpenCode's grep tool runs it, and the .env guard is tested against that real tool.
 *   OpenCode would download it from GitHub by itself, which a machine that reaches only the npm registry
 *   and Debian's packages cannot; no npm package ships the binary inside it (@vscode/ripgrep and the like
 *   download it at install time).
 * - `chromium`: the HTML report is rendered in a real headless browser. Browser packages on npm
 *   (puppeteer, playwright) download their browser at install time too.
 * Both come from Debian's packages: as root with apt-get this installs them; otherwise it stops with one
 * message naming the command to run. Jest runs it before the e2e tests (the default export, globalSetup in
 * jest.config.js); `node scripts/test-prerequisites.mjs` runs it by hand.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the tests need: any of `commands` on PATH, else the Debian package that provides it. */
const PREREQUISITES = [
  { commands: ['rg'], debianPackage: 'ripgrep', usedBy: "OpenCode's grep tool (tests/e2e/state.test.ts)" },
  { commands: ['chromium', 'chromium-browser'], debianPackage: 'chromium', usedBy: 'the HTML report test (tests/e2e/html-report.test.ts)' },
];
/** apt-get waits this long for another apt/dpkg to finish instead of failing at once. */
const APT_LOCK_TIMEOUT_S = 600;
const APT_TIMEOUT_MS = 15 * 60_000;

/** Whether an executable of this name is on PATH (no shell involved). */
export function onPath(command, searchPath = process.env.PATH ?? '') {
  return searchPath.split(path.delimiter).some((dir) => {
    if (!dir) return false;
    try {
      fs.accessSync(path.join(dir, command), fs.constants.X_OK);
      return fs.statSync(path.join(dir, command)).isFile();
    } catch {
      return false;
    }
  });
}

/** The prerequisites none of whose commands is on PATH. */
export function missingPrerequisites(searchPath = process.env.PATH ?? '') {
  return PREREQUISITES.filter((item) => !item.commands.some((command) => onPath(command, searchPath)));
}

function aptGet(args) {
  return spawnSync('apt-get', ['-o', `DPkg::Lock::Timeout=${APT_LOCK_TIMEOUT_S}`, ...args], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    timeout: APT_TIMEOUT_MS,
  });
}

/** Installs the missing Debian packages when this process may (root, apt-get present); returns whether it tried. */
function installWithApt(packages) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !onPath('apt-get')) return false;
  console.log(`test prerequisites: installing ${packages.join(' ')} from Debian's packages (apt-get)…`);
  const update = aptGet(['update', '-qq']);
  if (update.status !== 0) console.error(`test prerequisites: apt-get update failed (${update.error?.message ?? `exit ${update.status}`})`);
  const install = aptGet(['install', '-y', '-qq', '--no-install-recommends', ...packages]);
  if (install.status !== 0) console.error(`test prerequisites: apt-get install failed (${install.error?.message ?? `exit ${install.status}`})`);
  return true;
}

/** Makes sure the prerequisites are on PATH; throws one message saying what to run when they cannot be. */
export async function ensureTestPrerequisites() {
  let missing = missingPrerequisites();
  if (missing.length === 0) return;
  const packages = missing.map((item) => item.debianPackage);
  if (installWithApt(packages)) missing = missingPrerequisites();
  if (missing.length === 0) return;
  const what = missing.map((item) => `${item.commands[0]} (Debian package ${item.debianPackage}, for ${item.usedBy})`).join('; ');
  throw new Error(
    `The end-to-end tests need programs that are not on PATH: ${what}. ` +
      `Install them with "sudo apt-get update && sudo apt-get install -y ${missing.map((item) => item.debianPackage).join(' ')}" ` +
      '(or your system\'s package manager), then run "npm test" again.',
  );
}

/** The variable naming the folder the test files of one run share (tests/helpers/packed-package.ts). */
export const SHARED_DIR_ENV = 'AGENT_TRACKER_TEST_SHARED_DIR';

/**
 * Jest's globalSetup for the e2e tests: the prerequisites, and an empty folder the test files of this
 * run share (workers inherit the variable); scripts/test-teardown.mjs removes it after the run.
 */
export default async function globalSetup() {
  await ensureTestPrerequisites();
  process.env[SHARED_DIR_ENV] = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-test-run-'));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await ensureTestPrerequisites();
    console.log('test prerequisites: rg and chromium are on PATH');
  } catch (error) {
    console.error(error.message);
    process.exitCode = 1;
  }
}

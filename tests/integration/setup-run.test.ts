/**
 * A whole setup run and the postinstall script around it, on temporary package copies and config
 * folders: steps are independent, the exit code is always 0, the skip switch works, and a source
 * checkout without dist is built before it is provisioned.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createContext } from '../../src/provisioning/context.js';
import { formatReport, isInteractive } from '../../src/provisioning/index.js';
import type { ProvisionReport } from '../../src/provisioning/index.js';
import { PLUGIN_FOLDER } from '../../src/provisioning/plugin-folder.js';
import { installSkills } from '../../src/provisioning/skills.js';
import { ROOT } from '../helpers/sandbox.js';

const BROKEN_CONFIG = '{ "plugin": [ "a", }  not json';
const SCRIPT_TIMEOUT_MS = 240_000;

let scratch: string;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-run-'));
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** A fresh HOME with its config folder; `files` are written into the config folder first. */
function home(name: string, files: Record<string, string> = {}): { home: string; configDir: string } {
  const dir = path.join(scratch, name);
  const configDir = path.join(dir, '.config', 'opencode');
  fs.mkdirSync(configDir, { recursive: true });
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(configDir, file), text);
  return { home: dir, configDir };
}

/**
 * A copy of the package as npm would lay it out: the published files, with this checkout's
 * node_modules linked in. With `source`, it is a source checkout without dist instead.
 */
function packageCopy(name: string, source = false): string {
  const root = path.join(scratch, name);
  fs.mkdirSync(path.join(root, 'scripts'), { recursive: true });
  const copied = source ? ['src', 'tsconfig.json', 'tsconfig.build.json', path.join('scripts', 'bundle-dist.mjs'), path.join('scripts', 'bun-build.mjs'), path.join('scripts', 'ascii-source.mjs'), path.join('scripts', 'build-dist.mjs'), 'skills', 'agents'] : ['dist', 'skills', 'agents'];
  for (const entry of ['package.json', path.join('scripts', 'postinstall.mjs'), ...copied]) fs.cpSync(path.join(ROOT, entry), path.join(root, entry), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'));
  return root;
}

function postinstall(root: string, homeDir: string, env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(process.execPath, [path.join(root, 'scripts', 'postinstall.mjs')], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: homeDir, XDG_CONFIG_HOME: path.join(homeDir, '.config'), ...env },
    encoding: 'utf8',
    timeout: SCRIPT_TIMEOUT_MS,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('a setup run', () => {
  const report: ProvisionReport = {
    configDir: '/home/me/.config/opencode',
    packageRoot: '/pkg',
    dryRun: false,
    steps: [
      { step: 'plugin-folder', status: 'changed', messages: ['created plugin folder X'] },
      { step: 'plugin-entry', status: 'failed', messages: ['opencode.json does not parse; it was left untouched.'] },
      { step: 'skills', status: 'unchanged', messages: ['skill "structured-review" is already there, left as it is'] },
    ],
    backups: [{ file: '/home/me/.config/opencode/AGENTS.md', backup: '/home/me/.config/opencode/AGENTS.md.agent-tracker-backup-1' }],
  };

  it('reports a summary line when nobody watches and every message when someone does; failures go to stderr', () => {
    // The summary names what was provisioned and the one command to try next (npm shows it after an install).
    const next = 'Try next: agent-tracker recommend   (not on your PATH? node /pkg/dist/cli/main.js recommend)';
    expect(formatReport(report, false)).toEqual({
      out: [
        'agent-tracker setup: /home/me/.config/opencode — 1 changed, 1 unchanged, 1 failed',
        '  provisioned   plugin-folder',
        '  backup        /home/me/.config/opencode/AGENTS.md.agent-tracker-backup-1',
        next,
      ].join('\n'),
      err: 'agent-tracker setup: plugin-entry failed: opencode.json does not parse; it was left untouched.',
    });
    const detailed = formatReport(report, true).out.split('\n');
    expect(detailed).toContain('  skills        unchanged  skill "structured-review" is already there, left as it is');
    expect(detailed).toContain('  backup        /home/me/.config/opencode/AGENTS.md -> /home/me/.config/opencode/AGENTS.md.agent-tracker-backup-1');
    expect(detailed.slice(-2)).toEqual(['Restart OpenCode to load the changes.', next]);
  });

  it('leaves an existing skill folder alone, byte for byte', () => {
    const { configDir } = home('own-skill');
    const mine = path.join(configDir, 'skills', 'structured-review');
    fs.mkdirSync(mine, { recursive: true });
    fs.writeFileSync(path.join(mine, 'SKILL.md'), 'my own review skill\n');
    const result = installSkills(createContext(configDir), ROOT);
    expect(result.messages).toContain('skill "structured-review" is already there, left as it is');
    expect(fs.readdirSync(mine)).toEqual(['SKILL.md']);
    expect(fs.readFileSync(path.join(mine, 'SKILL.md'), 'utf8')).toBe('my own review skill\n');
    expect(fs.existsSync(path.join(configDir, 'skills', 'agile-spec-to-build', 'SKILL.md'))).toBe(true);
  });

  it('treats CI, NONINTERACTIVE and a stdin that is not a terminal as nobody watching', () => {
    expect(isInteractive({}, true)).toBe(true);
    expect(isInteractive({ CI: 'true' }, true)).toBe(false);
    expect(isInteractive({ NONINTERACTIVE: '1' }, true)).toBe(false);
    expect(isInteractive({}, false)).toBe(false);
  });
});

describe('scripts/postinstall.mjs', () => {
  let installed: string;
  beforeAll(() => {
    installed = packageCopy('installed');
  });

  it('does nothing but say so when AGENT_TRACKER_SKIP_SETUP=1', () => {
    const { home: homeDir, configDir } = home('skip');
    const run = postinstall(installed, homeDir, { AGENT_TRACKER_SKIP_SETUP: '1' });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('AGENT_TRACKER_SKIP_SETUP=1');
    expect(fs.readdirSync(configDir)).toEqual([]);
  });

  it('exits 0 with the problem on stderr when the config does not parse, runs the other steps, and leaves that file byte-identical', () => {
    const { home: homeDir, configDir } = home('postinstall-broken', { 'opencode.json': BROKEN_CONFIG });
    const run = postinstall(installed, homeDir, { CI: 'true' });
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')[0]).toMatch(/^agent-tracker setup: .* 4 changed, 0 unchanged, 2 failed$/);
    expect(run.stdout).toMatch(/^ {2}provisioned {3}plugin-folder, skills, agents-md, commands$/m);
    expect(run.stdout).toMatch(/^Try next: agent-tracker recommend /m);
    expect(run.stderr).toMatch(/plugin-entry failed: .*opencode\.json does not parse .*left untouched/);
    expect(run.stderr).toMatch(/agents failed: .*left untouched/);
    expect(fs.readFileSync(path.join(configDir, 'opencode.json'), 'utf8')).toBe(BROKEN_CONFIG);
    expect(fs.readdirSync(configDir).sort()).toEqual(['AGENTS.md', 'commands', 'opencode.json', 'plugins', 'skills']);
    expect(fs.existsSync(path.join(configDir, PLUGIN_FOLDER, 'dist', 'opencode', 'plugin.js'))).toBe(true);
  });

  it('says once, with the fix, when the config folder is a file, and leaves it as it was (setup: one line, exit 1)', () => {
    const dir = path.join(scratch, 'config-is-a-file');
    const configDir = path.join(dir, '.config', 'opencode');
    fs.mkdirSync(path.dirname(configDir), { recursive: true });
    fs.writeFileSync(configDir, 'not a folder\n');
    const run = postinstall(installed, dir, { CI: 'true' });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/config-folder failed: the OpenCode config folder .*opencode is not a folder: move that file aside/);
    expect(run.stderr).not.toMatch(/ENOTDIR|EEXIST/);
    const env = { PATH: process.env.PATH, HOME: dir, XDG_CONFIG_HOME: path.join(dir, '.config') };
    const setup = spawnSync(process.execPath, [path.join(installed, 'dist', 'cli', 'main.js'), 'setup'], { cwd: dir, env, encoding: 'utf8', timeout: SCRIPT_TIMEOUT_MS });
    expect({ code: setup.status, lines: setup.stderr.trimEnd().split('\n') }).toEqual({ code: 1, lines: [expect.stringMatching(/^agent-tracker setup: the OpenCode config folder .* is not a folder: move that file aside, then run "agent-tracker setup"$/)] });
    expect(fs.readFileSync(configDir, 'utf8')).toBe('not a folder\n');
  });

  it('exits 0 and says what to run when there is no built code to install', () => {
    const broken = packageCopy('no-dist');
    fs.rmSync(path.join(broken, 'dist'), { recursive: true });
    const { home: homeDir, configDir } = home('no-dist-home');
    const run = postinstall(broken, homeDir);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/dist\/provisioning\/index\.js is missing.*npm run build.*agent-tracker setup/);
    expect(fs.readdirSync(configDir)).toEqual([]);
  });

  it('in a source checkout without dist, builds as npm run build does (tsc, then the plugin bundle) first, then sets up', () => {
    const checkout = packageCopy('checkout', true);
    const { home: homeDir, configDir } = home('checkout-home');
    const run = postinstall(checkout, homeDir, { CI: 'true' });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/6 changed, 0 unchanged, 0 failed/);
    expect(fs.existsSync(path.join(checkout, 'dist', 'provisioning', 'index.js'))).toBe(true);
    expect(fs.existsSync(path.join(configDir, PLUGIN_FOLDER, 'dist', 'provisioning', 'index.js'))).toBe(true);
    // The plugin folder got the bundled entry (scripts/bundle-dist.mjs), with its chunks beside it.
    const installedEntry = path.join(configDir, PLUGIN_FOLDER, 'dist', 'opencode');
    expect(fs.readFileSync(path.join(installedEntry, 'plugin.js'), 'utf8').startsWith('// @bun\n')).toBe(true);
    expect(fs.readdirSync(installedEntry).some((file) => file.startsWith('chunk-') && file.endsWith('.js'))).toBe(true);
    // npm runs prepare right after postinstall: it finds dist current and does not build it twice.
    const built = fs.statSync(path.join(checkout, 'dist', 'provisioning', 'index.js')).mtimeMs;
    const prepare = spawnSync(process.execPath, [path.join(checkout, 'scripts', 'build-dist.mjs'), '--if-stale'], { cwd: checkout, encoding: 'utf8', timeout: SCRIPT_TIMEOUT_MS });
    expect({ code: prepare.status, stdout: prepare.stdout.trim() }).toEqual({ code: 0, stdout: 'agent-tracker: dist/ is already built from the current sources.' });
    expect(fs.statSync(path.join(checkout, 'dist', 'provisioning', 'index.js')).mtimeMs).toBe(built);
  });

  it('is what npm runs as prepare, so an install builds dist once', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(manifest.scripts.prepare).toBe('node scripts/build-dist.mjs --if-stale');
  });
});

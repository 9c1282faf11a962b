/**
 * Installed the OpenCode way (`"plugin": ["opencode-agent-tracker@…"]`): doctor recognises it, never
 * advises "agent-tracker setup" (it would replace the user's entry), and names a half-installed cache
 * folder with the command that clears it. Temporary config and cache folders laid out as OpenCode does.
 */
import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { describeProvisioning, inspectProvisioning } from '../../src/provisioning/inspect.js';
import { ROOT } from '../helpers/sandbox.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('agent-tracker-managed-');
const SPEC = 'opencode-agent-tracker@0.1.0';

/** A config folder whose "plugin" entry is the package spec, and OpenCode's cache folder beside it. */
function managedHome(): { configDir: string; cacheDir: string; folder: string; packageDir: string } {
  const home = tempDir();
  const configDir = path.join(home, 'config', 'opencode');
  fs.mkdirSync(configDir, { recursive: true });
  fs.writeFileSync(path.join(configDir, 'opencode.json'), JSON.stringify({ plugin: [[SPEC, { flushMaxMutations: 100 }]] }));
  const cacheDir = path.join(home, 'cache', 'opencode');
  const folder = path.join(cacheDir, 'packages', SPEC);
  return { configDir, cacheDir, folder, packageDir: path.join(folder, 'node_modules', 'opencode-agent-tracker') };
}

function writePackage(dir: string, manifest: Record<string, unknown>): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest));
}

function fullInstall(folder: string, packageDir: string): void {
  writePackage(packageDir, { name: 'opencode-agent-tracker', version: '0.1.0', dependencies: { lmdb: '^3', zod: '4' } });
  fs.mkdirSync(path.join(packageDir, 'dist', 'opencode'), { recursive: true });
  fs.writeFileSync(path.join(packageDir, 'dist', 'opencode', 'plugin.js'), 'export default {};\n');
  writePackage(path.join(folder, 'node_modules', 'lmdb'), { name: 'lmdb' });
  writePackage(path.join(folder, 'node_modules', 'zod'), { name: 'zod' });
}

describe('an OpenCode-managed install', () => {
  it('is recognised, with the package OpenCode installed, and never sends the user to "agent-tracker setup"', () => {
    const { configDir, cacheDir, folder, packageDir } = managedHome();
    fullInstall(folder, packageDir);
    const state = inspectProvisioning(configDir, ROOT, cacheDir);
    expect(state.managed).toEqual({ spec: SPEC, install: { state: 'installed', folder, packageDir, version: '0.1.0' } });
    const text = describeProvisioning(state).join('\n');
    expect(text).toContain(`plugin entry   OpenCode-managed "${SPEC}"`);
    expect(text).toContain(`installed      ${packageDir} (version 0.1.0)`);
    expect(text).not.toContain('run "agent-tracker setup"');
    expect(text).toContain('(the plugin adds it at its next start)');
  });

  it('finds the package below a tarball spec, whose path OpenCode makes into nested folders', () => {
    const home = tempDir();
    const spec = 'opencode-agent-tracker@file:/home/me/src/work/releases/opencode-agent-tracker-0.1.0.tgz';
    const configDir = path.join(home, 'config', 'opencode');
    fs.mkdirSync(configDir, { recursive: true });
    fs.writeFileSync(path.join(configDir, 'opencode.json'), JSON.stringify({ plugin: [spec] }));
    const cacheDir = path.join(home, 'cache', 'opencode');
    // packages/opencode-agent-tracker@file:/home/me/src/work/releases/opencode-agent-tracker-0.1.0.tgz/node_modules/…
    const installDir = path.join(cacheDir, 'packages', 'opencode-agent-tracker@file:', 'home', 'me', 'src', 'work', 'releases', 'opencode-agent-tracker-0.1.0.tgz');
    const packageDir = path.join(installDir, 'node_modules', 'opencode-agent-tracker');
    fullInstall(installDir, packageDir);
    const state = inspectProvisioning(configDir, ROOT, cacheDir);
    expect(state.managed?.install).toEqual({ state: 'installed', folder: path.join(cacheDir, 'packages', 'opencode-agent-tracker@file:'), packageDir, version: '0.1.0' });
    expect(describeProvisioning(state).join('\n')).not.toContain('HALF-INSTALLED');
  });

  it('names a half-installed cache folder (a dependency missing) and the command that clears it', () => {
    const { configDir, cacheDir, folder, packageDir } = managedHome();
    fullInstall(folder, packageDir);
    fs.rmSync(path.join(folder, 'node_modules', 'lmdb'), { recursive: true });
    const text = describeProvisioning(inspectProvisioning(configDir, ROOT, cacheDir)).join('\n');
    expect(text).toContain(`HALF-INSTALLED ${folder}: lmdb missing, so OpenCode starts WITHOUT the plugin. Fix: rm -rf '${folder}' and restart OpenCode`);
  });

  it('names a cache folder the install stopped before the package was unpacked', () => {
    const { configDir, cacheDir, folder } = managedHome();
    fs.mkdirSync(path.join(folder, 'node_modules', 'lmdb'), { recursive: true });
    const state = inspectProvisioning(configDir, ROOT, cacheDir);
    expect(state.managed?.install).toMatchObject({ state: 'half-installed', folder, missing: ['node_modules/opencode-agent-tracker'] });
  });

  it('says OpenCode has not installed it yet when there is no cache folder', () => {
    const { configDir, cacheDir } = managedHome();
    const text = describeProvisioning(inspectProvisioning(configDir, ROOT, cacheDir)).join('\n');
    expect(text).toContain('installed      not installed yet (OpenCode installs it at its next start)');
  });
});

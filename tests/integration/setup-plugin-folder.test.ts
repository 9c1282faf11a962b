/**
 * The plugin folder built from this checkout (run `npm run build` first): self-contained, so the
 * plugin and the CLI load from it alone; identical on a second run; replaced whole when it differs;
 * without the files nothing loads (source maps, type declarations, readmes, figlet's other fonts).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createContext } from '../../src/provisioning/context.js';
import { installPluginFolder, PLUGIN_FOLDER } from '../../src/provisioning/plugin-folder.js';
import { ROOT } from '../helpers/sandbox.js';
import { treeHash } from '../helpers/compare-files.js';
import { Store } from '../../src/core/store/store.js';
import { tempTracker } from '../helpers/temp-store.js';

/** Every file below `dir`, relative, symlinks followed as npm's tree has them. */
function filesBelow(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((file) => fs.statSync(path.join(dir, file)).isFile());
}

describe('the plugin folder', () => {
  let home: string;
  let configDir: string;
  let folder: string;

  beforeAll(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-plugin-folder-'));
    configDir = path.join(home, '.config', 'opencode');
    folder = path.join(configDir, PLUGIN_FOLDER);
    const result = installPluginFolder(createContext(configDir), ROOT);
    expect(result.status).toBe('changed');
  });

  afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

  it('holds the built code, a package.json pointing at it, and only the part of @opencode-ai/plugin that is used', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8')) as Record<string, unknown>;
    const own = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: own.name, version: own.version, main: own.main, exports: own.exports, private: true });
    expect(manifest.dependencies).toBeUndefined();
    expect(fs.existsSync(path.join(folder, String(own.main)))).toBe(true);
    expect(fs.readdirSync(path.join(folder, 'node_modules', '@opencode-ai', 'plugin', 'dist')).sort()).toEqual(['tool.js']);
    for (const absent of ['effect', path.join('@opencode-ai', 'sdk'), 'typescript', 'jest']) expect(fs.existsSync(path.join(folder, 'node_modules', absent))).toBe(false);
  });

  it('loads on its own: the plugin entry imports and the copied CLI opens a database with the copied lmdb', () => {
    const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') };
    const entry = pathToFileURL(path.join(folder, 'dist', 'opencode', 'plugin.js')).href;
    const probe = `const m = await import(${JSON.stringify(entry)}); const { createRequire } = await import('node:module');
      const lmdb = createRequire(${JSON.stringify(path.join(folder, 'dist', 'x.js'))}).resolve('lmdb');
      console.log(JSON.stringify({ keys: Object.keys(m), server: typeof m.default.server, lmdb }));`;
    const imported = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: home, env, encoding: 'utf8', timeout: 60_000 });
    expect(imported.stderr).toBe('');
    const seen = JSON.parse(imported.stdout) as { keys: string[]; server: string; lmdb: string };
    expect(seen).toMatchObject({ keys: ['default'], server: 'function' });
    expect(seen.lmdb.startsWith(folder)).toBe(true);

    // An empty database to read (readers create none).
    Store.open({ path: path.join(home, '.config', 'opencode', 'agent-tracker.lmdb'), maxDatabaseSize: 1 << 24 }).close();
    const status = spawnSync(process.execPath, [path.join(folder, 'dist', 'cli', 'main.js'), 'status', '--json'], { cwd: home, env, encoding: 'utf8', timeout: 60_000 });
    expect({ code: status.status, stderr: status.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(status.stdout)).toEqual({ agents: [] });
  });

  it('leaves out source maps, type declarations and readmes, and keeps every licence of a package it copies', () => {
    const files = filesBelow(folder);
    expect(files.filter((file) => /\.map$|\.d\.[cm]?ts$/.test(file) || /^readme\.md$/i.test(path.basename(file)))).toEqual([]);
    // What it left out was there to leave: the built code has its maps, lmdb its readme and declarations.
    expect(fs.existsSync(path.join(ROOT, 'dist', 'opencode', 'plugin.js.map'))).toBe(true);
    expect(filesBelow(path.join(ROOT, 'node_modules', 'lmdb')).filter((file) => /^readme\.md$/i.test(file) || file.endsWith('.d.ts')).length).toBeGreaterThan(0);
    const copied = fs.readdirSync(path.join(folder, 'node_modules')).flatMap((name) => (name.startsWith('@') ? fs.readdirSync(path.join(folder, 'node_modules', name)).map((inner) => path.join(name, inner)) : [name]));
    for (const name of copied) {
      const licences = fs.readdirSync(path.join(ROOT, 'node_modules', name)).filter((file) => /^licen[cs]e/i.test(file));
      for (const licence of licences) expect(fs.existsSync(path.join(folder, 'node_modules', name, licence)) ? licence : `${name}/${licence} missing`).toBe(licence);
    }
    // Skills are markdown OpenCode reads: all of them are there.
    expect(filesBelow(path.join(folder, 'skills')).sort()).toEqual(filesBelow(path.join(ROOT, 'skills')).sort());
  });

  it("keeps of figlet's fonts exactly those the built code imports, and the copied CLI draws the sheet with them", () => {
    const imported = new Set<string>();
    for (const file of filesBelow(path.join(ROOT, 'dist')).filter((name) => name.endsWith('.js'))) {
      for (const match of fs.readFileSync(path.join(ROOT, 'dist', file), 'utf8').matchAll(/["']figlet\/fonts\/([A-Za-z0-9 _-]+)["']/g)) imported.add(`${match[1]}.js`);
    }
    expect(imported.size).toBeGreaterThan(0);
    const fonts = path.join(folder, 'node_modules', 'figlet', 'importable-fonts');
    expect(new Set(fs.readdirSync(fonts))).toEqual(imported);
    expect(fs.existsSync(path.join(folder, 'node_modules', 'figlet', 'fonts'))).toBe(false);

    const tracker = tempTracker({ databasePath: path.join(home, 'sheet.lmdb') });
    tracker.service.noteModelRequest('s1', 'build', 'fake/model');
    tracker.service.recordToolCall('s1', 'c1', 'bash', true);
    tracker.service.flush('test');
    tracker.store.close();
    const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') };
    const sheet = spawnSync(process.execPath, [path.join(folder, 'dist', 'cli', 'main.js'), 'status', 'build', '--db', path.join(home, 'sheet.lmdb')], { cwd: home, env, encoding: 'utf8', timeout: 60_000 });
    expect({ code: sheet.status, stderr: sheet.stderr }).toEqual({ code: 0, stderr: '' });
    // The name in FIGlet letters above the figures: several lines before the first ":: build ::" row.
    const lines = sheet.stdout.split('\n');
    expect(lines.findIndex((line) => line.startsWith(':: build ::'))).toBeGreaterThanOrEqual(2);
  });

  it('is left byte for byte as it is when nothing changed', () => {
    const before = treeHash(folder);
    expect(installPluginFolder(createContext(configDir), ROOT).status).toBe('unchanged');
    expect(treeHash(folder)).toEqual(before);
  });

  it('is replaced whole when it differs, leaving no stray or temporary files', () => {
    const before = treeHash(folder);
    fs.appendFileSync(path.join(folder, 'dist', 'opencode', 'plugin.js'), '\n// edited by hand\n');
    fs.writeFileSync(path.join(folder, 'dist', 'stray.js'), 'export {};\n');
    fs.mkdirSync(path.join(configDir, 'plugins', '.agent-tracker.tmp-1-2'));
    expect(installPluginFolder(createContext(configDir), ROOT).status).toBe('changed');
    expect(treeHash(folder)).toEqual(before);
    expect(fs.readdirSync(path.join(configDir, 'plugins'))).toEqual(['agent-tracker']);
  });

  it('stays whole when the setup of the provisioned copy itself runs (its CLI works afterwards)', () => {
    const before = treeHash(folder);
    const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') };
    const cli = path.join(folder, 'dist', 'cli', 'main.js');
    const setup = spawnSync(process.execPath, [cli, 'setup', '--json'], { cwd: home, env, encoding: 'utf8', timeout: 60_000 });
    expect({ code: setup.status, stderr: setup.stderr }).toEqual({ code: 0, stderr: '' });
    const steps = (JSON.parse(setup.stdout) as { steps: { step: string; status: string }[] }).steps;
    expect(steps.find((step) => step.step === 'plugin-folder')?.status).toBe('unchanged');
    expect(treeHash(folder)).toEqual(before);
    const status = spawnSync(process.execPath, [cli, 'status', '--json', '--db', path.join(home, 'sheet.lmdb')], { cwd: home, env, encoding: 'utf8', timeout: 60_000 });
    expect({ code: status.status, stderr: status.stderr }).toEqual({ code: 0, stderr: '' });
  });

  it('in a dry run reports the replacement and writes nothing', () => {
    fs.writeFileSync(path.join(folder, 'dist', 'stray.js'), 'export {};\n');
    const before = treeHash(folder);
    expect(installPluginFolder(createContext(configDir, { dryRun: true }), ROOT).status).toBe('changed');
    expect(treeHash(folder)).toEqual(before);
    fs.rmSync(path.join(folder, 'dist', 'stray.js'));
  });
});

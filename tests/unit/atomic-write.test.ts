import fs from 'node:fs';
import path from 'node:path';
import { ensureOwnFolder, openAtomic, writeFileAtomic } from '../../src/core/fs/atomic-write.js';
import { createContext, writeText } from '../../src/provisioning/context.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('agent-tracker-atomic-');

describe('atomic writes', () => {
  // Before: a symlink at the target was replaced by a regular file. Now nothing but a regular file is replaced.
  it('refuses a symlink at the target, leaving the link and the file it points at unchanged', () => {
    const dir = tempDir();
    const victim = path.join(dir, 'bashrc');
    fs.writeFileSync(victim, 'export PATH=/usr/bin\n');
    const target = path.join(dir, 'report.html');
    fs.symlinkSync(victim, target);
    expect(() => writeFileAtomic(target, '<html></html>')).toThrow(`refusing to write ${target}: it is a symbolic link`);
    expect(fs.readFileSync(victim, 'utf8')).toBe('export PATH=/usr/bin\n');
    expect(fs.readlinkSync(target)).toBe(victim);
    expect(fs.readdirSync(dir).sort()).toEqual(['bashrc', 'report.html']);
  });

  it('refuses a link planted at a folder the tracker makes, writing nothing through it', () => {
    const dir = tempDir();
    const outside = tempDir();
    const folder = path.join(dir, '.agent');
    fs.symlinkSync(outside, folder);
    expect(() => ensureOwnFolder(folder)).toThrow(`refusing to write into ${folder}: it is a symbolic link`);
    expect(fs.readdirSync(outside)).toEqual([]);
    const fresh = path.join(dir, 'made', 'here');
    ensureOwnFolder(fresh);
    expect(fs.lstatSync(fresh).isDirectory()).toBe(true);
  });

  it('keeps the mode of a regular file it replaces, and leaves nothing behind when aborted', () => {
    const dir = tempDir();
    const target = path.join(dir, 'out.ndjson');
    fs.writeFileSync(target, 'old', { mode: 0o600 });
    writeFileAtomic(target, 'new');
    expect(fs.statSync(target).mode & 0o777).toBe(0o600);
    const file = openAtomic(target);
    file.write('partial');
    file.abort();
    expect(fs.readFileSync(target, 'utf8')).toBe('new');
    expect(fs.readdirSync(dir)).toEqual(['out.ndjson']);
  });
});

describe('setup writes stay in the config folder by real path', () => {
  it('refuses a skills/ folder that is a link out of the config folder, writing nothing there', () => {
    const configDir = tempDir();
    const outside = tempDir();
    fs.symlinkSync(outside, path.join(configDir, 'skills'));
    const context = createContext(configDir);
    expect(() => writeText(context, path.join(configDir, 'skills', 'x', 'SKILL.md'), 'text')).toThrow(/resolves to .* outside the OpenCode config folder/);
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  it('writes through a config folder that is itself a link (a dotfiles checkout)', () => {
    const real = tempDir();
    const holder = tempDir();
    const configDir = path.join(holder, 'opencode');
    fs.symlinkSync(real, configDir);
    const context = createContext(configDir);
    expect(writeText(context, path.join(configDir, 'agents', 'a.md'), 'text')).toBe(true);
    expect(fs.readFileSync(path.join(real, 'agents', 'a.md'), 'utf8')).toBe('text');
  });
});

/**
 * Finding and reading a project's env files for masking: which files count, re-reading an edited
 * file at once, and bad files (not UTF-8, huge, thousands of lines, a symlink loop, unreadable)
 * degrading to "mask what could be read" with one warning each, never an error.
 */
import { describe, expect, it, jest } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { ENV_SCAN_LIMITS, findEnvFiles, ProjectSecrets } from '../../src/opencode/guards/project-secrets.js';
import type { FolderListings } from '../../src/opencode/guards/project-secrets.js';
import { recordingLogger } from '../helpers/temp-store.js';
import { ageFolders, useTempDirs, writeIn } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('agent-tracker-secrets-');

describe('finding env files', () => {
  it('finds .env and .env.* anywhere but templates, dependency and build folders', async () => {
    const root = tempDir();
    for (const file of ['.env', '.env.local', 'api/.env.production', 'a/b/c/.env', '.env.example', 'api/.env.sample', 'node_modules/x/.env', 'vendor/.env', 'dist/.env', '.git/.env', 'x.env.ts', 'env']) writeIn(root, file, 'K=secretvalue\n');
    const found = (await findEnvFiles(root)).files.map((file) => path.relative(root, file));
    expect(found).toEqual(['.env', '.env.local', 'a/b/c/.env', 'api/.env.production']);
  });

  // Issue 32: the scan had a depth bound of 8 and did not follow linked folders; both hid env files.
  it('has no depth bound, follows linked folders inside the project, and survives symlink loops', async () => {
    const root = tempDir();
    const outside = tempDir();
    const deep = Array.from({ length: 12 }, (_, i) => `d${i}`).join('/');
    writeIn(root, `${deep}/.env`, 'K=secretvalue\n');
    writeIn(root, 'shallow/.env', 'K=secretvalue\n');
    writeIn(root, 'vendor/shared/.env', 'K=secretvalue\n');
    writeIn(outside, 'elsewhere/.env', 'K=secretvalue\n');
    fs.symlinkSync(path.join(root, 'vendor', 'shared'), path.join(root, 'config'));
    fs.symlinkSync(path.join(outside, 'elsewhere'), path.join(root, 'escape'));
    fs.symlinkSync(root, path.join(root, 'shallow', 'loop'));
    fs.symlinkSync(path.join(root, 'shallow'), path.join(root, 'shallow', 'loop-to-self'));
    fs.symlinkSync(path.join(root, '.env.self'), path.join(root, '.env.self'));
    const scan = await findEnvFiles(root);
    const found = scan.files.map((file) => path.relative(root, file));
    expect(found).toEqual(['.env.self', 'config/.env', `${deep}/.env`, 'shallow/.env']);
    expect(scan.unscanned).toEqual([]);
  });

  it('leaves a virtualenv out whatever its name, so a big one never hides config/.env', async () => {
    const root = tempDir();
    writeIn(root, 'env/pyvenv.cfg', 'home = /usr/bin\n');
    for (let i = 0; i < 300; i += 1) writeIn(root, `env/lib/python3.12/site-packages/pkg${i}/__init__.py`, '');
    writeIn(root, 'env/lib/python3.12/site-packages/pkg0/.env', 'K=not-ours\n');
    writeIn(root, 'config/.env', 'K=secretvalue\n');
    const scan = await findEnvFiles(root, { maxEntries: 200 });
    expect(scan.files.map((file) => path.relative(root, file))).toEqual(['config/.env']);
    expect(scan.unscanned).toEqual([]);
  });

  it('past its bound names the folders it did not list, and refuses tools inside them', async () => {
    const root = tempDir();
    for (let i = 0; i < 40; i += 1) writeIn(root, `big/p${i}/f.txt`, '');
    writeIn(root, 'big/p0/.env', 'DEEP=unscanned-secret\n');
    writeIn(root, 'config/.env', 'K=secretvalue\n');
    const logged: { level: string; message: string }[] = [];
    const secrets = new ProjectSecrets(root, recordingLogger(logged), Date.now, { maxEntries: 50 });
    await secrets.scan();
    const scan = await findEnvFiles(root, { maxEntries: 50 });
    // Breadth first: config/ is listed before the folders inside big/.
    expect(scan.files.map((file) => path.relative(root, file))).toContain('config/.env');
    const unscanned = scan.unscanned.map((dir) => path.relative(root, dir));
    expect(unscanned.length).toBeGreaterThan(0);
    expect(unscanned.every((dir) => /^big\/p\d+$/.test(dir))).toBe(true);
    expect(logged.map((entry) => entry.message).join('\n')).toContain(`not scanned: ${unscanned.slice(0, 5).join(', ')}`);
    const first = unscanned[0] as string;
    expect(secrets.guard('read', { filePath: path.join(root, first, '.env.backup') })).toContain(`is inside ${first}, which the scan`);
    expect(secrets.guard('bash', { command: `grep -r sk- ${first}` })).toContain(`is inside ${first}`);
    expect(secrets.guard('grep', { pattern: 'sk-', path: first })).toContain(`is inside ${first}`);
    expect(secrets.guard('read', { filePath: 'config/app.ts' })).toBeUndefined();
    expect(secrets.guard('bash', { command: 'grep -r sk- config' })).toBeUndefined();
  });
});

describe('rescanning for env files', () => {
  const tree = ['.env', 'a/b/.env.local', 'a/c/readme.txt', 'svc/main.ts', 'svc/lib/util.ts'];
  // The root, a, a/b, a/c, svc, svc/lib.
  const FOLDERS = 6;

  it('reads again only the folders that changed, and finds what was added or removed there', async () => {
    const root = tempDir();
    for (const file of tree) writeIn(root, file, 'K=secret-value-1\n');
    ageFolders(root);
    const first = await findEnvFiles(root);
    expect(first.read).toBe(FOLDERS);
    const second = await findEnvFiles(root, ENV_SCAN_LIMITS, first.listings);
    expect(second).toMatchObject({ files: first.files, read: 0 });

    writeIn(root, 'svc/.env.production', 'K=secret-value-2\n');
    const third = await findEnvFiles(root, ENV_SCAN_LIMITS, second.listings);
    expect(third.read).toBe(1);
    expect(third.files.map((file) => path.relative(root, file))).toEqual(['.env', 'a/b/.env.local', 'svc/.env.production']);

    ageFolders(root);
    const settled = await findEnvFiles(root, ENV_SCAN_LIMITS, third.listings);
    fs.rmSync(path.join(root, 'a', 'b'), { recursive: true });
    const fourth = await findEnvFiles(root, ENV_SCAN_LIMITS, settled.listings);
    // a/ changed (its entry b went); b is gone, so it is neither read nor reused.
    expect(fourth.read).toBe(1);
    expect(fourth.files.map((file) => path.relative(root, file))).toEqual(['.env', 'svc/.env.production']);
    expect(fourth.listings.size).toBe(FOLDERS - 1);
  });

  it('reads again a folder whose last change came within two seconds of its listing, even when its time stamp looks the same', async () => {
    const root = tempDir();
    for (const file of tree) writeIn(root, file, 'K=secret-value-1\n');
    const first = await findEnvFiles(root);
    // The same listings, as if each folder had been listed `ms` after its last change (no clock of this machine's speed in it).
    const listedAfter = (ms: number): FolderListings => new Map([...first.listings].map(([real, listing]) => [real, { ...listing, listedAt: listing.mtimeMs + ms }]));
    expect((await findEnvFiles(root, ENV_SCAN_LIMITS, listedAfter(2_000))).read).toBe(0);
    expect((await findEnvFiles(root, ENV_SCAN_LIMITS, listedAfter(1_999))).read).toBe(FOLDERS);
    // A file system with coarse time stamps: the file added after the listing leaves the folder's time as it was.
    const before = fs.statSync(path.join(root, 'svc'));
    writeIn(root, 'svc/.env', 'K=secret-value-3\n');
    fs.utimesSync(path.join(root, 'svc'), before.atime, before.mtime);
    const second = await findEnvFiles(root, ENV_SCAN_LIMITS, listedAfter(1_999));
    expect(second.read).toBe(FOLDERS);
    expect(second.files.map((file) => path.relative(root, file))).toContain('svc/.env');
  });

  it('rescans without listing a folder that did not change (the plugin rescans every 30 s while tools run)', async () => {
    const root = tempDir();
    for (const file of tree) writeIn(root, file, 'K=secret-value-1\n');
    ageFolders(root);
    let now = 0;
    const secrets = new ProjectSecrets(root, recordingLogger([]), () => now);
    await secrets.masker();
    const readdir = jest.spyOn(fs.promises, 'readdir');
    try {
      now = ENV_SCAN_LIMITS.rescanMs + 1;
      await secrets.masker();
      await secrets.scan();
      expect(readdir).not.toHaveBeenCalled();
      expect(secrets.maskNow('secret-value-1')).toBe('[masked: K from .env]');
    } finally {
      readdir.mockRestore();
    }
  });
});

describe('ProjectSecrets', () => {
  it('re-reads an edited env file at once and forgets a deleted one', async () => {
    const root = tempDir();
    writeIn(root, '.env', 'TOKEN=first-secret-value\n');
    const secrets = new ProjectSecrets(root, recordingLogger([]));
    expect((await secrets.masker()).mask('first-secret-value')).toBe('[masked: TOKEN from .env]');
    writeIn(root, '.env', 'TOKEN=second-secret-value-longer\n');
    expect(secrets.maskNow('second-secret-value-longer')).toBe('[masked: TOKEN from .env]');
    fs.rmSync(path.join(root, '.env'));
    expect(secrets.maskNow('second-secret-value-longer')).toBe('second-secret-value-longer');
  });

  it('re-reads an env file replaced by one of the same size and time stamp', async () => {
    const root = tempDir();
    const stamp = new Date('2026-01-02T03:04:05.000Z');
    writeIn(root, '.env', 'TOKEN=old-secret-value-1\n');
    fs.utimesSync(path.join(root, '.env'), stamp, stamp);
    const secrets = new ProjectSecrets(root, recordingLogger([]));
    expect((await secrets.masker()).mask('old-secret-value-1')).toBe('[masked: TOKEN from .env]');
    // A copy that keeps time stamps (cp -p, rsync -t) renamed over the old file.
    writeIn(root, '.env.tmp-save', 'TOKEN=new-secret-value-2\n');
    fs.utimesSync(path.join(root, '.env.tmp-save'), stamp, stamp);
    fs.renameSync(path.join(root, '.env.tmp-save'), path.join(root, '.env'));
    expect(secrets.maskNow('new-secret-value-2')).toBe('[masked: TOKEN from .env]');
  });

  it('finds a new env file at the next rescan', async () => {
    const root = tempDir();
    let now = 0;
    const secrets = new ProjectSecrets(root, recordingLogger([]), () => now);
    expect((await secrets.masker()).values).toBe(0);
    writeIn(root, 'svc/.env', 'NEW=brand-new-secret\n');
    now = ENV_SCAN_LIMITS.rescanMs + 1;
    await secrets.masker();
    await secrets.scan();
    expect(secrets.maskNow('brand-new-secret')).toBe('[masked: NEW from svc/.env]');
  });

  it('masks what it can read of bad files, with one warning each', async () => {
    const root = tempDir();
    writeIn(root, '.env', Buffer.concat([Buffer.from('GOOD=readable-secret\nBAD='), Buffer.from([0xff, 0xfe, 0x00, 0xc3]), Buffer.from('\nAFTER=after-bad-bytes\n')]));
    const many = Array.from({ length: 5000 }, (_, i) => `K${i}=value-number-${i}`).join('\n');
    writeIn(root, '.env.many', many);
    writeIn(root, '.env.huge', `FIRST=in-the-first-megabyte\n${'#'.repeat(ENV_SCAN_LIMITS.maxFileBytes)}\nLAST=beyond-the-cap-value\n`);
    // A link that leads nowhere: the file is there by name but cannot be opened.
    fs.symlinkSync(path.join(root, 'missing-target'), path.join(root, '.env.broken'));
    const logged: { level: string; message: string }[] = [];
    const secrets = new ProjectSecrets(root, recordingLogger(logged));
    const masker = await secrets.masker();
    expect(masker.mask('readable-secret after-bad-bytes value-number-4999 in-the-first-megabyte')).toBe(
      '[masked: GOOD from .env] [masked: AFTER from .env] [masked: K4999 from .env.many] [masked: FIRST from .env.huge]',
    );
    expect(masker.mask('beyond-the-cap-value')).toBe('beyond-the-cap-value');
    await secrets.masker();
    expect(logged.map((entry) => entry.level)).toEqual(['warn', 'warn']);
    expect(logged.map((entry) => entry.message).join('\n')).toMatch(/\.env\.broken could not be read \(ENOENT\)[\s\S]*\.env\.huge is larger than/);
  });
});

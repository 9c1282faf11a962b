/**
 * The plugin's own writes never follow a link an agent planted in the project or beside the
 * database: the `.agent` status folder and the verified-sidecar's temporary file.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { recordVerified, sidecarPath } from '../../src/core/store/verify.js';
import { statusExporter, writeStatusExport } from '../../src/core/tracking/status-export.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const tempDir = useTempDirs('agent-tracker-links-');
let t: TempTracker | undefined;
afterEach(() => {
  t?.dispose();
  t = undefined;
});

describe('links planted for the plugin to follow', () => {
  it('writes no status.json through an .agent link to a folder outside the project, and the flush still succeeds', () => {
    t = tempTracker();
    const project = tempDir();
    const outside = tempDir();
    fs.symlinkSync(outside, path.join(project, '.agent'));
    expect(() => writeStatusExport({ store: t!.store, rules: t!.config.rules, project, always: false }, ['build'])).toThrow(/refusing to write into .*\.agent: it is a symbolic link/);
    t.service.onFlushed(statusExporter({ store: t.store, rules: t.config.rules, project, always: true }));
    t.service.noteModelRequest('s1', 'build', 'fake/model');
    t.service.recordToolCall('s1', 'c1', 'bash', true);
    expect(t.service.flush('test').ok).toBe(true);
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(fs.lstatSync(path.join(project, '.agent')).isSymbolicLink()).toBe(true);
  });

  it("never writes the verified sidecar through a link planted at its old temporary name (<db>.verified.<pid>.tmp)", () => {
    t = tempTracker();
    t.store.close();
    const db = t.config.databasePath;
    const victim = path.join(tempDir(), 'victim.txt');
    fs.writeFileSync(victim, 'keep me\n');
    const planted = `${sidecarPath(db)}.${process.pid}.tmp`;
    fs.symlinkSync(victim, planted);
    recordVerified(db);
    expect(fs.readFileSync(victim, 'utf8')).toBe('keep me\n');
    expect(fs.lstatSync(sidecarPath(db)).isFile()).toBe(true);
    expect(JSON.parse(fs.readFileSync(sidecarPath(db), 'utf8'))).toHaveProperty('fingerprint');
  });

  it('never replaces a link planted at the verified sidecar itself', () => {
    t = tempTracker();
    t.store.close();
    const db = t.config.databasePath;
    const victim = path.join(tempDir(), 'victim.txt');
    fs.writeFileSync(victim, 'keep me\n');
    fs.rmSync(sidecarPath(db), { force: true });
    fs.symlinkSync(victim, sidecarPath(db));
    recordVerified(db);
    expect(fs.readFileSync(victim, 'utf8')).toBe('keep me\n');
    expect(fs.readlinkSync(sidecarPath(db))).toBe(victim);
  });
});

/**
 * The other projects' folders kept beside the database between sessions (env-folders.ts): a session
 * start lists only what changed in another project since the last session, and still masks stored
 * text with every value a full scan would find. The file holds names and stamps, never a value, and a
 * damaged one counts as empty.
 */
import { describe, expect, it, jest } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { EnvFolders, envFoldersPath } from '../../src/opencode/guards/env-folders.js';
import { StoredTextMasker } from '../../src/opencode/guards/stored-text.js';
import { recordingLogger } from '../helpers/temp-store.js';
import { ageFolders, useTempDirs, writeIn } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('agent-tracker-env-folders-');

const A_VALUE = 'sk-live-projectA-51d0c7e2';
const A_NEW_VALUE = 'sk-live-projectA-added-9b2e';
const B_VALUE = 'pw-projectB-c4a81f06';

/** Two other projects (A with its env file two folders down, B at its root), their folders aged, and a database path beside them. */
function setup(): { a: string; b: string; file: string } {
  const home = tempDir();
  const a = path.join(home, 'project-a');
  const b = path.join(home, 'project-b');
  writeIn(a, 'services/api/.env', `API_KEY=${A_VALUE}\n`);
  writeIn(a, 'services/web/index.ts', '');
  writeIn(a, 'docs/readme.md', '');
  writeIn(b, '.env', `PASSWORD=${B_VALUE}\n`);
  writeIn(b, 'src/main.ts', '');
  ageFolders(a);
  ageFolders(b);
  return { a, b, file: envFoldersPath(path.join(home, 'tracker.lmdb')) };
}

/** One session start: a masker for stored text in a third project, which reads the other two. */
async function session(file: string, roots: string[], maxFolders?: number): Promise<StoredTextMasker> {
  const logger = recordingLogger([]);
  const masker = new StoredTextMasker(undefined, logger, Date.now, new EnvFolders(file, logger, maxFolders));
  await masker.addKnownProjects(() => roots, '/elsewhere');
  return masker;
}

describe('the other projects\' folders kept between sessions', () => {
  it('a second session lists no folder that did not change, and masks the same values', async () => {
    const { a, b, file } = setup();
    const first = await session(file, [a, b]);
    expect(first.mask(`${A_VALUE} ${B_VALUE}`)).toBe('[masked: API_KEY from services/api/.env] [masked: PASSWORD from .env]');
    const readdir = jest.spyOn(fs.promises, 'readdir');
    try {
      const second = await session(file, [a, b]);
      expect(readdir).not.toHaveBeenCalled();
      expect(second.mask(`${A_VALUE} ${B_VALUE}`)).toBe('[masked: API_KEY from services/api/.env] [masked: PASSWORD from .env]');
    } finally {
      readdir.mockRestore();
    }
  });

  it('finds an env file added to another project between two sessions, listing only its folder', async () => {
    const { a, b, file } = setup();
    await session(file, [a, b]);
    writeIn(a, 'services/web/.env.local', `WEB_KEY=${A_NEW_VALUE}\n`);
    const readdir = jest.spyOn(fs.promises, 'readdir');
    try {
      const second = await session(file, [a, b]);
      expect(readdir.mock.calls.map(([dir]) => path.relative(a, String(dir)))).toEqual([path.join('services', 'web')]);
      expect(second.mask(A_NEW_VALUE)).toBe('[masked: WEB_KEY from services/web/.env.local]');
    } finally {
      readdir.mockRestore();
    }
  });

  it('keeps folder names and stamps, never a value', async () => {
    const { a, b, file } = setup();
    await session(file, [a, b]);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('.env');
    expect(text).not.toContain(A_VALUE);
    expect(text).not.toContain(B_VALUE);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it.each([
    ['not JSON', '{"format": "agent-tracker env'],
    ['another format', JSON.stringify({ format: 'something else', projects: {} })],
    ['rows of the wrong shape', JSON.stringify({ format: 'agent-tracker env folders 1', projects: { x: [[1, 2, 3], ['a', 'b']], y: 'no' } })],
  ])('counts a file that is %s as empty: everything is listed, every value masked, the file written anew', async (_what, content) => {
    const { a, b, file } = setup();
    fs.writeFileSync(file, content);
    const masker = await session(file, [a, b]);
    expect(masker.mask(`${A_VALUE} ${B_VALUE}`)).toBe('[masked: API_KEY from services/api/.env] [masked: PASSWORD from .env]');
    expect(Object.keys((JSON.parse(fs.readFileSync(file, 'utf8')) as { projects: object }).projects).sort()).toEqual([a, b].sort());
  });

  it('never walks out of a project through a kept entry named ..', async () => {
    const { a, b, file } = setup();
    const stat = fs.statSync(a);
    const forged = { format: 'agent-tracker env folders 1', projects: { [a]: [[fs.realpathSync(a), stat.ino, stat.mtimeMs, stat.ctimeMs, Date.now(), 3, 0, 'd..', 'dservices', 'ddocs']] } };
    fs.writeFileSync(file, JSON.stringify(forged));
    const readdir = jest.spyOn(fs.promises, 'readdir');
    try {
      const masker = await session(file, [a, b]);
      const inside = (dir: string, root: string): boolean => dir === root || dir.startsWith(`${root}${path.sep}`);
      expect(readdir.mock.calls.map(([dir]) => path.resolve(String(dir))).filter((dir) => !inside(dir, a) && !inside(dir, b))).toEqual([]);
      expect(masker.mask(A_VALUE)).toBe('[masked: API_KEY from services/api/.env]');
    } finally {
      readdir.mockRestore();
    }
  });

  it('keeps at most its bound of folders: a project past it is listed in full at each start', async () => {
    const { a, b, file } = setup();
    // A has 5 folders (its root, services, services/api, services/web, docs), B 2 (its root, src).
    await session(file, [b, a], 6);
    const kept = (JSON.parse(fs.readFileSync(file, 'utf8')) as { projects: Record<string, unknown[]> }).projects;
    expect(Object.keys(kept)).toEqual([b]);
    expect(kept[b]).toHaveLength(2);
  });
});

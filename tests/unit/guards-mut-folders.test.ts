/**
 * The kept folder listings (env-folders.ts), case by case where a wrong rule would go unseen by the
 * broader tests in env-folders.test.ts: which kept rows a start trusts (a row it must not trust makes
 * its folder be listed again, a row it cannot read must not stop the masking of its project), when
 * the file is written, and what it keeps under its bound.
 */
import { describe, expect, it, jest } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { EnvFolders, envFoldersPath } from '../../src/opencode/guards/env-folders.js';
import { StoredTextMasker } from '../../src/opencode/guards/stored-text.js';
import { recordingLogger } from '../helpers/temp-store.js';
import { ageFolders, useTempDirs, writeIn } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('agent-tracker-guards-folders-');

const FORMAT = 'agent-tracker env folders 1';
const VALUE = 'sk-live-kept-7f31c9a2';
const MASKED = '[masked: API_KEY from api/.env]';

/** A project of three folders (its root, api, web), aged, and the kept file's path beside a database in the same temp folder. */
function project(): { root: string; file: string } {
  const home = tempDir();
  const root = path.join(home, 'project');
  writeIn(root, 'api/.env', `API_KEY=${VALUE}\n`);
  writeIn(root, 'web/index.ts', '');
  ageFolders(root);
  return { root, file: envFoldersPath(path.join(home, 'tracker.lmdb')) };
}

/** A row as the file keeps it, made by hand from the folder's stamp: [real path, ino, mtime, ctime, listed at, count, virtualenv, entries...]. */
function row(folder: string, entries: unknown[], count = entries.length): unknown[] {
  const stat = fs.statSync(folder);
  return [fs.realpathSync(folder), stat.ino, stat.mtimeMs, stat.ctimeMs, stat.mtimeMs + 3_600_000, count, 0, ...entries];
}

/** The three rows a scan of `project()` keeps, each one trustworthy. */
function goodRows(root: string): Record<string, unknown[]> {
  return { root: row(root, ['dapi', 'dweb']), api: row(path.join(root, 'api'), ['e.env']), web: row(path.join(root, 'web'), []) };
}

function keep(file: string, projects: unknown): void {
  fs.writeFileSync(file, JSON.stringify({ format: FORMAT, projects }));
}

/** A session start that reads `root` as another project, and the folders it listed (relative to `root`; '' is the root). */
async function start(file: string, root: string, maxFolders?: number): Promise<{ masker: StoredTextMasker; listed: string[] }> {
  const readdir = jest.spyOn(fs.promises, 'readdir');
  try {
    const masker = new StoredTextMasker(undefined, recordingLogger([]), Date.now, new EnvFolders(file, recordingLogger([]), maxFolders));
    await masker.addKnownProjects(() => [root], '/elsewhere');
    return { masker, listed: readdir.mock.calls.map(([dir]) => path.relative(root, String(dir))).sort() };
  } finally {
    readdir.mockRestore();
  }
}

describe('which kept rows a session start trusts', () => {
  it('reuses every folder of well-formed rows whose stamps match (the control for the cases below)', async () => {
    const { root, file } = project();
    const rows = goodRows(root);
    keep(file, { [root]: [rows.root, rows.api, rows.web] });
    const { masker, listed } = await start(file, root);
    expect(listed).toEqual([]);
    expect(masker.mask(VALUE)).toBe(MASKED);
  });

  it.each([
    ['a row one field short (no virtualenv flag)', (good: unknown[]) => good.slice(0, 6)],
    ['an entry that is not a string', (good: unknown[]) => [...good, 7]],
    ['an entry of an unknown kind', (good: unknown[]) => [...good, 'xnotes']],
    ['an entry with no name', (good: unknown[]) => [...good, 'e']],
    ['an entry named .', (good: unknown[]) => [...good, 'd.']],
    ['an entry with a slash in its name', (good: unknown[]) => [...good, 'dweb/inner']],
    ['an entry with a backslash in its name', (good: unknown[]) => [...good, 'dweb\\inner']],
  ])('lists a folder again whose kept row holds %s, stamps matching or not', async (_what, forge) => {
    const { root, file } = project();
    const rows = goodRows(root);
    keep(file, { [root]: [rows.root, forge(rows.web as unknown[]), rows.api] });
    const { masker, listed } = await start(file, root);
    expect(listed).toEqual(['web']);
    expect(masker.mask(VALUE)).toBe(MASKED);
  });

  it('trusts no row of a file in another format', async () => {
    const { root, file } = project();
    const rows = goodRows(root);
    fs.writeFileSync(file, JSON.stringify({ format: 'agent-tracker env folders 2', projects: { [root]: [rows.root, rows.api, rows.web] } }));
    const { masker, listed } = await start(file, root);
    expect(listed).toEqual(['', 'api', 'web']);
    expect(masker.mask(VALUE)).toBe(MASKED);
  });

  it.each([
    ['a row that is an object', (rows: Record<string, unknown[]>, root: string) => ({ [root]: [rows.root, { 0: 'x', length: 9 }, rows.api] })],
    ["a project's rows that are an object", (_rows: Record<string, unknown[]>, root: string) => ({ [root]: { 0: [] } })],
    ['projects that are null', () => null],
  ])('still masks a project whose kept file holds %s', async (_what, projects) => {
    const { root, file } = project();
    keep(file, projects(goodRows(root), root));
    const { masker } = await start(file, root);
    expect(masker.mask(VALUE)).toBe(MASKED);
  });
});

describe('when the kept file is written', () => {
  it('is not written again by a start that changed nothing', async () => {
    const { root, file } = project();
    await start(file, root);
    const written = fs.statSync(file);
    await start(file, root);
    // An atomic write replaces the file: a new inode.
    expect(fs.statSync(file).ino).toBe(written.ino);
  });

  it('is written once per change, not at every save', () => {
    const { root, file } = project();
    const folders = new EnvFolders(file, recordingLogger([]));
    folders.keep(root, new Map([[root, { ino: 1, mtimeMs: 1, ctimeMs: 1, listedAt: 1, count: 0, virtualenv: false, entries: [] }]]), 1);
    folders.save();
    const written = fs.statSync(file);
    folders.save();
    expect(fs.statSync(file).ino).toBe(written.ino);
  });

  it('is written again when a folder was read, even with as many folders as before', async () => {
    const { root, file } = project();
    await start(file, root);
    const written = fs.statSync(file);
    writeIn(root, 'web/.env.local', 'WEB=another-value-55\n');
    const { masker } = await start(file, root);
    expect(masker.mask('another-value-55')).toBe('[masked: WEB from web/.env.local]');
    expect(fs.statSync(file).ino).not.toBe(written.ino);
    expect(fs.readFileSync(file, 'utf8')).toContain('e.env.local');
  });

  it('drops the projects no start of this session read', async () => {
    const { root, file } = project();
    const other = path.join(path.dirname(root), 'other');
    writeIn(other, '.env', 'OTHER=other-value-12\n');
    const logger = recordingLogger([]);
    const both = new StoredTextMasker(undefined, logger, Date.now, new EnvFolders(file, logger));
    await both.addKnownProjects(() => [root, other], '/elsewhere');
    writeIn(root, 'web/.env', 'WEB=web-value-98\n');
    await start(file, root);
    expect(Object.keys((JSON.parse(fs.readFileSync(file, 'utf8')) as { projects: object }).projects)).toEqual([root]);
  });

  it('says in one line that it could not keep the folders, and throws nothing', async () => {
    const { root } = project();
    const logged: { level: string; message: string }[] = [];
    const file = path.join(tempDir(), 'no-such-folder', 'tracker.lmdb.env-folders.json');
    const masker = new StoredTextMasker(undefined, recordingLogger([]), Date.now, new EnvFolders(file, recordingLogger(logged)));
    await masker.addKnownProjects(() => [root], '/elsewhere');
    expect(masker.mask(VALUE)).toBe(MASKED);
    expect(logged).toHaveLength(1);
    expect(logged[0]?.message).toContain(`the other projects' folders could not be kept in ${file}`);
  });
});

describe('what the kept file holds under its bound', () => {
  /** Two projects: `large` of three folders, `small` of one, named so that the large one comes first by name. */
  function two(): { large: string; small: string; file: string } {
    const home = tempDir();
    const large = path.join(home, 'a-large');
    const small = path.join(home, 'b-small');
    writeIn(large, 'api/.env', `API_KEY=${VALUE}\n`);
    writeIn(large, 'web/index.ts', '');
    writeIn(small, '.env', 'SMALL=small-value-31\n');
    return { large, small, file: envFoldersPath(path.join(home, 'tracker.lmdb')) };
  }

  async function keptWith(maxFolders: number): Promise<Record<string, unknown[]>> {
    const { large, small, file } = two();
    const logger = recordingLogger([]);
    const masker = new StoredTextMasker(undefined, logger, Date.now, new EnvFolders(file, logger, maxFolders));
    await masker.addKnownProjects(() => [large, small], '/elsewhere');
    const kept = (JSON.parse(fs.readFileSync(file, 'utf8')) as { projects: Record<string, unknown[]> }).projects;
    return Object.fromEntries(Object.entries(kept).map(([root, rows]) => [path.basename(root), rows]));
  }

  it('keeps the smaller project first, whatever the order of their names', async () => {
    const kept = await keptWith(3);
    expect(Object.keys(kept)).toEqual(['b-small']);
  });

  it('keeps both when their folders come to exactly the bound', async () => {
    const kept = await keptWith(4);
    expect(Object.keys(kept).sort()).toEqual(['a-large', 'b-small']);
    expect(kept['a-large']).toHaveLength(3);
    expect(kept['b-small']).toHaveLength(1);
  });
});

/**
 * The scan for env files and the masker it feeds (project-secrets.ts), case by case where a wrong
 * rule would go unseen by project-secrets.test.ts: where the scan stops at its bound, what it follows
 * and leaves, when a file is read again, when a rescan is due, and the guard's and warning's words.
 */
import { describe, expect, it, jest } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { ENV_SCAN_LIMITS, findEnvFiles, ProjectSecrets, readEnvFile, unscannedWarning } from '../../src/opencode/guards/project-secrets.js';
import { recordingLogger } from '../helpers/temp-store.js';
import { useTempDirs, writeIn } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('agent-tracker-guards-scan-');

const relative = (root: string, files: string[]): string[] => files.map((file) => path.relative(root, file));

/** How many times `fs.openSync` opened `file` while `run` ran (and settled). */
async function opensOf(file: string, run: () => unknown): Promise<number> {
  const open = jest.spyOn(fs, 'openSync');
  try {
    await run();
    return open.mock.calls.filter(([target]) => String(target) === file).length;
  } finally {
    open.mockRestore();
  }
}

describe('where the scan stops, and what it returns there', () => {
  it('stops once it has counted its bound of entries, and names the rest; the files found so far come sorted', async () => {
    const root = tempDir();
    // Breadth first: z/.env (depth 1) is found before a/b/.env (depth 2); a/b/c is next when the bound is reached.
    writeIn(root, 'z/.env', 'Z=zeta-value-1\n');
    writeIn(root, 'a/b/.env', 'B=beta-value-2\n');
    fs.mkdirSync(path.join(root, 'a', 'b', 'c'));
    // Entries counted: the root 2 (a, z), a 1 (b), z 1 (.env), a/b 2 (.env, c): 6.
    const scan = await findEnvFiles(root, { maxEntries: 6 });
    expect(relative(root, scan.files)).toEqual(['a/b/.env', 'z/.env']);
    expect(relative(root, scan.unscanned)).toEqual(['a/b/c']);
    const wider = await findEnvFiles(root, { maxEntries: 7 });
    expect(wider.unscanned).toEqual([]);
  });

  it('goes on past a folder it cannot list', async () => {
    const root = tempDir();
    writeIn(root, 'locked/.env', 'L=locked-value-3\n');
    writeIn(root, 'open/.env', 'O=open-value-4\n');
    const real = fs.promises.readdir.bind(fs.promises);
    const readdir = jest.spyOn(fs.promises, 'readdir').mockImplementation((async (dir: fs.PathLike, options: never) => {
      if (String(dir).endsWith(`${path.sep}locked`)) throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      return real(dir, options);
    }) as typeof fs.promises.readdir);
    try {
      const scan = await findEnvFiles(root);
      expect(relative(root, scan.files)).toEqual(['open/.env']);
    } finally {
      readdir.mockRestore();
    }
  });

  it('finds nothing, and throws nothing, for a root that is not there', async () => {
    const scan = await findEnvFiles(path.join(tempDir(), 'gone'));
    expect(scan).toEqual({ files: [], unscanned: [], listings: new Map(), read: 0 });
  });
});

describe('what the scan follows and leaves', () => {
  it('scans a project whose root is itself a virtualenv, and leaves a virtualenv below it', async () => {
    const root = tempDir();
    writeIn(root, 'pyvenv.cfg', 'home = /usr/bin\n');
    writeIn(root, '.env', 'ROOT=root-value-5\n');
    // Named as no skipped folder is: only its pyvenv.cfg says it is a virtualenv.
    writeIn(root, 'tools/py311/pyvenv.cfg', 'home = /usr/bin\n');
    writeIn(root, 'tools/py311/lib/.env', 'VENV=venv-value-6\n');
    writeIn(root, 'tools/.env.local', 'TOOLS=tools-value-7\n');
    const scan = await findEnvFiles(root);
    expect(relative(root, scan.files)).toEqual(['.env', 'tools/.env.local']);
  });

  it('follows a link to a folder inside the project, even one it would not enter by its name', async () => {
    const root = tempDir();
    writeIn(root, 'build/conf/.env', 'CONF=conf-value-20\n');
    fs.symlinkSync(path.join(root, 'build', 'conf'), path.join(root, 'conf-link'));
    const scan = await findEnvFiles(root);
    expect(relative(root, scan.files)).toEqual(['conf-link/.env']);
  });

  it('never follows a link out of the project', async () => {
    const home = tempDir();
    const root = path.join(home, 'project');
    writeIn(home, 'outside/.env', 'OUT=outside-value-8\n');
    writeIn(root, 'in/.env', 'IN=inside-value-9\n');
    fs.symlinkSync(path.join(home, 'outside'), path.join(root, 'elsewhere'));
    const scan = await findEnvFiles(root);
    expect(relative(root, scan.files)).toEqual(['in/.env']);
  });

  it('finds an env file in a folder made since the last scan, reusing the others', async () => {
    const root = tempDir();
    writeIn(root, 'a/readme.txt', '');
    const first = await findEnvFiles(root);
    writeIn(root, 'new/.env', 'NEW=new-value-10\n');
    const second = await findEnvFiles(root, ENV_SCAN_LIMITS, first.listings);
    expect(relative(root, second.files)).toEqual(['new/.env']);
  });
});

describe('reading an env file', () => {
  it('says a folder is not a regular file, and reads nothing of it', () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, '.env'));
    expect(readEnvFile(path.join(root, '.env'), root)).toEqual({ sources: [], problem: '.env is not a regular file (a pipe, device or folder): it is not read' });
  });

  it('closes every file it opens', () => {
    const root = tempDir();
    writeIn(root, '.env', 'K=closed-value-11\n');
    fs.mkdirSync(path.join(root, 'folder.env'));
    const open = (): number => fs.readdirSync('/proc/self/fd').length;
    const before = open();
    for (let i = 0; i < 50; i += 1) {
      readEnvFile(path.join(root, '.env'), root);
      readEnvFile(path.join(root, 'folder.env'), root);
    }
    expect(open()).toBe(before);
  });
});

describe('when the masker reads a file again', () => {
  it('masks before the first scan without failing, and leaves the text as it is', () => {
    const secrets = new ProjectSecrets(tempDir(), recordingLogger([]));
    expect(secrets.maskNow('nothing-known-yet')).toBe('nothing-known-yet');
  });

  it('does not open an unchanged file again, and sees an edit at once', async () => {
    const root = tempDir();
    const file = path.join(root, '.env');
    writeIn(root, '.env', 'K=first-value-12\n');
    const secrets = new ProjectSecrets(root, recordingLogger([]));
    await secrets.scan();
    expect(secrets.maskNow('first-value-12')).toBe('[masked: K from .env]');
    expect(await opensOf(file, () => secrets.maskNow('first-value-12'))).toBe(0);
    writeIn(root, '.env', 'K=second-value-13\n');
    expect(secrets.maskNow('second-value-13')).toBe('[masked: K from .env]');
  });

  it('skips the check when asked (another project, checked on a timer), and makes it otherwise', async () => {
    const root = tempDir();
    writeIn(root, '.env', 'K=first-value-14\n');
    const secrets = new ProjectSecrets(root, recordingLogger([]));
    await secrets.scan();
    writeIn(root, '.env', 'K=second-value-15\n');
    expect(secrets.maskNow('second-value-15', { recheck: false })).toBe('second-value-15');
    expect(secrets.maskNow('second-value-15', { recheck: true })).toBe('[masked: K from .env]');
  });

  it('keeps the stamps of the same files across a rescan: none is read again', async () => {
    const root = tempDir();
    const file = path.join(root, '.env');
    writeIn(root, '.env', 'K=kept-value-16\n');
    const secrets = new ProjectSecrets(root, recordingLogger([]));
    await secrets.scan();
    const rescan = async (): Promise<void> => {
      await secrets.scan();
      secrets.maskNow('x');
    };
    expect(await opensOf(file, rescan)).toBe(0);
    expect(secrets.maskNow('kept-value-16')).toBe('[masked: K from .env]');
  });

  it('reads every file again when the files found changed, though a file with the same stamp is among them', async () => {
    const root = tempDir();
    writeIn(root, 'b/.env', 'B=b-value-17\n');
    const secrets = new ProjectSecrets(root, recordingLogger([]));
    await secrets.scan();
    writeIn(root, 'a/.env', 'A=a-value-18\n');
    await secrets.scan();
    expect(secrets.maskNow('a-value-18 b-value-17')).toBe('[masked: A from a/.env] [masked: B from b/.env]');
  });
});

describe('when a rescan is due', () => {
  it('rescans in the background once more than the rescan interval has passed, not at it', async () => {
    const root = tempDir();
    writeIn(root, '.env', 'K=rescan-value-19\n');
    let now = 1_000_000;
    const secrets = new ProjectSecrets(root, recordingLogger([]), () => now);
    await secrets.masker();
    const readdir = jest.spyOn(fs.promises, 'readdir');
    try {
      now += ENV_SCAN_LIMITS.rescanMs;
      await secrets.masker();
      // Long enough for a background scan of this small tree to reach its listing, had one started.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(readdir).not.toHaveBeenCalled();
      now += 1;
      await secrets.masker();
      for (let round = 0; round < 100 && readdir.mock.calls.length === 0; round += 1) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(readdir).toHaveBeenCalled();
    } finally {
      readdir.mockRestore();
    }
  });
});

describe("the guard's and the warning's words", () => {
  it('names the first five folders it did not list, and how many more', () => {
    const root = '/p';
    const folders = ['/p/a', '/p/b', '/p/c', '/p/d', '/p/e', '/p/f', '/p/g'];
    expect(unscannedWarning(root, folders, 10)).toBe(
      'the scan for .env files stopped after 10 entries; not scanned: a, b, c, d, e and 2 more. Tools are refused inside these folders, since their env values cannot be masked.',
    );
    expect(unscannedWarning(root, folders.slice(0, 5), 10)).toBe(
      'the scan for .env files stopped after 10 entries; not scanned: a, b, c, d, e. Tools are refused inside these folders, since their env values cannot be masked.',
    );
    expect(unscannedWarning(root, ['/p'], 10)).toContain('not scanned: .. Tools');
  });

  it('warns once for the same stop, and refuses only what is inside a folder it did not list', async () => {
    const root = tempDir();
    for (let i = 0; i < 30; i += 1) writeIn(root, `big/p${i}/f.txt`, '');
    const logged: { level: string; message: string }[] = [];
    const secrets = new ProjectSecrets(root, recordingLogger(logged), Date.now, { maxEntries: 20 });
    await secrets.scan();
    await secrets.scan();
    expect(logged.filter((entry) => entry.message.includes('stopped after 20 entries'))).toHaveLength(1);
    const folder = relative(root, (await findEnvFiles(root, { maxEntries: 20 })).unscanned)[0] as string;
    expect(secrets.guard('read', { filePath: `  ${folder}/x.txt  ` })).toBe(
      `agent-tracker refused read: "  ${folder}/x.txt  " is inside ${folder}, which the scan for .env files did not reach (it stopped after 20 entries), so secrets there could not be masked. Ask the user to look at it.`,
    );
    // A command is read as shell words only for bash.
    expect(secrets.guard('edit', { command: `cat ${folder}/x.txt` })).toBeUndefined();
    expect(secrets.guard('bash', { command: `cat ${folder}/x.txt` })).toContain(`is inside ${folder}`);
  });
});

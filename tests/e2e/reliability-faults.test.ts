/**
 * Faults in the database's place, against the real `opencode` binary: a corrupt database file, a
 * path that cannot be read as a database, and a folder that cannot be written. Each time tracking
 * turns itself off with one clear message in OpenCode's log, the session still does its work, and
 * the CLI exits 1 with one clear line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { bash, say, scriptByPrompt, startFakeModel } from '../helpers/fake-model.js';
import type { FakeModel } from '../helpers/fake-model.js';
import { makeRepo, makeSandbox, removeSandbox, runCli, runOpencode, writeGlobalConfig } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';

jest.setTimeout(400_000);

const OFF_MESSAGE = /agent-tracker is off/;
const REPLY = 'Finished the file.';
const CORRUPT_BYTES = 64 * 1024;
const IS_ROOT = typeof process.getuid === 'function' && process.getuid() === 0;

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

interface Fault {
  name: string;
  /** Prepares the fault in the sandbox and returns the database path that meets it. */
  make(sandbox: Sandbox): string;
  /** What the message must say about the cause. */
  cause: RegExp;
}

const FAULTS: Fault[] = [
  {
    name: 'a corrupt database file',
    make: (sandbox) => {
      const file = path.join(sandbox.root, 'corrupt', 'agent-tracker.lmdb');
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, Buffer.alloc(CORRUPT_BYTES, 'this is not an lmdb database. '));
      return file;
    },
    cause: /not an LMDB database|damaged|invalid/i,
  },
  {
    name: 'a database path that cannot be read as a file (a folder is in its place)',
    make: (sandbox) => {
      const file = path.join(sandbox.root, 'unreadable', 'agent-tracker.lmdb');
      fs.mkdirSync(file, { recursive: true });
      return file;
    },
    cause: /directory/i,
  },
  {
    // Root ignores permission bits, so there the folder is made unwritable by a file in its way.
    name: IS_ROOT ? 'an unwritable folder (a file where the folder should be)' : 'an unwritable folder (mode 0500)',
    make: (sandbox) => {
      const folder = path.join(sandbox.root, 'locked');
      if (IS_ROOT) {
        fs.writeFileSync(folder, 'a file, not a folder');
      } else {
        fs.mkdirSync(folder, { mode: 0o500 });
      }
      return path.join(folder, 'agent-tracker.lmdb');
    },
    cause: IS_ROOT ? /EEXIST|ENOTDIR|not a directory|file already exists/i : /EACCES|permission denied/i,
  },
];

describe('tracking turns itself off when the database cannot be used', () => {
  let sandbox: Sandbox;
  let model: FakeModel;

  beforeAll(async () => {
    sandbox = makeSandbox();
    model = await startFakeModel(scriptByPrompt({ 'FAULT-TURN': [bash('echo works > proof.txt'), say(REPLY)] }));
    writeGlobalConfig(sandbox, { modelUrl: model.url });
  });

  afterAll(async () => {
    await model.close();
    if (!IS_ROOT && fs.existsSync(path.join(sandbox.root, 'locked'))) fs.chmodSync(path.join(sandbox.root, 'locked'), 0o700);
    removeSandbox(sandbox);
  });

  it.each(FAULTS.map((fault) => [fault.name, fault] as const))('keeps OpenCode working with %s', async (_name, fault) => {
    const dbPath = fault.make(sandbox);
    const before = isFile(dbPath) ? fs.readFileSync(dbPath) : undefined;
    const repo = makeRepo(sandbox, `repo-${FAULTS.indexOf(fault)}`);

    const run = await runOpencode(sandbox, repo, 'FAULT-TURN: write the proof file', { env: { AGENT_TRACKER_DB_PATH: dbPath } });
    expect(run.code).toBe(0);
    expect(fs.readFileSync(path.join(repo, 'proof.txt'), 'utf8')).toBe('works\n');
    expect(run.stdout).toContain(REPLY);
    // One clear message, naming the path and the cause.
    const offLines = run.stderr.split('\n').filter((line) => OFF_MESSAGE.test(line));
    expect(offLines).toHaveLength(1);
    expect(offLines[0]).toContain(dbPath);
    expect(offLines[0]).toMatch(fault.cause);
    // The user's file is left as it was.
    if (before) expect(fs.readFileSync(dbPath).equals(before)).toBe(true);

    for (const command of [['status'], ['doctor', '--json']]) {
      const cli = runCli(sandbox, command, { AGENT_TRACKER_DB_PATH: dbPath });
      expect(cli.code).toBe(1);
      const lines = cli.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(OFF_MESSAGE);
      expect(lines[0]).toContain(dbPath);
      expect(lines[0]).toMatch(fault.cause);
    }
  });
});

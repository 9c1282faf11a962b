/**
 * The answer of the check's child process (verify.ts, dist/core/store/verify-child.js: `npm run
 * build` first), as the CLI (verifySync) and the plugin (verifyInBackground) receive it: a sound
 * file's counts and schema version with the state that was read; a damaged file's reason; and a
 * child that gave no answer (it could not start, ended without one, or was killed by a signal)
 * never vouches for the file. Real temporary LMDB files and the real child; the child is made to
 * fail the way a broken runtime would, through the environment it inherits (NODE_OPTIONS).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { DEFAULT_RULES } from '../../src/core/rules.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { Store } from '../../src/core/store/store.js';
import { fingerprintOf, verdictOf, verifyInBackground, verifySync } from '../../src/core/store/verify.js';
import type { VerifyResult } from '../../src/core/store/verify.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('agent-tracker-mut-verify-child-');
const SIZE = 64 * 1024 * 1024;
const AT = '2026-03-01T12:00:00.000Z';
const AGENTS = 5;

const savedOptions = process.env.NODE_OPTIONS;
const savedExecPath = process.execPath;
afterEach(() => {
  if (savedOptions === undefined) delete process.env.NODE_OPTIONS;
  else process.env.NODE_OPTIONS = savedOptions;
  process.execPath = savedExecPath;
});

/** A database with AGENTS agents; answers its file and the counts and schema version the store itself reads. */
function database(): { file: string; entries: Record<string, number>; schemaVersion: number } {
  const file = path.join(tempDir(), 'agent-tracker.lmdb');
  const store = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
  store.applyBatch(
    Array.from({ length: AGENTS }, (_, index) => ({ table: 'agents' as const, key: `agent-${index}`, ops: [{ kind: 'xp' as const, amount: 1 }] })),
    DEFAULT_RULES,
    AT,
  );
  const entries = store.counts();
  const schemaVersion = Number(store.tables.meta.get('schemaVersion'));
  store.close();
  return { file, entries, schemaVersion };
}

/** The file with every page after the two meta pages overwritten by noise: its trees lead nowhere sound. */
function damage(file: string): void {
  const pageSize = 4096;
  const bytes = fs.readFileSync(file);
  for (let offset = 2 * pageSize; offset < bytes.length; offset += 1) bytes[offset] = (offset * 131 + 7) % 256;
  fs.writeFileSync(file, bytes);
}

/** The child's runtime loads `script` before the check runs (a broken runtime, a preload that fails). */
function preload(script: string): void {
  const file = path.join(tempDir(), 'preload.cjs');
  fs.writeFileSync(file, script);
  process.env.NODE_OPTIONS = `${savedOptions ?? ''} --require ${file}`.trim();
}

/** The check's folders in the temporary folder, to see that none is left behind. */
function checkFolders(): Set<string> {
  return new Set(fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('agent-tracker-verify-')));
}

/** Runs both ways of checking; answers both results. */
async function bothWays(file: string): Promise<VerifyResult[]> {
  return [verifySync(file), await verifyInBackground(file)];
}

describe("the check's answer", () => {
  it('for a sound file: the counts of every table, the schema version, and the state that was read', async () => {
    const { file, entries, schemaVersion } = database();
    const before = checkFolders();
    for (const result of await bothWays(file)) {
      expect(result).toEqual({ ok: true, schemaVersion, entries, checked: fingerprintOf(file) });
      expect(result.ok && result.entries.agents).toBe(AGENTS);
    }
    // Its own folder for the answer is removed (another run's may come and go meanwhile).
    expect([...checkFolders()].filter((name) => !before.has(name) && fs.existsSync(path.join(os.tmpdir(), name, 'result.json')))).toEqual([]);
  });

  it('for a damaged file: the reason the child gave, and no state vouched for', async () => {
    const { file } = database();
    damage(file);
    expect(fingerprintOf(file)).toBeDefined();
    for (const result of await bothWays(file)) {
      expect(result.ok).toBe(false);
      expect(result).not.toHaveProperty('checked');
      expect(result.ok ? '' : result.cause).toMatch(/^reading it failed: .*page \d+/);
    }
  });

  it('from a child that ended without an answer: its exit code', async () => {
    const { file } = database();
    preload('process.exit(3);');
    for (const result of await bothWays(file)) expect(result).toEqual({ ok: false, cause: 'the test process ended with code 3 and no answer' });
  });

  it('from a child killed by a signal: the signal, even when it wrote an answer first', async () => {
    const { file } = database();
    preload("process.on('exit', () => process.kill(process.pid, 'SIGKILL'));");
    for (const result of await bothWays(file)) expect(result).toEqual({ ok: false, cause: 'reading it crashed a test process with SIGKILL' });
  });

  it('from a child that could not start: no answer, and the reason', async () => {
    const { file } = database();
    const missing = path.join(tempDir(), 'no-such-runtime');
    process.execPath = missing;
    expect(verifySync(file)).toEqual({ ok: false, cause: 'the test process ended with code none and no answer' });
    const result = await verifyInBackground(file);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.cause).toMatch(new RegExp(`^the test process could not start: .*${missing}.*ENOENT`));
  });
});

describe('the verdict on how the check ended', () => {
  const sound = JSON.stringify({ ok: true, schemaVersion: 4, entries: { agents: 2 } });

  it('vouches only by an answer of the child that ended on its own', () => {
    expect(verdictOf(sound, 0, null, false)).toEqual({ ok: true, schemaVersion: 4, entries: { agents: 2 } });
    expect(verdictOf(JSON.stringify({ ok: true }), 0, null, false)).toEqual({ ok: true, schemaVersion: 0, entries: {} });
  });

  it('names a time-out (its bound, 60 s), before the signal that ended the child', () => {
    expect(verdictOf('', null, 'SIGKILL', true)).toEqual({ ok: false, cause: 'reading it took longer than 60 s' });
    expect(verdictOf(sound, null, null, true)).toEqual({ ok: false, cause: 'reading it took longer than 60 s' });
  });

  it('names a crash, whatever was written before it', () => {
    expect(verdictOf(sound, null, 'SIGSEGV', false)).toEqual({ ok: false, cause: 'reading it crashed a test process with SIGSEGV' });
  });

  it('gives the reason of a failed answer, or says none was given', () => {
    expect(verdictOf(JSON.stringify({ ok: false, error: 'page 7 is noise' }), 0, null, false)).toEqual({ ok: false, cause: 'reading it failed: page 7 is noise' });
    expect(verdictOf(JSON.stringify({ ok: 'yes' }), 0, null, false)).toEqual({ ok: false, cause: 'reading it failed: no reason given' });
  });

  it('takes a line that is no answer as none', () => {
    expect(verdictOf('{"ok": tr', 1, null, false)).toEqual({ ok: false, cause: 'the test process ended with code 1 and no answer' });
    expect(verdictOf('', null, null, false)).toEqual({ ok: false, cause: 'the test process ended with code none and no answer' });
  });
});

/**
 * Opening a damaged database file must fail with a clear error, never crash the process (lmdb
 * itself segfaults on such a file, which would take OpenCode down). Each case runs in a child
 * process so that a crash shows up as a signal instead of killing the test runner.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { Store } from '../../src/core/store/store.js';
import { ROOT } from '../helpers/sandbox.js';
import { termIndexer } from '../../src/core/search/indexer.js';

const STORE_MODULE = pathToFileURL(path.join(ROOT, 'dist', 'core', 'store', 'store.js')).href;
const SIZE = 16 * 1024 * 1024;
const CHILD_TIMEOUT_MS = 30_000;

/** Opens the file with the built Store in a child process; returns how it ended and what it said. */
function openInChild(file: string, readOnly: boolean) {
  const script = `
    const { Store } = await import(${JSON.stringify(STORE_MODULE)});
    try {
      Store.open({ path: ${JSON.stringify(file)}, maxDatabaseSize: ${SIZE}, readOnly: ${readOnly} }).close();
      console.log('OPENED');
    } catch (error) {
      console.log(error.name + ': ' + error.message);
    }`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: CHILD_TIMEOUT_MS });
  return { signal: result.signal, code: result.status, said: result.stdout.trim() };
}

describe('a damaged database file', () => {
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-damaged-'));
  });

  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const damaged: [string, () => Buffer][] = [
    ['text', () => Buffer.alloc(64 * 1024, 'not a database ')],
    ['random bytes', () => randomBytes(64 * 1024)],
    ['a few bytes', () => Buffer.from('LMDB')],
  ];

  it.each(damaged)('refuses a file of %s with a clear error, for writing and for reading', (_kind, content) => {
    const file = path.join(dir, 'tracker.lmdb');
    const bytes = content();
    fs.writeFileSync(file, bytes);
    for (const readOnly of [false, true]) {
      const outcome = openInChild(file, readOnly);
      expect(outcome).toMatchObject({ signal: null, code: 0 });
      expect(outcome.said).toMatch(/^StoreProblem: the agent-tracker database at .* is damaged \(.*\): run "agent-tracker repair"/);
      expect(outcome.said).not.toMatch(/move the file aside/i);
    }
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  });

  it('refuses a real database that was cut short', () => {
    const file = path.join(dir, 'tracker.lmdb');
    const store = Store.open({ path: file, maxDatabaseSize: SIZE, indexer: termIndexer });
    store.write((tables) => {
      for (let i = 0; i < 2_000; i += 1) tables.meta.putSync(`key-${i}`, randomBytes(200).toString('hex'));
    });
    store.close();
    fs.truncateSync(file, Math.floor(fs.statSync(file).size / 3));
    const outcome = openInChild(file, false);
    expect(outcome).toMatchObject({ signal: null, code: 0 });
    expect(outcome.said).toMatch(/StoreProblem: .*is damaged \(it is truncated.*agent-tracker repair/);
  });

  it('still opens an empty file and a sound database', () => {
    const empty = path.join(dir, 'empty.lmdb');
    fs.writeFileSync(empty, '');
    expect(openInChild(empty, false).said).toBe('OPENED');
    expect(openInChild(empty, false).said).toBe('OPENED');
    expect(openInChild(empty, true).said).toBe('OPENED');
  });
});

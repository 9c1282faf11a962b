/**
 * The checks made before lmdb sees a path, and the size-limit arithmetic: each fault gives one line
 * with the advice that fits it (repair for damage, a chown for permissions, the room needed for a
 * full disk), and the size bound decides exactly at the limit.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { open } from 'lmdb';
import { LOCK_FILE_BYTES, NEW_FILE_BYTES, preflight } from '../../src/core/store/preflight.js';
import { formatBytes } from '../../src/core/store/problems.js';
import { DOCUMENT_INDEX_FACTOR, encodedBytesBound, FIXED_PAGES, fitsWithin, maxGrowthBytes, usageWarning, WARN_AT_SHARE, WRITE_PATH_PAGES } from '../../src/core/store/size-limit.js';
import { Store } from '../../src/core/store/store.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const PAGE = 4096;

describe('preflight', () => {
  const tempDir = useTempDirs('agent-tracker-preflight-');
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });

  /** A real, healthy database file at `file`. */
  function realDatabase(file: string): void {
    Store.open({ path: file, maxDatabaseSize: 8 * 1024 * 1024 }).close();
  }

  const faults: [string, (dir: string) => string, string | undefined, RegExp | undefined][] = [
    ['a new file in a writable folder', (d) => path.join(d, 'new', 'db.lmdb'), undefined, undefined],
    ['a healthy existing file', (d) => (realDatabase(path.join(d, 'db.lmdb')), path.join(d, 'db.lmdb')), undefined, undefined],
    ['an empty file (fine to write into)', (d) => (fs.writeFileSync(path.join(d, 'db.lmdb'), ''), path.join(d, 'db.lmdb')), undefined, undefined],
    ['a folder in the place of the file', (d) => (fs.mkdirSync(path.join(d, 'db.lmdb')), path.join(d, 'db.lmdb')), 'not-a-file', /a folder is in its place/],
    ['a file in the way of its folder', (d) => (fs.writeFileSync(path.join(d, 'blocker'), 'x'), path.join(d, 'blocker', 'db.lmdb')), 'not-a-file', /ENOTDIR/],
    ['a foreign file', (d) => (fs.writeFileSync(path.join(d, 'db.lmdb'), Buffer.alloc(65536, 'not lmdb ')), path.join(d, 'db.lmdb')), 'damaged', /is damaged \(it is not an LMDB database.*run "agent-tracker repair"/],
    [
      'a truncated file',
      (d) => {
        const file = path.join(d, 'db.lmdb');
        realDatabase(file);
        fs.truncateSync(file, PAGE + 100);
        return file;
      },
      'damaged',
      /is damaged \(it is truncated.*agent-tracker repair/,
    ],
  ];

  it.each(faults)('%s', (_name, make, kind, message) => {
    const problem = preflight({ path: make(dir) });
    expect(problem?.kind).toBe(kind);
    if (message) {
      expect(problem?.message).toMatch(message);
      expect(problem?.message).not.toMatch(/move the file aside/i);
      expect(problem?.message.split('\n')).toHaveLength(1);
    }
  });

  it('says how much room the next write needs when the disk has less', () => {
    const file = path.join(dir, 'db.lmdb');
    const problem = preflight({ path: file, nextWriteBytes: Number.MAX_SAFE_INTEGER / 2 });
    expect(problem?.kind).toBe('disk-full');
    expect(problem?.message).toMatch(/is full: .* free, the next write needs at least .*: free .* or more/);
    // A new file also needs its lock file and first pages.
    expect(problem?.message).toContain(formatBytes(Number.MAX_SAFE_INTEGER / 2 + LOCK_FILE_BYTES + NEW_FILE_BYTES));
  });

  it('needs no room for a reader of a file that has its lock file', () => {
    const file = path.join(dir, 'db.lmdb');
    realDatabase(file);
    expect(preflight({ path: file, readOnly: true, nextWriteBytes: Number.MAX_SAFE_INTEGER })).toBeUndefined();
  });

  it('Store.open refuses with the preflight line and never maps a foreign file', () => {
    const file = path.join(dir, 'db.lmdb');
    fs.writeFileSync(file, Buffer.alloc(65536, 'not lmdb '));
    expect(() => Store.open({ path: file, maxDatabaseSize: 8 * 1024 * 1024 })).toThrow(/agent-tracker repair/);
  });
});

describe('the size limit', () => {
  it.each([
    // values, file bytes → pages: fixed + min(keys × path, existing pages) + data pages
    ['one small record in a new file', [{ bytes: 100, document: false }], 0, FIXED_PAGES + 0 + 1],
    ['one small record in a big file', [{ bytes: 100, document: false }], 100 * PAGE, FIXED_PAGES + WRITE_PATH_PAGES + 1],
    ['a document counts its text for the index too', [{ bytes: PAGE, document: true }], 100 * PAGE, FIXED_PAGES + WRITE_PATH_PAGES + 1 + DOCUMENT_INDEX_FACTOR],
    ['many keys never copy more pages than exist', Array.from({ length: 50 }, () => ({ bytes: 10, document: false })), 3 * PAGE, FIXED_PAGES + 3 + 1],
  ])('%s', (_name, values, fileBytes, pages) => {
    expect(maxGrowthBytes({ values, fileBytes, pageSize: PAGE })).toBe(pages * PAGE);
  });

  it.each([
    [900, 100, 1000, true],
    [901, 100, 1000, false],
    [0, 1000, 1000, true],
  ])('a file of %i plus %i fits within %i: %s', (file, growth, limit, fits) => {
    expect(fitsWithin(file, growth, limit)).toBe(fits);
  });

  it('warns from 80% with how many more sessions fit at the rate so far', () => {
    const limit = 1000_000;
    expect(usageWarning('/db', { fileBytes: limit * WARN_AT_SHARE - 1, limit, sessions: 10 })).toBeUndefined();
    const line = usageWarning('/db', { fileBytes: 800_000, limit, sessions: 100 });
    // 8,000 bytes a session; 200,000 bytes left: 25 sessions.
    expect(line).toMatch(/is 80% full \(800000 of 1000000 bytes.*about 25 more session\(s\) fit.*maxDatabaseSize/);
    expect(usageWarning('/db', { fileBytes: 950_000, limit, sessions: 100 })).toMatch(/95% full.*about 5 more/);
    expect(usageWarning('/db', { fileBytes: limit, limit, sessions: 100 })).toMatch(/100% full.*about 0 more/);
    expect(usageWarning('/db', { fileBytes: limit, limit, sessions: 0 })).toMatch(/no session is recorded yet/);
  });

  describe('the bound of what a value takes stored, from string lengths alone', () => {
    const tempDir = useTempDirs('agent-tracker-size-bound-');
    /** The bytes lmdb stores for each value (uncompressed: compression only shrinks them). */
    function storedBytes(values: readonly unknown[]): number[] {
      const db = open({ path: path.join(tempDir(), 'bound.lmdb'), compression: false });
      try {
        return values.map((value, index) => {
          db.putSync(index, value);
          return db.getBinary(index)?.length ?? Number.POSITIVE_INFINITY;
        });
      } finally {
        void db.close();
      }
    }

    const replayedEvent = (text: string) => ({
      table: 'events',
      key: [`ses_${text}`, `message:msg_${text}`],
      totals: { messages: 1, tokensInput: 123456789012, tokensOutput: 1, cost: 0.1 + 0.2 + 1e-17 },
      session: {
        key: [`ses_${text}`, `agent ${text}`, 'anthropic/claude'],
        init: { sessionId: `ses_${text}`, source: 'backfill', agent: `agent ${text}`, model: 'anthropic/claude', project: `/home/u/${text}`, firstAt: '2025-01-10T09:00:00.000Z', parentSessionId: undefined },
        at: '2025-01-10T09:00:01.000Z',
      },
      agentOps: [{ agent: `agent ${text}`, ops: [{ kind: 'xp', amount: 2 }] }],
    });

    it.each([
      ['a replayed event of plain ids', replayedEvent('abc123')],
      ['quotes, backslashes and control characters', replayedEvent('"\\\u0001\u001f\n')],
      ['non-ASCII text (three bytes a unit) and an emoji (four bytes for two units)', replayedEvent('проект-日本語-🚀'.repeat(20))],
      ['binary postings and nested arrays', { block: Uint8Array.from({ length: 300 }, (_, i) => i % 256), refs: [[1, 'a'], [2, Uint8Array.of(1, 2)]] }],
      ['numbers, booleans and null', [0, -1, 2 ** 40, 1.5, Number.MAX_SAFE_INTEGER, true, false, null]],
    ])('is never below the stored bytes: %s', (_name, value) => {
      const [stored] = storedBytes([value]);
      expect(encodedBytesBound(value)).toBeGreaterThanOrEqual(stored as number);
    });

    it('is never below the stored bytes of any JSON value', () => {
      fc.assert(
        fc.property(fc.array(fc.jsonValue(), { minLength: 1, maxLength: 20 }), (values) => {
          const stored = storedBytes(values);
          values.forEach((value, index) => expect(encodedBytesBound(value)).toBeGreaterThanOrEqual(stored[index] as number));
        }),
        { numRuns: 50 },
      );
    });
  });
});

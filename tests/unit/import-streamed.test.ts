/**
 * An import reads its file piece by piece, twice (checked, then written), and never holds it whole:
 * the pieces join to the file's text with every character whole, the lines and the digest are the
 * ones of the text in memory (so a file imported before is known again), a file that reads
 * differently the second time or grows while read writes nothing, and a merge larger than one
 * indexing batch leaves every document findable.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { boundedRegularFileText, TEXT_CHUNK_BYTES, UnreadableFileError } from '../../src/core/fs/read-bounded.js';
import { chainEntryAt, chainHead } from '../../src/core/integrity/record-chain.js';
import { TermIndexReader } from '../../src/core/search/index/reader.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { QueryService } from '../../src/core/search/service.js';
import { Store } from '../../src/core/store/store.js';
import { exportFileSource, exportTextSource, importExport, importExportFrom } from '../../src/core/store/transfer.js';
import type { ExportSource } from '../../src/core/store/transfer.js';
import { InputError } from '../../src/core/validation.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('agent-tracker-import-streamed-');
const MIB = 1024 * 1024;
const PROJECT = '/p/streamed';
const HEADER = JSON.stringify({ kind: 'header', format: 'agent-tracker-export', version: 3, exportedAt: '2026-11-27T10:00:00.000Z' });

const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

function openTemp(): Store {
  const store = Store.open({ path: path.join(tempDir(), 'db.lmdb'), maxDatabaseSize: 256 * MIB, indexer: termIndexer });
  stores.push(store);
  return store;
}

/** A journal entry line of a current export, at second `n`. */
function activityLine(n: number, task: string): string {
  const timestamp = new Date(Date.UTC(2026, 10, 27, 0, 0, 0, 0) + n * 1000).toISOString();
  const value = { timestamp, task, actions: '', outcome: 'done', decisions: '', agent: 'build', model: 'fake/a', project: PROJECT, automatic: false };
  return JSON.stringify({ kind: 'activities', key: ['build', timestamp, `x${n}`], value });
}

function fileOf(lines: readonly string[], newline = '\n'): string {
  return `${[HEADER, ...lines, JSON.stringify({ kind: 'end', records: lines.length })].join(newline)}${newline}`;
}

function written(text: string): string {
  const file = path.join(tempDir(), 'export.ndjson');
  fs.writeFileSync(file, text);
  return file;
}

const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/** A source whose passes read the texts given, one per pass (the last one again after that). */
function changingSource(...texts: string[]): ExportSource {
  let pass = 0;
  let read: string | undefined;
  return {
    *lines() {
      const text = texts[Math.min(pass, texts.length - 1)] as string;
      pass += 1;
      yield* text.split('\n');
      read = text;
    },
    digest: () => sha256(read ?? ''),
  };
}

describe('reading an export piece by piece', () => {
  it('joins its pieces to the file\'s text, each character whole however the reads split it', () => {
    // Two-, three- and four-byte characters, CRLF line ends and no newline at the very end.
    const text = `${HEADER}\r\n${activityLine(1, 'café ☕ 設計 😀 ünïcode')}\r\n${activityLine(2, '🚀🚀 naïve')}`;
    const file = written(text);
    for (const chunk of [1, 2, 3, 5, 7, 64]) {
      const pieces = [...boundedRegularFileText(file, MIB, chunk)];
      expect(pieces.join('')).toBe(fs.readFileSync(file, 'utf8'));
      expect(pieces.some((piece) => piece.includes('\uFFFD'))).toBe(false);
    }
  });

  it('gives the lines and the digest the same text in memory gives, a line longer than several reads included', () => {
    const long = activityLine(4, `long ${'ü'.repeat(1.5 * MIB)}`);
    const text = fileOf([activityLine(1, 'one'), activityLine(2, 'zwei ü'), '', long, activityLine(3, 'three')], '\r\n');
    expect(Buffer.byteLength(long)).toBeGreaterThan(2 * TEXT_CHUNK_BYTES);
    const file = written(text);
    const source = exportFileSource(file, 8 * MIB);
    expect([...source.lines()]).toEqual(fs.readFileSync(file, 'utf8').split('\n'));
    expect(source.digest()).toBe(sha256(fs.readFileSync(file)));
    expect(exportTextSource(text).digest()).toBe(sha256(fs.readFileSync(file)));
  });

  it('refuses a file that grows while it is read', () => {
    const file = written(fileOf([activityLine(1, 'one'), activityLine(2, 'two')]));
    const pieces = boundedRegularFileText(file, MIB, 16);
    pieces.next();
    fs.appendFileSync(file, `${activityLine(3, 'three')}\n`.repeat(4));
    expect(() => [...pieces]).toThrow(new UnreadableFileError(`${file} grew while it was read; import it again when nothing writes to it`));
    expect(() => [...pieces]).not.toThrow();
  });

  it('reads a file of exactly its bound and refuses a folder and a file one byte over, naming each, before reading', () => {
    const text = activityLine(1, 'exactly');
    const file = written(text);
    const size = Buffer.byteLength(text);
    expect([...boundedRegularFileText(file, size, 64)].join('')).toBe(text);
    expect(() => exportFileSource(file, size - 1)).toThrow(new UnreadableFileError(`${file} is ${size} bytes; at most ${size - 1} are read`));
    const folder = tempDir();
    expect(() => exportFileSource(folder, MIB)).toThrow(new UnreadableFileError(`${folder} is not a regular file (a device, pipe or folder); give the path of an export file`));
    let error: unknown;
    try {
      exportFileSource(folder, MIB);
    } catch (caught) {
      error = caught;
    }
    expect((error as Error).name).toBe('UnreadableFileError');
  });

  it('gives no empty piece, and a text cut inside a character ends as Node reads it (a replacement character)', () => {
    const file = path.join(tempDir(), 'cut.ndjson');
    fs.writeFileSync(file, Buffer.concat([Buffer.from('ab 😀 cd '), Buffer.from('😀').subarray(0, 2)]));
    for (const chunk of [1, 3, 64]) {
      const pieces = [...boundedRegularFileText(file, MIB, chunk)];
      expect(pieces.join('')).toBe(fs.readFileSync(file, 'utf8'));
      expect(pieces.join('').endsWith('\uFFFD')).toBe(true);
      expect(pieces.filter((piece) => piece === '')).toEqual([]);
    }
  });
});

describe('an import from a file', () => {
  it('writes what the same text writes, and knows the file when the text comes again', () => {
    const lines = Array.from({ length: 30 }, (_v, n) => activityLine(n, `task number ${n}`));
    const text = fileOf(lines);
    const fromFile = openTemp();
    const fromText = openTemp();
    const first = importExportFrom(fromFile, exportFileSource(written(text), MIB), 'export.ndjson');
    const second = importExport(fromText, text, 'export.ndjson');
    expect(first).toEqual(second);
    expect(first.added).toBe(30);
    const keys = (store: Store) => [...store.tables.activities.getKeys()];
    expect(keys(fromFile)).toEqual(keys(fromText));
    expect(keys(fromFile)).toHaveLength(30);
    const again = importExport(fromFile, text, 'again.ndjson');
    expect(again.added).toBe(0);
    expect(again.importedBefore).toEqual(expect.any(String));
  });

  it('imports a file with CRLF line ends and blank lines, and chains the agent records it writes', () => {
    const at = '2026-11-27T09:00:00.000Z';
    const agent = { id: 'scout', sp: 3, xp: 0, cs: 60, commits: 0, bugs: 0, halted: false, createdAt: at, updatedAt: at };
    const lines = [HEADER, JSON.stringify({ kind: 'agents', key: 'scout', value: agent }), '', activityLine(1, 'one'), '', JSON.stringify({ kind: 'end', records: 2 })];
    const text = `${lines.join('\r\n')}\r\n`;
    const store = openTemp();
    const result = importExportFrom(store, exportFileSource(written(text), MIB), 'crlf.ndjson');
    expect(result.addedByKind).toMatchObject({ agents: 1, activities: 1 });
    const head = chainHead(store.tables);
    const chained = head ? chainEntryAt(store.tables, head.seq)?.records.map(([table, keyJson]) => `${table} ${keyJson}`) : undefined;
    expect(chained).toEqual(['agents "scout"']);
  });

  it('records the run again when a file imported before adds what the database lost since', () => {
    const text = fileOf([activityLine(1, 'one'), activityLine(2, 'two')]);
    const store = openTemp();
    importExport(store, text, 'first.ndjson');
    const [lost] = [...store.tables.activities.getKeys()];
    store.write((t) => t.activities.removeSync(lost as [string, string, string]));
    const again = importExport(store, text, 'again.ndjson');
    expect(again.added).toBe(1);
    expect(again.importedBefore).toEqual(expect.any(String));
    expect([...store.tables.migrations.getRange()].map(({ value }) => (value as { source: string }).source)).toEqual(['first.ndjson', 'again.ndjson']);
  });

  it('counts only absent records against maxDatabaseSize: the same file again is never refused, new records past the room are, with the size they would reach', () => {
    // Text that does not compress, so the file grows by what the import writes.
    const records = (from: number) => fileOf(Array.from({ length: 200 }, (_v, n) => activityLine(from + n, `work ${randomBytes(500).toString('hex')}`)));
    const text = records(0);
    const reachedIn = (error: unknown): number => Number(/to (\d+) bytes, past maxDatabaseSize/.exec((error as Error).message)?.[1]);
    const refusalOf = (store: Store, file: string): unknown => {
      try {
        importExport(store, file, 'file.ndjson');
      } catch (error) {
        return error;
      }
      return undefined;
    };
    // What a fresh database would reach with this file, told by a refusal; the real limit leaves 100 KB over it.
    const probe = Store.open({ path: path.join(tempDir(), 'probe.lmdb'), maxDatabaseSize: MIB, indexer: termIndexer });
    stores.push(probe);
    const fresh = reachedIn(refusalOf(probe, text));
    expect(fresh).toBeGreaterThan(MIB);
    const limit = fresh + 100 * 1024;
    const store = Store.open({ path: path.join(tempDir(), 'small.lmdb'), maxDatabaseSize: limit, indexer: termIndexer });
    stores.push(store);
    expect(importExport(store, text, 'once.ndjson').added).toBe(200);
    expect(fs.statSync(store.path).size).toBeGreaterThan(200 * 1024);
    expect(importExport(store, text, 'twice.ndjson').added).toBe(0);
    const refusal = refusalOf(store, records(1000));
    expect(refusal).toBeInstanceOf(InputError);
    expect(reachedIn(refusal)).toBeGreaterThan(limit);
    expect(reachedIn(refusal)).toBeGreaterThan(fs.statSync(store.path).size);
  });

  it('writes nothing when the file reads differently the second time', () => {
    const before = fileOf([activityLine(1, 'one'), activityLine(2, 'two')]);
    const edited = fileOf([activityLine(1, 'one'), activityLine(2, 'TWO, edited meanwhile')]);
    const cut = before.slice(0, before.length - 20);
    for (const second of [edited, cut]) {
      const store = openTemp();
      let failure: unknown;
      try {
        importExportFrom(store, changingSource(before, second), 'changing.ndjson');
      } catch (error) {
        failure = error;
      }
      expect(failure).toBeInstanceOf(InputError);
      expect((failure as Error).message).toBe('the file changed while it was imported. Nothing was imported; import it again when nothing writes to it.');
      expect(store.tables.activities.getKeysCount()).toBe(0);
      expect(store.tables.migrations.getKeysCount()).toBe(0);
    }
  });

  it('indexes every document of a merge larger than its indexing batch exactly once, whichever batch a document fell in', () => {
    const batch = 7;
    const count = 2 * batch + 3;
    // A word of its own per document, letters only (digits would split it into parts other documents share).
    const SYLLABLES = ['ka', 'lo', 'mi', 'nu', 'po', 'ra', 'si', 'tu', 'vo', 'we'];
    const word = (n: number) => `zq${[...String(n)].map((digit) => SYLLABLES[Number(digit)]).join('')}`;
    const records = Array.from({ length: count }, (_v, n) => {
      const { key, value } = JSON.parse(activityLine(n, `shared work ${word(n)}`)) as { key: string[]; value: unknown };
      return { table: 'activities' as const, key, value };
    });
    const store = openTemp();
    const merged = store.write(() => store.mergeAbsent(records, batch));
    expect(merged.added).toBe(count);
    expect([...new TermIndexReader(store.tables.terms).documentRefs()]).toHaveLength(count);
    const service = new QueryService(store);
    for (const n of [0, batch - 1, batch, 2 * batch, count - 1]) {
      const found = service.searchPriorArt({ taskDescription: word(n), scope: PROJECT }).positivePatterns.map((match) => match.task);
      expect(found).toEqual([`shared work ${word(n)}`]);
    }
  });
});

/**
 * An import reads its file piece by piece, twice (checked, then written), and never holds it whole:
 * the pieces join to the file's text with every character whole, the lines and the digest are the
 * ones of the text in memory (so a file imported before is known again), a file that reads
 * differently the second time or grows while read writes nothing, and a merge larger than one
 * indexing batch leaves every document findable.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { boundedRegularFileText, TEXT_CHUNK_BYTES, UnreadableFileError } from '../../src/core/fs/read-bounded.js';
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
    expect(() => [...pieces]).toThrow(UnreadableFileError);
    expect(() => [...pieces]).not.toThrow();
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

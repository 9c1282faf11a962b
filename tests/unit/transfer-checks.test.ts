/**
 * What `import` says about a bad export file, line by line, written by hand: the header, the end
 * line, keys, values, git-signal records and the records of files older than grade provenance.
 * Every message names the line and says nothing was imported; nothing is written. Then what an
 * import records (the run, a second import of the same file) and an export of many records.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { exportRecords, importExport, parseExport, parseExportFile } from '../../src/core/store/transfer.js';
import { gitSignalCacheKey } from '../../src/contract/git-signal-cache.js';
import { Store } from '../../src/core/store/store.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { InputError } from '../../src/core/validation.js';

const HEADER = (version: unknown = 3): string => JSON.stringify({ kind: 'header', format: 'agent-tracker-export', version, exportedAt: '2026-11-26T00:00:00.000Z' });
const END = (records: unknown): string => JSON.stringify({ kind: 'end', records });
const PROJECT = { path: '/work/a', language: 'typescript', framework: 'none', scope: 'library', dependencies: ['lmdb'], manifestType: 'package.json', classifiedAt: '2026-11-26T00:00:00.000Z', agentsmdHash: '' };
const projectLine = (key: unknown = '/work/a', value: unknown = PROJECT): string => JSON.stringify({ kind: 'projects', key, value });
const COMMUNICATION = { agent: 'build', commit: 'c'.repeat(40), project: '/work/a', source: 'user', grade: 5, timestamp: '2026-11-26T00:00:00.000Z' };
const communicationLine = (value: Record<string, unknown> = COMMUNICATION): string => JSON.stringify({ kind: 'communication', key: ['build', '2026-11-26T00:00:00.000Z', 'x1'], value });
const signalsLine = (key: unknown, value: unknown): string => JSON.stringify({ kind: 'gitSignals', key, value });

function fileOf(...lines: string[]): string {
  return `${lines.join('\n')}\n`;
}

function problemOf(text: string): string {
  try {
    parseExport(text);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as Error).message;
  }
  throw new Error('the file was accepted');
}

describe('a bad export file is refused, naming the line', () => {
  it.each([
    ['a second header', fileOf(HEADER(), HEADER(), END(0)), 'line 2: a header is allowed only as the first line'],
    ['a header after a record', fileOf(projectLine(), HEADER(), END(1)), 'line 2: a header is allowed only as the first line'],
    ['another format', fileOf(JSON.stringify({ kind: 'header', format: 'csv', version: 3 }), END(0)), 'line 1: not an agent-tracker export (format "csv")'],
    ['a newer version', fileOf(HEADER(4), END(0)), 'line 1: export version 4 is newer than this agent-tracker reads (3); update agent-tracker'],
    ['a version that is not a number', fileOf(HEADER('3'), END(0)), 'line 1: export version "3" is newer than this agent-tracker reads (3); update agent-tracker'],
    ['a line after the end line', fileOf(HEADER(), END(0), projectLine()), 'line 3: there is more after the end line'],
    ['a line that is not an object', fileOf(HEADER(), '[1,2]', END(0)), 'line 2: expected a JSON object with "kind", "key" and "value"'],
    ['an empty text key', fileOf(projectLine(''), END(1)), 'line 1: a projects key must be non-empty text'],
    ['a list where a text key belongs', fileOf(projectLine(['/work/a']), END(1)), 'line 1: a projects key must be non-empty text'],
    ['a key list of the wrong length', fileOf(JSON.stringify({ kind: 'communication', key: ['build', 'x'], value: COMMUNICATION }), END(1)), 'line 1: a communication key must be a list of 3 texts'],
    ['a key list holding a number', fileOf(JSON.stringify({ kind: 'communication', key: ['build', 'x', 3], value: COMMUNICATION }), END(1)), 'line 1: a communication key must be a list of 3 texts'],
    ['a text where a key list belongs', fileOf(JSON.stringify({ kind: 'communication', key: 'build', value: COMMUNICATION }), END(1)), 'line 1: a communication key must be a list of 3 texts'],
    ['a key past 1024 bytes', fileOf(projectLine(`/${'k'.repeat(1030)}`), END(1)), 'line 1: a projects key must be at most 1024 bytes long'],
    ['a value that is not an object', fileOf(projectLine('/work/a', ['x']), END(1)), 'line 1: the value of a projects record must be an object'],
    ['a missing required field', fileOf(projectLine('/work/a', { ...PROJECT, scope: undefined }), END(1)), 'line 1: projects field "scope" must be text, got nothing'],
    ['an optional field of the wrong type', fileOf(communicationLine({ ...COMMUNICATION, provenance: 'boss' }), END(1)), 'line 1: communication field "provenance" must be user, self or agent-reported when present'],
    ['a git-signals record in a version 2 file', fileOf(HEADER(2), signalsLine('/work/a', { head: 'h', counted: {} }), END(1)), 'line 2: gitSignals records need export version 3 or later (this file is version 2)'],
    ['a git-signals record without a project', fileOf(HEADER(), signalsLine('', { head: 'h', counted: {} }), END(1)), 'line 2: a gitSignals key must be a project path'],
    ['a git-signals value without a head', fileOf(HEADER(), signalsLine('/work/a', { counted: {} }), END(1)), 'line 2: a gitSignals value must be {"head": text, "counted": {...}}'],
    ['a git-signals value whose counted is a list', fileOf(HEADER(), signalsLine('/work/a', { head: 'h', counted: [] }), END(1)), 'line 2: a gitSignals value must be {"head": text, "counted": {...}}'],
    [
      'a counted fate that is not two flags',
      fileOf(HEADER(), signalsLine('/work/a', { head: 'h', counted: { abc: { reverted: true, followUpFix: 'no' } } }), END(1)),
      'line 2: each counted fate of a gitSignals record must be {"reverted": true|false, "followUpFix": true|false}',
    ],
    ['a user grade in a file older than provenance', fileOf(HEADER(1), JSON.stringify({ kind: 'userGrades', key: ['/work/a', 'c'], value: {} }), END(1)), 'line 2: userGrades records need export version 2 or later (this file is version 1)'],
  ])('%s', (_name, text, message) => {
    const problem = problemOf(text);
    expect(problem.startsWith(`${message} (`)).toBe(true);
    expect(problem.endsWith('). Nothing was imported.')).toBe(true);
  });

  it('quotes a long bad line cut at 80 characters, and a short one whole', () => {
    const long = projectLine('/work/a', { ...PROJECT, language: 7, framework: 'x'.repeat(100) });
    expect(problemOf(fileOf(long))).toBe(`line 1: projects field "language" must be text, got 7 (${long.slice(0, 80)}…). Nothing was imported.`);
    expect(problemOf(fileOf('[1]'))).toBe('line 1: expected a JSON object with "kind", "key" and "value" ([1]). Nothing was imported.');
  });

  it('takes a key of exactly 1024 bytes', () => {
    // 1022 characters, 1024 with the quotes of its JSON.
    const key = `/${'k'.repeat(1021)}`;
    expect(parseExport(fileOf(projectLine(key, { ...PROJECT, path: key }))).map((record) => record.key)).toEqual([key]);
  });

  it('skips blank lines, and reads a file without header and end line', () => {
    expect(parseExport(`\n${projectLine()}\n   \n`).map((record) => record.key)).toEqual(['/work/a']);
    expect(parseExport(fileOf(HEADER(), '', projectLine(), END(1)))).toHaveLength(1);
  });
});

describe('a file older than grade provenance', () => {
  it('reads its communication grades as relayed by an agent, or as self-graded when the agent gave them', () => {
    const records = parseExport(
      fileOf(
        HEADER(1),
        communicationLine({ ...COMMUNICATION, provenance: 'user' }),
        JSON.stringify({ kind: 'communication', key: ['build', '2026-11-26T00:00:01.000Z', 'x2'], value: { ...COMMUNICATION, timestamp: '2026-11-26T00:00:01.000Z', source: 'agent' } }),
        END(2),
      ),
    );
    expect(records.map((record) => record.value.provenance)).toEqual(['agent-reported', 'self']);
  });

  it('reads a file without a header as that oldest version', () => {
    expect(parseExport(fileOf(communicationLine({ ...COMMUNICATION, provenance: 'user' })))[0]?.value.provenance).toBe('agent-reported');
    expect(() => parseExport(fileOf(JSON.stringify({ kind: 'userGrades', key: ['/work/a', 'c'], value: {} })))).toThrow('userGrades records need export version 2 or later (this file is version 1)');
  });

  it('keeps the communication grades of a current file as they are', () => {
    expect(parseExport(fileOf(HEADER(2), communicationLine({ ...COMMUNICATION, provenance: 'user' }), END(1)))[0]?.value.provenance).toBe('user');
  });
});

describe('importing', () => {
  const dirs: string[] = [];
  const stores: Store[] = [];
  afterEach(() => {
    for (const store of stores.splice(0)) store.close();
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });
  function openTemp(): Store {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-transfer-'));
    dirs.push(dir);
    const store = Store.open({ path: path.join(dir, 'db.lmdb'), maxDatabaseSize: 64 * 1024 * 1024, indexer: termIndexer });
    stores.push(store);
    return store;
  }

  it('records each import of a new file, and tells when the same file came before', () => {
    const store = openTemp();
    const text = fileOf(HEADER(), projectLine(), END(1));
    const first = importExport(store, text, 'team.ndjson', () => new Date('2026-11-26T01:00:00.000Z'));
    expect(first).toEqual({ source: 'team.ndjson', added: 1, skipped: 0, addedByKind: { agents: 0, sessions: 0, commits: 0, communication: 0, retrospectives: 0, activities: 0, projects: 1, userGrades: 0 }, gitSignals: 0, pooledSheets: [] });
    const again = importExport(store, text, 'team-again.ndjson', () => new Date('2026-11-26T02:00:00.000Z'));
    expect([again.added, again.skipped, again.importedBefore]).toEqual([0, 1, '2026-11-26T01:00:00.000Z']);
    // The run that added nothing is not recorded.
    const runs = [...store.tables.migrations.getRange()].map(({ value }) => value as { source: string; added: number });
    expect(runs.map((run) => [run.source, run.added])).toEqual([['team.ndjson', 1]]);
  });

  it('records the first import of a file that adds nothing new, and how a user-only import came', () => {
    const store = openTemp();
    store.putRecords([{ table: 'projects', key: '/work/a', value: PROJECT }]);
    const provenance = { action: 'import', via: 'terminal-tty' as const, suspect: false };
    const result = importExport(store, fileOf(HEADER(), projectLine(), END(1)), 'known.ndjson', () => new Date('2026-11-26T01:00:00.000Z'), provenance);
    expect([result.added, result.skipped]).toEqual([0, 1]);
    const runs = [...store.tables.migrations.getRange()].map(({ value }) => value as { source: string; added: number; userAction?: unknown });
    expect(runs.map((run) => [run.source, run.added, run.userAction])).toEqual([['known.ndjson', 0, provenance]]);
  });

  it("merges a project's git-signal bookkeeping with the database's own: a fate counted in either stays counted", () => {
    const store = openTemp();
    store.write((tables) => tables.meta.putSync(gitSignalCacheKey('/work/a'), { head: 'h1', counted: { aaa: { reverted: true, followUpFix: false } } }));
    const text = fileOf(HEADER(), signalsLine('/work/a', { head: 'h1', counted: { aaa: { reverted: false, followUpFix: true }, bbb: { reverted: false, followUpFix: false } } }), END(1));
    expect(parseExportFile(text).gitSignals).toHaveLength(1);
    importExport(store, text, 'signals.ndjson');
    expect(store.tables.meta.get(gitSignalCacheKey('/work/a'))).toEqual({ head: 'h1', counted: { aaa: { reverted: true, followUpFix: true }, bbb: { reverted: false, followUpFix: false } } });
  });
});

describe('exporting', () => {
  it('writes every record once, in chunks of whole lines, and counts them by kind', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-transfer-'));
    const store = Store.open({ path: path.join(dir, 'db.lmdb'), maxDatabaseSize: 64 * 1024 * 1024, indexer: termIndexer });
    try {
      const paths = Array.from({ length: 1100 }, (_v, i) => `/work/p${String(i).padStart(4, '0')}`);
      store.putRecords(paths.map((key) => ({ table: 'projects' as const, key, value: { ...PROJECT, path: key } })));
      store.write((tables) => tables.meta.putSync(gitSignalCacheKey('/work/p0000'), { head: 'h', counted: {} }));
      const chunks: string[] = [];
      const summary = exportRecords(store, (chunk) => chunks.push(chunk), () => new Date('2026-11-26T03:00:00.000Z'));
      expect(chunks.length).toBeGreaterThan(2);
      expect(chunks.every((chunk) => chunk.endsWith('\n'))).toBe(true);
      const lines = chunks.join('').trimEnd().split('\n');
      expect(lines[0]).toBe('{"kind":"header","format":"agent-tracker-export","version":3,"exportedAt":"2026-11-26T03:00:00.000Z"}');
      expect(lines.slice(1, -2).map((line) => (JSON.parse(line) as { key: string }).key)).toEqual(paths);
      expect(lines.at(-2)).toBe('{"kind":"gitSignals","key":"/work/p0000","value":{"head":"h","counted":{}}}');
      expect(lines.at(-1)).toBe('{"kind":"end","records":1101}');
      expect([summary.records, summary.byKind.projects, summary.byKind.agents, summary.gitSignals]).toEqual([1101, 1100, 0, 1]);
    } finally {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

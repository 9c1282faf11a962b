import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Store } from '../../src/core/store/store.js';
import { tableNamed } from '../../src/core/store/store.js';
import { EXPORT_KINDS, exportRecords, importExport, parseExport } from '../../src/core/store/transfer.js';
import { InputError } from '../../src/core/validation.js';
import { CLI, makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';
import { block, profile, recordHistory, storeProfiles } from '../helpers/synthetic-history.js';

function exportText(store: Store): string {
  let text = '';
  exportRecords(store, (chunk) => (text += chunk));
  return text;
}

/** The record lines of an export: everything but the header (which carries the export time). */
function recordLines(text: string): string[] {
  return text.trimEnd().split('\n').slice(1);
}

function counts(store: Store): Record<string, number> {
  return Object.fromEntries([...EXPORT_KINDS, 'migrations' as const].map((kind) => [kind, tableNamed(store.tables, kind).getKeysCount()]));
}

describe('export and import', () => {
  let source: TempTracker;
  let target: TempTracker;

  beforeEach(() => {
    source = tempTracker();
    target = tempTracker();
    storeProfiles(source.store, source.config, [profile('/p/rust', 'rust', 'axum', 'api', ['tokio'])]);
    recordHistory(
      [
        block({ agent: 'build', model: 'anthropic/claude', project: '/p/rust', sessions: 3, bugs: 1, grades: [[5, 2]] }),
        block({ agent: 'plan', model: 'openai/gpt', project: '/p/web', sessions: 2, commitsPerSession: 1, grades: [] }),
      ],
      { store: source.store, config: source.config },
    );
    source.service.logActivity({ agent: 'build', project: '/p/rust', task: 'wrote the "release" notes, with commas', outcome: 'done' });
    source.service.flush('test');
  });
  afterEach(() => {
    source.dispose();
    target.dispose();
  });

  it('exports every record with its kind and key, and an import into an empty database exports the same', () => {
    const first = exportText(source.store);
    const lines = recordLines(first);
    const kinds = new Set(lines.slice(0, -1).map((line) => (JSON.parse(line) as { kind: string }).kind));
    expect(kinds).toEqual(new Set(EXPORT_KINDS));
    for (const kind of EXPORT_KINDS) {
      expect(lines.filter((line) => line.startsWith(`{"kind":"${kind}"`))).toHaveLength(tableNamed(source.store.tables, kind).getKeysCount());
    }

    const result = importExport(target.store, first, 'first.ndjson');
    expect(result.added).toBe(lines.length - 1);
    expect(result.skipped).toBe(0);
    expect(recordLines(exportText(target.store))).toEqual(lines);
  });

  it('adds nothing when the same file is imported twice, or into the database it came from', () => {
    const text = exportText(source.store);
    importExport(target.store, text, 'a.ndjson');
    const after = counts(target.store);
    const again = importExport(target.store, text, 'a.ndjson');
    expect(again.added).toBe(0);
    expect(again.skipped).toBe(recordLines(text).length - 1);
    expect(again.importedBefore).toBeDefined();
    expect(counts(target.store)).toEqual(after);
    const home = importExport(source.store, text, 'own.ndjson');
    expect(home.added).toBe(0);
  });

  it('merges only absent keys: a record the database has keeps its own value (agent sheets are pooled: pooled-sheets.test.ts)', () => {
    const text = exportText(source.store);
    const local = { ...profile('/p/rust', 'go', 'gin', 'cli'), classifiedAt: '2026-01-01T00:00:00.000Z' };
    storeProfiles(target.store, target.config, [local]);
    importExport(target.store, text, 'merge.ndjson');
    expect(target.store.tables.projects.get('/p/rust')).toEqual(local);
    expect(target.store.tables.usage.getKeysCount()).toBe(source.store.tables.usage.getKeysCount());
  });

  it('keeps the prior-art index in step with what it imports', () => {
    expect(target.store.tables.terms.getKeysCount()).toBe(0);
    importExport(target.store, exportText(source.store), 'index.ndjson');
    expect(target.store.tables.terms.getKeysCount()).toBeGreaterThan(0);
  });

  describe('a bad file writes nothing and names the line', () => {
    const corrupt = (text: string, lineNumber: number, edit: (line: string) => string) =>
      text
        .split('\n')
        .map((line, i) => (i === lineNumber - 1 ? edit(line) : line))
        .join('\n');

    const cases: [string, (text: string) => string, RegExp][] = [
      ['broken JSON', (text) => corrupt(text, 4, (line) => line.slice(0, 20)), /^line 4: not valid JSON/],
      ['an unknown kind', (text) => corrupt(text, 3, (line) => line.replace(/^\{"kind":"[a-z]+"/, '{"kind":"widgets"')), /^line 3: unknown kind "widgets"/],
      [
        'a field of the wrong type',
        (text) => {
          const index = text.split('\n').findIndex((line) => line.startsWith('{"kind":"commits"'));
          return corrupt(text, index + 1, (line) => line.replace(/"insertions":\d+/, '"insertions":"many"'));
        },
        /^line \d+: commits field "insertions" must be a finite number, got "many"/,
      ],
      [
        'a key that does not match its record',
        (text) => {
          const index = text.split('\n').findIndex((line) => line.startsWith('{"kind":"retrospectives"'));
          return corrupt(text, index + 1, (line) => line.replace(/"key":\["build"/, '"key":["plan"'));
        },
        /^line \d+: the key \["plan",.*does not match the record/,
      ],
      ['a bad grade', (text) => text.replace(/"agent_grade":5/, '"agent_grade":4'), /field "agent_grade" must be a grade/],
      ['a file cut short', (text) => text.split('\n').slice(0, 6).join('\n'), /ends without its end line after 5 records: it was cut short/],
      ['a wrong record count', (text) => text.replace(/"kind":"end","records":\d+/, '"kind":"end","records":2'), /the end line counts 2 records but the file holds \d+/],
      ['an empty file', () => '', /holds no header and no record: it is empty/],
      ['blank lines only', () => '\n\n  \n', /holds no header and no record: it is empty/],
    ];

    it.each(cases)('%s', (_name, damage, message) => {
      const text = damage(exportText(source.store));
      const before = counts(target.store);
      expect(() => importExport(target.store, text, 'bad.ndjson')).toThrow(InputError);
      expect(() => parseExport(text)).toThrow(message);
      expect(counts(target.store)).toEqual(before);
    });
  });

  it('round-trips through the built CLI: export FILE, export to stdout, import FILE twice, and a clear error', () => {
    const sandbox = makeSandbox();
    try {
      source.store.close();
      const file = path.join(sandbox.root, 'history.ndjson');
      const exported = runCli(sandbox, ['export', file, '--db', source.config.databasePath]);
      expect(exported.stderr).toBe('');
      expect(exported.stdout).toMatch(/^Exported \d+ records to /);
      // The sessions table's lines are usage records (session × agent × model), and the summary says so.
      const usageLines = recordLines(fs.readFileSync(file, 'utf8')).filter((line) => (JSON.parse(line) as { kind: string }).kind === 'sessions').length;
      expect(usageLines).toBeGreaterThan(0);
      expect(exported.stdout).toContain(`, ${usageLines} usage records (one per session × agent × model), `);
      const stdout = runCli(sandbox, ['export', '--db', source.config.databasePath]);
      expect(recordLines(stdout.stdout)).toEqual(recordLines(fs.readFileSync(file, 'utf8')));

      const empty = path.join(sandbox.root, 'empty.lmdb');
      const first = runCli(sandbox, ['import', file, '--db', empty, '--json']);
      expect(first.code).toBe(0);
      const records = recordLines(fs.readFileSync(file, 'utf8')).length - 1;
      expect((JSON.parse(first.stdout) as { added: number }).added).toBe(records);
      const second = runCli(sandbox, ['import', file, '--db', empty]);
      expect(second.stdout).toMatch(new RegExp(`^Imported 0 records from .*; ${records} were already present\\. The same export was first imported at `));
      const reexported = runCli(sandbox, ['export', '--db', empty]);
      expect(recordLines(reexported.stdout)).toEqual(recordLines(stdout.stdout));

      // From standard input (`export | import -`): the same records, named as such, and no temporary file left.
      const piped = path.join(sandbox.root, 'piped.lmdb');
      const tmp = path.join(sandbox.root, 'import-tmp');
      fs.mkdirSync(tmp);
      const run = (input: string) =>
        spawnSync(process.execPath, [CLI, 'import', '-', '--db', piped], { input, cwd: sandbox.root, env: { ...sandbox.env, TMPDIR: tmp }, encoding: 'utf8', timeout: 60_000 });
      const fromStdin = run(stdout.stdout);
      expect(fromStdin.stderr).toBe('');
      expect(fromStdin.stdout).toMatch(new RegExp(`^Imported ${records} records from standard input \\(`));
      expect(run(stdout.stdout).stdout).toMatch(new RegExp(`^Imported 0 records from standard input; ${records} were already present\\. The same export was first imported at `));
      expect(recordLines(runCli(sandbox, ['export', '--db', piped]).stdout)).toEqual(recordLines(stdout.stdout));
      expect(fs.readdirSync(tmp)).toEqual([]);
      const cut = run(stdout.stdout.split('\n').slice(0, 4).join('\n'));
      expect(cut.status).toBe(1);
      expect(cut.stderr).toMatch(/^agent-tracker import: standard input: .*cut short.*Nothing was imported\.\n$/);
      expect(fs.readdirSync(tmp)).toEqual([]);
      // An empty stream (`ssh laptop agent-tracker export | agent-tracker import -` when ssh failed) is no export.
      const nothing = run('');
      expect({ code: nothing.status, stderr: nothing.stderr }).toEqual({ code: 1, stderr: expect.stringMatching(/^agent-tracker import: standard input: .*it is empty.*Nothing was imported\.\n$/) });

      const bad = path.join(sandbox.root, 'bad.ndjson');
      fs.writeFileSync(bad, '{"kind":"agents","key":"x","value":{}}\n');
      const refused = runCli(sandbox, ['import', bad, '--db', empty]);
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim().split('\n')).toEqual([
        `agent-tracker import: ${bad}: line 1: agents field "id" must be text, got nothing ({"kind":"agents","key":"x","value":{}}). Nothing was imported.`,
      ]);
    } finally {
      removeSandbox(sandbox);
    }
  });
});

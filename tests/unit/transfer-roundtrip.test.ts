/**
 * Export then import into a fresh database gives the same answer: every figure of the report, for
 * every grouping, on generated histories and on a real repository whose commits were reverted and
 * followed by fixes (the signals an import used to count a second time).
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { refreshGitSignals } from '../../src/core/outcomes/git-outcomes.js';
import { loadHistory } from '../../src/core/report/history.js';
import { buildReport, REPORT_GROUPINGS } from '../../src/core/report/report.js';
import type { Store } from '../../src/core/store/store.js';
import { exportRecords, importExport } from '../../src/core/store/transfer.js';
import type { Grade } from '../../src/core/types.js';
import { block, recordHistory } from '../helpers/synthetic-history.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const opened: TempTracker[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const t of opened.splice(0)) t.dispose();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tracker(project?: string): TempTracker {
  const t = tempTracker({}, project);
  opened.push(t);
  return t;
}

function exportText(store: Store): string {
  let text = '';
  exportRecords(store, (chunk) => (text += chunk));
  return text;
}

/** Every report a user can ask for, as plain data. */
function everyReport(store: Store): unknown {
  const history = loadHistory(store);
  return Object.fromEntries(REPORT_GROUPINGS.map((by) => [by, buildReport(history, by)]));
}

describe('export → import', () => {
  it('keeps every report figure of a generated history', () => {
    const grade = fc.constantFrom<Grade>(-1, 1, 2, 5);
    const work = fc.record({
      agent: fc.constantFrom('build', 'plan', 'general'),
      model: fc.constantFrom('fake/a', 'fake/b'),
      project: fc.constantFrom('/p/one', '/p/two'),
      sessions: fc.integer({ min: 1, max: 3 }),
      commitsPerSession: fc.integer({ min: 0, max: 2 }),
      toolCallsPerSession: fc.integer({ min: 1, max: 4 }),
      failuresPerSession: fc.integer({ min: 0, max: 1 }),
      bugs: fc.integer({ min: 0, max: 1 }),
      pushesPerSession: fc.integer({ min: 0, max: 1 }),
      costPerSession: fc.double({ min: 0, max: 2, noNaN: true }),
      grades: fc.array(fc.tuple(grade, grade), { maxLength: 2 }),
    });
    fc.assert(
      fc.property(fc.array(work, { minLength: 1, maxLength: 3 }), (blocks) => {
        const source = tracker();
        const target = tracker();
        recordHistory(blocks.map((b) => block(b)), { store: source.store, config: source.config });
        importExport(target.store, exportText(source.store), 'roundtrip.ndjson');
        expect(everyReport(target.store)).toEqual(everyReport(source.store));
        source.dispose();
        target.dispose();
        opened.splice(0);
      }),
      { numRuns: 12 },
    );
  });

  it('counts a revert and a follow-up fix once, also when the imported database reads the repository again', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-roundtrip-')));
    dirs.push(dir);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
    git('init', '-q', '-b', 'main');
    git('config', 'user.email', 't@example.com');
    git('config', 'user.name', 'T');
    const commitFile = (file: string, text: string, message: string) => {
      fs.writeFileSync(path.join(dir, file), text);
      git('add', '-A');
      git('commit', '-qm', message);
      return git('rev-parse', 'HEAD');
    };
    const lines = (changed: Record<number, string> = {}) => Array.from({ length: 12 }, (_v, i) => changed[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';
    commitFile('a.txt', lines(), 'init');
    const made = [
      commitFile('b.txt', 'b\n', 'feat: b'),
      commitFile('a.txt', lines({ 3: 'three' }), 'feat: three'),
      commitFile('c.txt', 'c\n', 'feat: c'),
      commitFile('d.txt', 'd\n', 'feat: d'),
    ];
    commitFile('a.txt', lines({ 3: 'THREE' }), 'fix: three was wrong');
    git('revert', '--no-edit', made[0] as string);

    const source = tracker(dir);
    source.service.noteSession('s1', { project: dir });
    source.service.noteModelRequest('s1', 'build', 'fake/a');
    source.service.recordCommits('s1', made.map((hash) => ({ hash, message: 'work', files: ['x'], insertions: 1, deletions: 0, timestamp: '2025-01-01T00:00:00.000Z' })));
    expect(source.service.endTurn('s1').ok).toBe(true);
    expect(await refreshGitSignals(source.service, dir)).toBe(2);
    source.service.flush('signals');
    const before = everyReport(source.store);
    const row = buildReport(loadHistory(source.store)).rows[0];
    // The figures the test expects, counted by hand: 4 commits, 1 reverted, 1 followed by a fix.
    expect([row?.commits, row?.revertRate, row?.followUpFixRate]).toEqual([4, 1 / 4, 1 / 4]);

    const target = tracker(dir);
    importExport(target.store, exportText(source.store), 'roundtrip.ndjson');
    // `report` and `recommend` refresh the signals before they answer: nothing may count again.
    expect(await refreshGitSignals(target.service, dir)).toBe(0);
    target.service.flush('signals');
    expect(everyReport(target.store)).toEqual(before);
    // A new commit moves HEAD: the branch is read again, still nothing counted twice.
    commitFile('e.txt', 'e\n', 'chore: e');
    expect(await refreshGitSignals(target.service, dir)).toBe(0);
    target.service.flush('signals');
    expect(everyReport(target.store)).toEqual(before);
  });
});

/**
 * An import refuses a record whose key does not say what its value is: a commit keyed under another
 * project, a usage record under another model, a grade under another agent would each be counted where
 * it does not belong. Every kind of record an export holds is checked, one key part at a time; the free
 * suffix of a journal key (or a grade event's) is the one part a file may choose. Then the type of each
 * kind of field: a wrong one is refused by name, a right optional one is taken.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { exportRecords, parseExport } from '../../src/core/store/transfer.js';
import { InputError } from '../../src/core/validation.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const PROJECT = '/work/keys';
const HASH = 'b'.repeat(40);

interface Line {
  kind: string;
  key: string | string[];
  value: Record<string, unknown>;
}

/**
 * The key parts the export format ties to the value, per kind, as `[key index, value field]`
 * (docs of the export format: agents by id, projects by path, sessions by session/agent/model, ...).
 */
const TIED: Record<string, [number, string][]> = {
  agents: [[0, 'id']],
  projects: [[0, 'path']],
  sessions: [
    [0, 'sessionId'],
    [1, 'agent'],
    [2, 'model'],
  ],
  commits: [
    [0, 'project'],
    [1, 'hash'],
  ],
  communication: [
    [0, 'agent'],
    [1, 'timestamp'],
  ],
  retrospectives: [
    [0, 'agent'],
    [1, 'commit'],
  ],
  activities: [
    [0, 'agent'],
    [1, 'timestamp'],
  ],
  userGrades: [
    [0, 'project'],
    [1, 'commit'],
  ],
};

let t: TempTracker;
afterEach(() => t?.dispose());

/** A history holding one record or more of every kind, exported and read back as plain lines. */
function historyLines(): Line[] {
  t = tempTracker({}, PROJECT);
  const { service, store } = t;
  service.noteModelRequest('s1', 'build', 'fake/a');
  service.recordToolCall('s1', 'c1', 'bash', true);
  service.recordCommits('s1', [{ hash: HASH, message: 'feat: keys', files: ['src/keys.ts'], insertions: 2, deletions: 0, timestamp: '2026-11-26T09:00:00.000Z' }]);
  service.gradeCommit({ sessionId: 's1', agent: 'build', project: PROJECT, commit: HASH, agentGrade: 2, task: 'keys', agentNote: 'ok' });
  service.logActivity({ agent: 'build', project: PROJECT, sessionId: 's1', task: 'wrote the keys' });
  service.flush('test');
  service.gradeAsUser({ project: PROJECT, commit: HASH, grade: 5, via: 'cli' });
  store.putRecords([
    {
      table: 'projects',
      key: PROJECT,
      value: { path: PROJECT, language: 'typescript', framework: 'none', scope: 'library', dependencies: [], manifestType: 'package.json', classifiedAt: '2026-11-26T09:00:00.000Z', agentsmdHash: '' },
    },
  ]);
  let text = '';
  exportRecords(store, (chunk) => (text += chunk));
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Line)
    .filter((line) => line.kind in TIED);
}

const HEADER = JSON.stringify({ kind: 'header', format: 'agent-tracker-export', version: 3, exportedAt: '2026-11-26T10:00:00.000Z' });

/** A current-version file of `lines`: the header, then one record a line, then the end line with their count. */
function fileOf(lines: readonly Line[]): string {
  return `${[HEADER, ...lines.map((line) => JSON.stringify(line)), JSON.stringify({ kind: 'end', records: lines.length })].join('\n')}\n`;
}

function problemOf(text: string): string | undefined {
  try {
    parseExport(text);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as Error).message;
  }
}

describe('the key of an imported record', () => {
  it('must name what its value is: each tied part changed is refused, naming the line and the key expected', () => {
    const lines = historyLines();
    expect(new Set(lines.map((line) => line.kind))).toEqual(new Set(Object.keys(TIED)));
    // The file as exported reads whole.
    expect(problemOf(fileOf(lines))).toBeUndefined();
    let checked = 0;
    lines.forEach((line, index) => {
      const parts = typeof line.key === 'string' ? [line.key] : line.key;
      const expected = TIED[line.kind]!.map(([, field]) => line.value[field]);
      for (const [part] of TIED[line.kind]!) {
        const changed = parts.map((value, i) => (i === part ? `${value}x` : value));
        const key = typeof line.key === 'string' ? changed[0]! : changed;
        const bad = lines.map((other, i) => (i === index ? { ...line, key } : other));
        const raw = JSON.stringify(bad[index]);
        const quoted = raw.length > 80 ? `${raw.slice(0, 80)}…` : raw;
        expect(problemOf(fileOf(bad))).toBe(
          `line ${index + 2}: the key ${JSON.stringify(key)} does not match the record (expected it to start with ${JSON.stringify(expected)}) (${quoted}). Nothing was imported.`,
        );
        checked += 1;
      }
    });
    expect(checked).toBeGreaterThanOrEqual(15);
  });

  it('may end in any suffix where the format leaves one free (journal entries and grade events)', () => {
    const lines = historyLines();
    const free = lines.map((line) => (line.kind === 'activities' || line.kind === 'communication' ? { ...line, key: [line.key[0]!, line.key[1]!, 'another-suffix'] } : line));
    expect(free.filter((line) => Array.isArray(line.key) && line.key[2] === 'another-suffix').length).toBeGreaterThanOrEqual(3);
    const records = parseExport(fileOf(free));
    expect(records.map((record) => record.key)).toEqual(free.map((line) => line.key));
  });
});

describe('the type of an imported field', () => {
  /** The exported line of `kind` with `field` set to `value` (undefined: left out). */
  function withField(lines: readonly Line[], kind: string, field: string, value: unknown): Line[] {
    const index = lines.findIndex((line) => line.kind === kind);
    expect(index).toBeGreaterThanOrEqual(0);
    return lines.map((line, i) => (i === index ? { ...line, value: { ...line.value, [field]: value } } : line));
  }

  it.each<[string, string, unknown, string]>([
    ['commits', 'insertions', 'many', 'must be a finite number, got "many"'],
    // JSON reads 1e999 as Infinity, which JSON writes as null.
    ['commits', 'insertions', '1e999', 'must be a finite number, got null'],
    ['agents', 'halted', 'no', 'must be true or false, got "no"'],
    ['agents', 'halted', 0, 'must be true or false, got 0'],
    ['commits', 'files', 'src/keys.ts', 'must be a list of texts, got "src/keys.ts"'],
    ['commits', 'files', ['src/keys.ts', 3], 'must be a list of texts, got ["src/keys.ts",3]'],
    ['retrospectives', 'agent_grade', 3, 'must be a grade (-1, 1, 2 or 5), got 3'],
    ['userGrades', 'provenance', 'boss', 'must be user, self or agent-reported, got "boss"'],
    ['userGrades', 'provenance', 'agent', 'must be user, self or agent-reported, got "agent"'],
  ])('%s field "%s" holding %j is refused', (kind, field, value, wrong) => {
    const lines = historyLines();
    const bad = withField(lines, kind, field, value === '1e999' ? 0 : value);
    const index = bad.findIndex((line) => line.kind === kind);
    let text = fileOf(bad);
    // Infinity has no JSON: write the number JSON reads as it.
    if (value === '1e999') text = text.replace(`"${field}":0`, `"${field}":1e999`);
    const problem = problemOf(text);
    expect(problem?.startsWith(`line ${index + 2}: ${kind} field "${field}" ${wrong} (`)).toBe(true);
  });

  it.each<[string, string, unknown, string]>([
    ['commits', 'noCredit', 'bogus', 'must be one of no-file-changes, merge, whitespace-only, same-change, self-revert, turn-limit when present'],
    ['retrospectives', 'user_grade', 4, 'must be a grade (-1, 1, 2 or 5) when present'],
    ['retrospectives', 'outcomeCounted', 'yes', 'must be true or false when present'],
    ['activities', 'files', [1], 'must be a list of texts when present'],
  ])('optional %s field "%s" holding %j is refused', (kind, field, value, wrong) => {
    const bad = withField(historyLines(), kind, field, value);
    const index = bad.findIndex((line) => line.kind === kind);
    expect(problemOf(fileOf(bad))?.startsWith(`line ${index + 2}: ${kind} field "${field}" ${wrong} (`)).toBe(true);
  });

  it.each<[string, string, unknown]>([
    ['commits', 'noCredit', 'turn-limit'],
    ['commits', 'noCredit', 'merge'],
    ['retrospectives', 'user_grade', -1],
    ['sessions', 'parentSessionId', 'ses_parent'],
    ['activities', 'files', ['docs/a.md', 'src/b.ts']],
  ])('a %s field "%s" of %j is taken as it is', (kind, field, value) => {
    const records = parseExport(fileOf(withField(historyLines(), kind, field, value)));
    expect(records.find((record) => record.kind === kind)?.value[field]).toEqual(value);
  });
});

describe('a damaged file', () => {
  /** The problem of the exported file (header, records, end line) with its lines changed by `edit`. */
  function problemWith(edit: (lines: string[]) => string[]): string | undefined {
    return problemOf(`${edit(fileOf(historyLines()).trimEnd().split('\n')).join('\n')}\n`);
  }

  it('names a line that is not JSON, with what JSON says about it', () => {
    const problem = problemWith((lines) => lines.map((line, i) => (i === 3 ? line.slice(0, 20) : line)));
    expect(problem).toMatch(/^line 4: not valid JSON: .+ \(\{"kind":.{1,20}\)\. Nothing was imported\.$/);
  });

  it('names a record of a kind it does not know, and lists the kinds it does', () => {
    const problem = problemWith((lines) => lines.map((line, i) => (i === 2 ? line.replace(/^\{"kind":"[A-Za-z]+"/, '{"kind":"widgets"') : line)));
    expect(problem?.startsWith('line 3: unknown kind "widgets"; expected one of agents, sessions, commits, communication, retrospectives, activities, projects, userGrades (')).toBe(true);
    const noKind = problemWith((lines) => lines.map((line, i) => (i === 2 ? line.replace(/^\{"kind":"[A-Za-z]+",/, '{') : line)));
    expect(noKind?.startsWith('line 3: unknown kind undefined; expected one of agents,')).toBe(true);
  });

  it('says a file cut short after its header was cut, with how many records it read', () => {
    const problem = problemWith((lines) => lines.slice(0, 6));
    expect(problem).toBe('the export ends without its end line after 5 records: it was cut short. Nothing was imported.');
  });

  it('names an end line whose count is not the number of records the file holds', () => {
    const problem = problemWith((lines) => lines.map((line, i) => (i === lines.length - 1 ? JSON.stringify({ kind: 'end', records: 2 }) : line)));
    const records = historyLines().length;
    expect(problem).toBe(`line ${records + 2}: the end line counts 2 records but the file holds ${records}. Nothing was imported.`);
  });
});

/**
 * An import refuses a record whose key does not say what its value is: a commit keyed under another
 * project, a usage record under another model, a grade under another agent would each be counted where
 * it does not belong. Every kind of record an export holds is checked, one key part at a time; the free
 * suffix of a journal key (or a grade event's) is the one part a file may choose.
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

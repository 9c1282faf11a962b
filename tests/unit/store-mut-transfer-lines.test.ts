/**
 * Lines of an export file at the edges the other transfer tests leave: lines that are JSON but not an
 * object, a bad line of exactly the quoted length, a value out of the importing rules' range, git-signal
 * records with a key or a fate of the wrong kind, the grades of version 1 and 2 files, and what an import
 * of an old file counts into the usage records it brings.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import { importExport, parseExport, parseExportFile } from '../../src/core/store/transfer.js';
import { InputError } from '../../src/core/validation.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const header = (version: number): string => JSON.stringify({ kind: 'header', format: 'agent-tracker-export', version, exportedAt: '2026-11-26T00:00:00.000Z' });
const end = (records: number): string => JSON.stringify({ kind: 'end', records });
const fileOf = (...lines: string[]): string => `${lines.join('\n')}\n`;
const HASH = 'c'.repeat(40);
const AT = '2026-11-26T00:00:00.000Z';

function problemOf(text: string): string {
  try {
    parseExportFile(text);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as Error).message;
  }
  throw new Error('the file was accepted');
}

const AGENT = { id: 'build', sp: 3, xp: 0, cs: 60, commits: 0, bugs: 0, halted: false, createdAt: AT, updatedAt: AT };
const agentLine = (value: Record<string, unknown> = AGENT): string => JSON.stringify({ kind: 'agents', key: 'build', value });
const signals = (key: unknown, value: unknown): string => JSON.stringify({ kind: 'gitSignals', key, value });

let t: TempTracker | undefined;
afterEach(() => {
  t?.dispose();
  t = undefined;
});

describe('a line that is JSON but not an object', () => {
  it.each(['null', '3', '"agents"', 'true'])('%s is refused as such, whole', (line) => {
    expect(problemOf(fileOf(line))).toBe(`line 1: expected a JSON object with "kind", "key" and "value" (${line}). Nothing was imported.`);
  });
});

describe('the quote of a bad line', () => {
  it('keeps a line of exactly 80 characters whole, and cuts one of 81', () => {
    const pad = (length: number): string => {
      const line = JSON.stringify({ kind: 'widgets', pad: '' });
      return JSON.stringify({ kind: 'widgets', pad: 'p'.repeat(length - line.length) });
    };
    expect(pad(80)).toHaveLength(80);
    expect(problemOf(fileOf(pad(80))).endsWith(`(${pad(80)}). Nothing was imported.`)).toBe(true);
    expect(problemOf(fileOf(pad(81))).endsWith(`(${pad(81).slice(0, 80)}…). Nothing was imported.`)).toBe(true);
  });
});

describe("values past the importing database's rules", () => {
  it('refuses an agent of SP 1001, with the range, and takes SP 1000', () => {
    const problem = problemOf(fileOf(agentLine({ ...AGENT, sp: 1001 })));
    expect(problem.startsWith('line 1: agents field "sp" must be a whole number from -1000 to 1000, got 1001 (')).toBe(true);
    expect(parseExport(fileOf(agentLine({ ...AGENT, sp: 1000 })))[0]?.value.sp).toBe(1000);
  });
});

describe('git-signal records', () => {
  it('refuses a key that is not text', () => {
    expect(problemOf(fileOf(header(3), signals(5, { head: 'h', counted: {} }), end(1)))).toMatch(/^line 2: a gitSignals key must be a project path \(/);
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['a number', 1],
    ['reverted as text', { reverted: 'yes', followUpFix: false }],
    ['followUpFix missing', { reverted: true }],
  ])('refuses a counted fate that is %s', (_name, fate) => {
    const problem = problemOf(fileOf(header(3), signals('/work/a', { head: 'h', counted: { [HASH]: fate } }), end(1)));
    expect(problem).toMatch(/^line 2: each counted fate of a gitSignals record must be \{"reverted": true\|false, "followUpFix": true\|false\} \(/);
  });

  it('takes fates of two flags', () => {
    const value = { head: 'h', counted: { [HASH]: { reverted: false, followUpFix: true } } };
    expect(parseExportFile(fileOf(header(3), signals('/work/a', value), end(1))).gitSignals).toEqual([{ kind: 'gitSignals', key: '/work/a', value }]);
  });
});

describe('grades by export version', () => {
  const userGrade = { commit: HASH, project: '/work/a', agent: 'build', model: 'fake/a', sessionId: 's1', grade: 5, note: '', timestamp: AT, provenance: 'user', via: 'cli' };
  const userGradeLine = JSON.stringify({ kind: 'userGrades', key: ['/work/a', HASH], value: userGrade });
  const event = { agent: 'build', commit: HASH, project: '/work/a', source: 'user', grade: 2, timestamp: AT };

  it("takes the user's grades of a version 2 file", () => {
    expect(parseExport(fileOf(header(2), userGradeLine, end(1))).map((record) => record.value)).toEqual([userGrade]);
  });

  it('keeps a grade event relayed by an agent as such in a current file', () => {
    const line = JSON.stringify({ kind: 'communication', key: ['build', AT, 'x'], value: { ...event, provenance: 'agent-reported' } });
    expect(parseExport(fileOf(header(3), line, end(1)))[0]?.value.provenance).toBe('agent-reported');
  });

  it('changes nothing but the grade events of a version 1 file: its other records are read as written', () => {
    const usage = { sessionId: 's1', agent: 'build', model: 'fake/a', project: '/work/a', firstAt: AT, lastAt: AT, ...workCounters() };
    const lines = [agentLine(), JSON.stringify({ kind: 'sessions', key: ['s1', 'build', 'fake/a'], value: usage })];
    expect(parseExport(fileOf(header(1), ...lines, end(2))).map((record) => record.value)).toEqual([AGENT, usage]);
  });
});

/** Every work counter of a usage record at zero, named as the export format names them. */
function workCounters(): Record<string, number> {
  const names = ['toolCalls', 'toolFailures', 'commands', 'commits', 'pushes', 'bugs', 'gradedCommits', 'gradeSum', 'csDelta', 'messages'];
  const tokens = ['tokensInput', 'tokensOutput', 'tokensReasoning', 'tokensCacheRead', 'tokensCacheWrite', 'cost'];
  return Object.fromEntries([...names, ...tokens].map((name) => [name, 0]));
}

describe('importing a version 1 file', () => {
  it("counts its retrospectives' grades into the usage records it brings, whatever counted flags the old record carried", () => {
    t = tempTracker();
    const usage = { sessionId: 's1', agent: 'build', model: 'fake/a', project: '/work/a', firstAt: AT, lastAt: AT, ...workCounters(), commits: 1 };
    // An old retrospective: the agent's grade 5 and a relayed "user" grade 2, with flags a later version would set.
    const retrospective = {
      commit: HASH, timestamp: AT, task: 't', agent_grade: 5, user_grade: 2, score_before: 60, score_after: 67, agent_note: '', user_note: '',
      agent: 'build', model: 'fake/a', project: '/work/a', sessionId: 's1', provenance: 'user', outcomeCounted: true,
    };
    const text = fileOf(
      header(1),
      JSON.stringify({ kind: 'sessions', key: ['s1', 'build', 'fake/a'], value: usage }),
      JSON.stringify({ kind: 'retrospectives', key: ['build', HASH], value: retrospective }),
      end(2),
    );
    const result = importExport(t.store, text, 'old.ndjson', () => new Date('2026-11-26T01:00:00.000Z'));
    expect(result.added).toBe(2);
    // An old record's agent grade is a self-grade, its "user" grade one an agent reported.
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ commits: 1, selfGradedCommits: 1, selfGradeSum: 5, reportedGradedCommits: 1, reportedGradeSum: 2 });
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])?.userGradedCommits).toBeUndefined();
    // The run is recorded under the file's SHA-256.
    const digest = createHash('sha256').update(text).digest('hex');
    expect([...t.store.tables.migrations.getRange()].map(({ key, value }) => [key, (value as unknown as { digest: string }).digest])).toEqual([[`import:${digest}#2026-11-26T01:00:00.000Z`, digest]]);
  });
});

/** The user's grade, grade provenance, the migration of old grades and old exports. */
import { afterEach, describe, expect, it } from '@jest/globals';
import { latestUngradedCommit, pickTrackedCommit, provenanceOf } from '../../src/core/outcomes/grades.js';
import { legacyGradeDeltas, migrateGradeProvenance } from '../../src/core/outcomes/legacy-grades.js';
import { EXPORT_VERSION, exportRecords, importExport } from '../../src/core/store/transfer.js';
import type { CommitRecord, RetrospectiveEntry } from '../../src/core/types.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const PROJECT = '/work/project';
const hash = (n: number, fill = 'a') => n.toString(16).padStart(40, fill);
const gitCommit = (n: number, fill = 'a') => ({
  hash: hash(n, fill),
  message: `feat: change ${n}`,
  files: ['src/a.ts'],
  insertions: 3,
  deletions: 1,
  timestamp: new Date(1_700_000_000_000 + n * 1000).toISOString(),
});
const commitRecord = (hashValue: string, timestamp: string): CommitRecord => ({
  hash: hashValue, project: PROJECT, agent: 'build', model: 'm', sessionId: 's', message: 'x', files: [], insertions: 0, deletions: 0, timestamp,
});

let t: TempTracker;
afterEach(() => t?.dispose());

describe('provenance of a communication event', () => {
  it.each([
    [{ source: 'agent' as const }, 'self'],
    [{ source: 'user' as const }, 'agent-reported'],
    [{ source: 'user' as const, provenance: 'user' as const }, 'user'],
    [{ source: 'agent' as const, provenance: 'self' as const }, 'self'],
    [{ source: 'user' as const, provenance: 'agent-reported' as const }, 'agent-reported'],
  ])('%j reads as %s', (event, want) => {
    expect(provenanceOf(event)).toBe(want);
  });
});

describe('which tracked commit a hash names', () => {
  const a = commitRecord('abc1234000', '2024-01-01T00:00:00Z');
  const b = commitRecord('abc1235000', '2024-01-02T00:00:00Z');
  it('returns the one match, twice-listed or not', () => {
    expect(pickTrackedCommit([a], 'abc1234')).toBe(a);
    expect(pickTrackedCommit([a, a], 'abc1234')).toBe(a);
  });
  it('refuses no match and an ambiguous prefix with one line naming the problem', () => {
    expect(() => pickTrackedCommit([], 'abc1234')).toThrow(/^no tracked session made a commit abc1234 in this project/);
    expect(() => pickTrackedCommit([a, b], 'abc123')).toThrow(/^commit abc123 is ambiguous \(abc1234000, abc1235000, \.\.\.\)/);
  });
  it('names the commits of an ambiguous prefix by their first 12 characters', () => {
    const long = [commitRecord('abc1234' + 'd'.repeat(33), '2024-01-01T00:00:00Z'), commitRecord('abc1235' + 'e'.repeat(33), '2024-01-01T00:00:00Z')];
    expect(() => pickTrackedCommit(long, 'abc123')).toThrow('commit abc123 is ambiguous (abc1234ddddd, abc1235eeeee, ...); give more of the hash');
  });
  it('picks the latest ungraded commit by time, ties broken by hash, skipping graded ones', () => {
    const c = commitRecord('ffff000000', '2024-01-02T00:00:00Z');
    expect(latestUngradedCommit([a, b], () => false)).toBe(b);
    expect(latestUngradedCommit([b, a], () => false)).toBe(b);
    expect(latestUngradedCommit([a, b, c], () => false)).toBe(c);
    expect(latestUngradedCommit([c, b, a], () => false)).toBe(c);
    expect(latestUngradedCommit([a, b, c], (x) => x !== a)).toBe(a);
    expect(latestUngradedCommit([a], () => true)).toBeUndefined();
    expect(latestUngradedCommit([], () => false)).toBeUndefined();
  });
  it('leaves reverts out when choosing the latest commit, by subject or by body', () => {
    const work = commitRecord('aaaa000000', '2024-01-01T00:00:00Z');
    const revert = { ...commitRecord('bbbb000000', '2024-01-02T00:00:00Z'), message: 'Revert "feat: change 1"' };
    const revertBody = { ...commitRecord('cccc000000', '2024-01-03T00:00:00Z'), message: `undo it\n\nThis reverts commit ${'d'.repeat(40)}.` };
    const reverted = { ...commitRecord('eeee000000', '2024-01-04T00:00:00Z'), message: 'docs: how reverting works' };
    expect(latestUngradedCommit([work, revert, revertBody], () => false)).toBe(work);
    expect(latestUngradedCommit([work, revert, reverted], () => false)).toBe(reverted);
    expect(latestUngradedCommit([revert], () => false)).toBeUndefined();
  });
});

describe("the user's grade", () => {
  function made(session: string, agent: string, model: string, ...commits: ReturnType<typeof gitCommit>[]) {
    t.service.noteModelRequest(session, agent, model);
    t.service.recordCommits(session, commits);
  }

  it("is counted on the usage record of the setup that made the commit, moves its CS, and is written at once", () => {
    t = tempTracker();
    made('s1', 'build', 'fake/a', gitCommit(1));
    t.service.noteModelRequest('s2', 'plan', 'fake/b');
    const { grade, status } = t.service.gradeAsUser({ project: PROJECT, commit: hash(1).slice(0, 8), grade: 5, note: 'great', via: 'cli' });
    expect(grade).toMatchObject({ commit: hash(1), agent: 'build', model: 'fake/a', sessionId: 's1', grade: 5, note: 'great', provenance: 'user', via: 'cli' });
    expect(t.service.pendingMutations).toBe(0);
    expect(t.store.tables.userGrades.get([PROJECT, hash(1)])).toMatchObject({ grade: 5, provenance: 'user' });
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ userGradedCommits: 1, userGradeSum: 5, csDelta: 5 });
    expect(t.store.tables.usage.get(['s2', 'plan', 'fake/b'])).toBeUndefined();
    expect(status.cs).toBe(65);
    const events = [...t.store.tables.gradeEvents.getRange()].map((e) => e.value);
    expect(events).toEqual([expect.objectContaining({ source: 'user', provenance: 'user', grade: 5, commit: hash(1) })]);
  });

  it('without a commit grades the latest commit the user has not graded, then the one before', () => {
    t = tempTracker();
    made('s1', 'build', 'fake/a', gitCommit(1), gitCommit(2));
    expect(t.service.gradeAsUser({ project: PROJECT, grade: 2, via: 'slash-command' }).grade.commit).toBe(hash(2));
    expect(t.service.gradeAsUser({ project: PROJECT, commit: '', grade: -1, via: 'slash-command' }).grade.commit).toBe(hash(1));
    expect(() => t.service.gradeAsUser({ project: PROJECT, grade: 1, via: 'slash-command' })).toThrow(/no commit made by a tracked session in \/work\/project is left for you to grade/);
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ userGradedCommits: 2, userGradeSum: 1 });
  });

  it.each([
    ['a bad grade', { commit: hash(1), grade: 3 }, /grade must be one of -1, 1, 2, 5/],
    ['a grade that is not a number', { commit: hash(1), grade: 'five' }, /grade must be one of/],
    ['a commit no session made', { commit: 'bbbbbbb', grade: 2 }, /no tracked session made a commit bbbbbbb/],
    ['an ambiguous prefix', { commit: 'aaaaaaa', grade: 2 }, /is ambiguous/],
    ['not a hash', { commit: 'HEAD~1', grade: 2 }, /is not a commit hash/],
    ['a commit of another project', { commit: hash(1), grade: 2, project: '/elsewhere' }, /no tracked session made a commit/],
  ])('refuses %s with one clear line and writes nothing', (_name, input, message) => {
    t = tempTracker();
    made('s1', 'build', 'fake/a', gitCommit(1), gitCommit(2));
    t.service.flush('test');
    const before = [...t.store.tables.usage.getRange()].map((e) => e.value);
    expect(() => t.service.gradeAsUser({ project: PROJECT, via: 'cli', ...input })).toThrow(message);
    expect(t.service.pendingMutations).toBe(0);
    expect([...t.store.tables.userGrades.getRange()]).toHaveLength(0);
    expect([...t.store.tables.usage.getRange()].map((e) => e.value)).toEqual(before);
  });

  it('grades a commit once: a second grade from the user, or from another process, changes nothing', () => {
    t = tempTracker();
    made('s1', 'build', 'fake/a', gitCommit(1));
    t.service.gradeAsUser({ project: PROJECT, commit: hash(1), grade: 2, via: 'cli' });
    expect(() => t.service.gradeAsUser({ project: PROJECT, commit: hash(1), grade: 5, via: 'cli' })).toThrow(/you already graded commit/);
    const other = t.another();
    expect(() => other.gradeAsUser({ project: PROJECT, commit: hash(1), grade: 5, via: 'slash-command' })).toThrow(/already graded/);
    expect(t.store.tables.userGrades.get([PROJECT, hash(1)])?.grade).toBe(2);
    expect(t.store.tables.agents.get('build')?.cs).toBe(62);
  });

  it('corrects a grade with replace: the later one counts everywhere, the journal keeps both', () => {
    t = tempTracker();
    made('s1', 'build', 'fake/a', gitCommit(1));
    t.service.gradeAsUser({ project: PROJECT, commit: hash(1), grade: 5, via: 'cli' });
    expect(() => t.service.gradeAsUser({ project: PROJECT, commit: hash(1), grade: -1, via: 'cli' })).toThrow(/already graded .* 5; to correct it, grade it again with --replace/);
    t.service.gradeAsUser({ project: PROJECT, commit: hash(1), grade: -1, note: 'it broke checkout', via: 'cli', replace: true });
    expect(t.store.tables.userGrades.get([PROJECT, hash(1)])).toMatchObject({ grade: -1, note: 'it broke checkout' });
    // One graded commit, its grade now -1; CS moved by 5 then by -6.
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ userGradedCommits: 1, userGradeSum: -1, csDelta: -1 });
    expect(t.store.tables.agents.get('build')?.cs).toBe(59);
    const grades = [...t.store.tables.gradeEvents.getRange()].map((e) => e.value).filter((e) => e.source === 'user').map((e) => e.grade);
    expect(grades).toEqual([5, -1]);
  });

  it('earns the graded-commit XP once: corrections with replace earn none again', () => {
    t = tempTracker();
    made('s1', 'build', 'fake/a', gitCommit(1));
    t.service.gradeAsUser({ project: PROJECT, commit: hash(1), grade: -1, via: 'cli' });
    const graded = t.store.tables.agents.get('build')?.xp ?? Number.NaN;
    for (const grade of [2, 5, 1] as const) t.service.gradeAsUser({ project: PROJECT, commit: hash(1), grade, via: 'cli', replace: true });
    expect(t.store.tables.agents.get('build')?.xp).toBe(graded);
  });

  it('keeps the self-grade and the user grade apart on one record', () => {
    t = tempTracker();
    made('s1', 'build', 'fake/a', gitCommit(1));
    t.service.gradeCommit({ sessionId: 's1', agent: 'build', project: PROJECT, commit: hash(1), agentGrade: 5 });
    t.service.gradeAsUser({ project: PROJECT, commit: hash(1), grade: -1, via: 'cli' });
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ selfGradedCommits: 1, selfGradeSum: 5, userGradedCommits: 1, userGradeSum: -1 });
  });
});

describe('grades from before provenance', () => {
  const old = (extra: Partial<RetrospectiveEntry> = {}): RetrospectiveEntry => ({
    commit: hash(1), timestamp: '2024-01-01T00:00:00.000Z', task: 't', agent_grade: 5, user_grade: 2, score_before: 60, score_after: 67,
    agent_note: '', user_note: '', agent: 'build', model: 'fake/a', project: PROJECT, sessionId: 's1', ...extra,
  });

  it.each([
    ['an old record', old(), { selfGradedCommits: 1, selfGradeSum: 5, reportedGradedCommits: 1, reportedGradeSum: 2 }],
    ['an old record with a bad grade', old({ agent_grade: -1, user_grade: -1 }), { selfGradedCommits: 1, selfGradeSum: -1, reportedGradedCommits: 1, reportedGradeSum: -1 }],
    ['an old record without a user grade', old({ user_grade: undefined }), { selfGradedCommits: 1, selfGradeSum: 5 }],
    ['a self-grade of this version', old({ provenance: 'self', user_grade: undefined }), undefined],
    ['a record already counted', old({ outcomeCounted: true }), undefined],
  ])('%s is counted as expected', (_name, entry, want) => {
    expect(legacyGradeDeltas(entry)).toEqual(want);
  });

  it('counts old retrospectives into their usage records once, however often it runs', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [gitCommit(1)]);
    t.service.flush('test');
    t.store.write((tables) => tables.retrospectives.putSync(['build', hash(1)], old()));
    expect(migrateGradeProvenance(t.store)).toEqual({ counted: 1 });
    expect(migrateGradeProvenance(t.store)).toEqual({ counted: 0 });
    expect(migrateGradeProvenance(t.store, { force: true })).toEqual({ counted: 0 });
    const usage = t.store.tables.usage.get(['s1', 'build', 'fake/a']);
    expect(usage).toMatchObject({ selfGradedCommits: 1, selfGradeSum: 5, reportedGradedCommits: 1, reportedGradeSum: 2 });
    expect(usage?.userGradedCommits).toBeUndefined();
    expect(t.store.tables.retrospectives.get(['build', hash(1)])).toMatchObject({ user_grade: 2, outcomeCounted: true });
  });
});

describe('export and import with provenance', () => {
  const v1 = (lines: object[]) =>
    [{ kind: 'header', format: 'agent-tracker-export', version: 1, exportedAt: '2024-01-01T00:00:00Z' }, ...lines, { kind: 'end', records: lines.length }]
      .map((line) => JSON.stringify(line))
      .join('\n');
  const userEvent = { agent: 'build', commit: hash(1), project: PROJECT, source: 'user', grade: 5, timestamp: '2024-01-01T00:00:00.000Z' };

  it('imports the "user grades" of an old file as agent-reported, never as the user\'s', () => {
    t = tempTracker();
    const forged = { ...userEvent, provenance: 'user' };
    importExport(t.store, v1([{ kind: 'communication', key: ['build', userEvent.timestamp, 'x'], value: forged }]), 'old.ndjson');
    expect(t.store.tables.gradeEvents.get(['build', userEvent.timestamp, 'x'])).toMatchObject({ provenance: 'agent-reported', grade: 5 });
  });

  it('refuses userGrades records in an old-version file and writes nothing', () => {
    t = tempTracker();
    const record = { commit: hash(1), project: PROJECT, agent: 'build', model: 'm', sessionId: 's', grade: 5, note: '', timestamp: 'x', provenance: 'user', via: 'cli' };
    expect(() => importExport(t.store, v1([{ kind: 'userGrades', key: [PROJECT, hash(1)], value: record }]), 'old.ndjson')).toThrow(/userGrades records need export version 2/);
    expect([...t.store.tables.userGrades.getRange()]).toHaveLength(0);
  });

  it('round-trips the user\'s grades and their provenance through a version 2 export', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [gitCommit(1)]);
    t.service.gradeAsUser({ project: PROJECT, commit: hash(1), grade: 5, via: 'cli' });
    let text = '';
    exportRecords(t.store, (chunk) => (text += chunk));
    expect(JSON.parse(text.split('\n')[0] ?? '')).toMatchObject({ version: EXPORT_VERSION });
    const target = tempTracker({}, PROJECT);
    try {
      importExport(target.store, text, 'new.ndjson');
      expect(target.store.tables.userGrades.get([PROJECT, hash(1)])).toMatchObject({ grade: 5, provenance: 'user' });
      expect([...target.store.tables.gradeEvents.getRange()][0]?.value).toMatchObject({ provenance: 'user' });
      expect(target.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ userGradedCommits: 1, userGradeSum: 5 });
    } finally {
      target.dispose();
    }
  });
});

/**
 * Grades of a commit that earned nothing (a merge), next to a credited commit, without git: the
 * self-grade is recorded but moves no CS, earns no XP and is not summed; the user's grade is summed
 * and a bad one costs CS, a good one earns nothing; a correction moves CS and the sums by the
 * difference. Each figure is worked out here from the rules the tracker was given.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { GitCommit } from '../../src/contract/host-events.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const PROJECT = '/work/grades';
const MERGE = 'a'.repeat(40);
const WORK = 'b'.repeat(40);
// Levels would move SP (and the CS cap) under the figures: one level costs this times SP in XP.
const RULES = { xpPerLevelFactor: 10_000, xpPerGradedCommit: 3, xpPerCommit: 7 };

let t: TempTracker;
afterEach(() => t?.dispose());

function commit(hash: string, extra: Partial<GitCommit> = {}): GitCommit {
  return { hash, message: `feat: ${hash.slice(0, 4)}`, files: ['src/a.ts'], insertions: 1, deletions: 0, timestamp: '2026-11-26T09:00:00.000Z', ...extra };
}

function setup(): void {
  t = tempTracker({ rules: RULES }, PROJECT);
  t.service.noteModelRequest('s1', 'build', 'fake/a');
  const recorded = t.service.recordCommits('s1', [commit(MERGE, { parents: ['c'.repeat(40), 'd'.repeat(40)] }), commit(WORK)]);
  expect(recorded.map((record) => record.noCredit)).toEqual(['merge', undefined]);
  t.service.flush('test');
}

const status = () => t.service.getAgentStatus('build');
const usage = () => t.store.tables.usage.get(['s1', 'build', 'fake/a']);

describe("an agent's self-grade", () => {
  it('of a merge is recorded with the CS unchanged, earns no XP and is not counted; of its work it moves CS and earns', () => {
    setup();
    const start = status();
    // Only the credited commit earned.
    expect(start.xp).toBe(RULES.xpPerCommit);
    expect(start.commits).toBe(1);

    const merge = t.service.gradeCommit({ sessionId: 's1', agent: 'build', project: PROJECT, commit: MERGE, agentGrade: 5 });
    expect([merge.score_before, merge.score_after, merge.noCredit]).toEqual([start.cs, start.cs, 'merge']);
    t.service.flush('test');
    expect([status().cs, status().xp]).toEqual([start.cs, start.xp]);
    expect(t.store.tables.retrospectives.get(['build', MERGE])).toMatchObject({ agent_grade: 5, score_before: start.cs, score_after: start.cs });
    expect(usage()?.selfGradedCommits).toBeUndefined();
    expect(usage()?.selfGradeSum).toBeUndefined();

    const work = t.service.gradeCommit({ sessionId: 's1', agent: 'build', project: PROJECT, commit: WORK, agentGrade: 2 });
    expect([work.score_before, work.score_after, work.noCredit]).toEqual([start.cs, start.cs + 2, undefined]);
    t.service.flush('test');
    expect([status().cs, status().xp]).toEqual([start.cs + 2, start.xp + RULES.xpPerGradedCommit]);
    expect(usage()).toMatchObject({ selfGradedCommits: 1, selfGradeSum: 2, csDelta: 2 });
  });

  it('of a bad merge costs nothing either', () => {
    setup();
    const start = status();
    const merge = t.service.gradeCommit({ sessionId: 's1', agent: 'build', project: PROJECT, commit: MERGE, agentGrade: -1 });
    expect([merge.score_before, merge.score_after]).toEqual([start.cs, start.cs]);
    t.service.flush('test');
    expect([status().cs, status().xp]).toEqual([start.cs, start.xp]);
  });
});

describe("the user's grade", () => {
  it('of a merge is counted but a good one moves no CS and earns no XP; a correction to a bad one costs the difference', () => {
    setup();
    const start = status();
    const good = t.service.gradeAsUser({ project: PROJECT, commit: MERGE, grade: 5, via: 'cli' });
    expect(good.noCredit).toBe('merge');
    expect([good.status.cs, good.status.xp]).toEqual([start.cs, start.xp]);
    expect(usage()).toMatchObject({ userGradedCommits: 1, userGradeSum: 5, csDelta: 0 });

    // A bad grade of an uncredited commit costs what it would cost any commit: 5 -> -1 moves CS by -1 - 0.
    const corrected = t.service.gradeAsUser({ project: PROJECT, commit: MERGE, grade: -1, via: 'cli', replace: true });
    expect([corrected.status.cs, corrected.status.xp]).toEqual([start.cs - 1, start.xp]);
    expect(usage()).toMatchObject({ userGradedCommits: 1, userGradeSum: -1, csDelta: -1 });
    expect(t.store.tables.userGrades.get([PROJECT, MERGE])).toMatchObject({ grade: -1, provenance: 'user', via: 'cli' });
  });

  it('of credited work moves CS by the grade and earns XP, and a correction moves CS and the sum by the difference only', () => {
    setup();
    const start = status();
    const first = t.service.gradeAsUser({ project: PROJECT, commit: WORK, grade: 2, via: 'slash-command' });
    expect(first.noCredit).toBeUndefined();
    expect([first.status.cs, first.status.xp]).toEqual([start.cs + 2, start.xp + RULES.xpPerGradedCommit]);
    expect(usage()).toMatchObject({ userGradedCommits: 1, userGradeSum: 2, csDelta: 2 });

    const corrected = t.service.gradeAsUser({ project: PROJECT, commit: WORK, grade: 5, via: 'slash-command', replace: true });
    expect(corrected.status.cs).toBe(start.cs + 5);
    expect(usage()).toMatchObject({ userGradedCommits: 1, userGradeSum: 5, csDelta: 5 });
    expect(() => t.service.gradeAsUser({ project: PROJECT, commit: WORK, grade: 1, via: 'cli' })).toThrow(/you already graded commit bbbbbbb.* 5; to correct it, grade it again with --replace/);
  });
});

/**
 * Which commits the recorder counts and credits (commits.ts), on a temporary LMDB: a commit reported
 * twice before a flush counts once; a whitespace-only commit and the same change again earn nothing,
 * the latter in another process too; the record says why a commit earned nothing; a revert is the
 * agent's own only when the reverted commit (by full or short hash) is its own; a fresh short hash
 * is not taken for a stored commit it does not abbreviate. Figures from the default rules: an
 * earning commit gives 5 XP, a level costs 10 XP and gives 2 SP.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker;
afterEach(() => t?.dispose());

const PROJECT = '/work/project';
const hash = (n: number) => n.toString(16).padEnd(40, 'c');
const commit = (n: number, extra: { message?: string; patchId?: string; whitespaceOnly?: boolean } = {}) => ({
  hash: hash(n),
  message: extra.message ?? `feat: change ${n}`,
  files: ['src/a.ts'],
  insertions: 1,
  deletions: 0,
  timestamp: new Date(1_700_000_000_000 + n).toISOString(),
  ...(extra.patchId !== undefined ? { patchId: extra.patchId } : {}),
  ...(extra.whitespaceOnly !== undefined ? { whitespaceOnly: extra.whitespaceOnly } : {}),
});
const revertOf = (n: number, reverted: string) => commit(n, { message: `Revert "x"\n\nThis reverts commit ${reverted}.` });

function agentCommits(agent: string): number | undefined {
  return t.store.tables.agents.get(agent)?.commits;
}

describe('a commit reported again', () => {
  it('before a flush is recorded and counted once', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    expect(t.service.recordCommits('s1', [commit(1)]).map((c) => c.hash)).toEqual([hash(1)]);
    expect(t.service.recordCommits('s1', [commit(1)])).toEqual([]);
    t.service.flush('test');
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])?.commits).toBe(1);
    // One earning commit: 5 XP, no level yet.
    expect(t.store.tables.agents.get('build')).toMatchObject({ commits: 1, xp: 5 });
  });
});

describe('credit', () => {
  it('gives none for a whitespace-only commit, and the record says why', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [commit(1, { whitespaceOnly: true }), commit(2, { whitespaceOnly: false })]);
    t.service.flush('test');
    expect(agentCommits('build')).toBe(1);
    expect(t.store.tables.commits.get([PROJECT, hash(1)])?.noCredit).toBe('whitespace-only');
    expect(t.store.tables.commits.get([PROJECT, hash(2)])).not.toHaveProperty('noCredit');
  });

  it('gives none for the same change committed again, in another process too, even after a commit without a patch id', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [commit(1, { patchId: 'p1' }), commit(2)]);
    t.service.flush('test');
    // Another plugin instance (a new process) knows the change only from the store.
    const other = t.another();
    other.noteModelRequest('s2', 'build', 'fake/a');
    other.recordCommits('s2', [commit(3, { patchId: 'p1' }), commit(4, { patchId: 'p2' })]);
    other.flush('test');
    expect(agentCommits('build')).toBe(3);
    expect(t.store.tables.commits.get([PROJECT, hash(3)])?.noCredit).toBe('same-change');
    expect(t.store.tables.commits.get([PROJECT, hash(4)])).not.toHaveProperty('noCredit');
  });
});

describe('a revert', () => {
  it('of another agent’s buffered commit earns, though the agent’s own commit was buffered first', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.noteModelRequest('s2', 'plan', 'fake/a');
    t.service.recordCommits('s1', [commit(1)]);
    t.service.recordCommits('s2', [commit(2)]);
    t.service.recordCommits('s1', [revertOf(3, hash(2))]);
    t.service.flush('test');
    expect(agentCommits('build')).toBe(2);
    expect(t.store.tables.commits.get([PROJECT, hash(3)])).not.toHaveProperty('noCredit');
  });

  it('of an unknown commit earns, though the agent’s own stored commit sorts right after it', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [commit(2)]);
    t.service.flush('test');
    t.service.recordCommits('s1', [revertOf(3, hash(1))]);
    t.service.flush('test');
    expect(agentCommits('build')).toBe(2);
  });

  it('of the agent’s own commit named by a short hash earns nothing, buffered or stored', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [commit(1)]);
    t.service.flush('test');
    t.service.recordCommits('s1', [commit(2)]);
    t.service.recordCommits('s1', [revertOf(3, hash(1).slice(0, 7)), revertOf(4, hash(2).slice(0, 9))]);
    t.service.flush('test');
    expect(agentCommits('build')).toBe(2);
    expect(t.store.tables.commits.get([PROJECT, hash(3)])?.noCredit).toBe('self-revert');
    expect(t.store.tables.commits.get([PROJECT, hash(4)])?.noCredit).toBe('self-revert');
  });
});

describe('a short hash', () => {
  it('that abbreviates no stored commit is recorded, though a stored commit sorts after it', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [commit(0xe)]);
    t.service.flush('test');
    const fresh = { ...commit(2), hash: 'aaaaaaa' };
    expect(t.service.recordCommits('s1', [fresh]).map((c) => c.hash)).toEqual(['aaaaaaa']);
  });

  it('finds a buffered and a stored commit to grade by its prefix', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [commit(1)]);
    t.service.flush('test');
    t.service.recordCommits('s1', [commit(2)]);
    expect(t.service.gradeCommit({ agent: 'build', project: PROJECT, commit: hash(1).slice(0, 8), agentGrade: 2 }).commit).toBe(hash(1));
    expect(t.service.gradeCommit({ agent: 'build', project: PROJECT, commit: hash(2).slice(0, 8), agentGrade: 2 }).commit).toBe(hash(2));
  });

  it('finds a buffered and a stored commit for the user to grade by its prefix, in its own project only', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [commit(1)]);
    t.service.flush('test');
    t.service.recordCommits('s1', [commit(2)]);
    expect(t.service.gradeAsUser({ project: PROJECT, commit: hash(2).slice(0, 8), grade: 1, via: 'cli' }).grade.commit).toBe(hash(2));
    expect(t.service.gradeAsUser({ project: PROJECT, commit: hash(1).slice(0, 8), grade: 1, via: 'cli' }).grade.commit).toBe(hash(1));
    expect(t.service.trackedCommits('/work/elsewhere')).toEqual([]);
    expect(t.service.trackedCommits(PROJECT).map((c) => c.hash).sort()).toEqual([hash(1), hash(2)]);
  });
});

describe('another project’s stored commit', () => {
  function storeElsewhere(fullHash: string) {
    t.service.noteSession('other', { project: '/work/zzz' });
    t.service.noteModelRequest('other', 'build', 'fake/a');
    t.service.recordCommits('other', [{ ...commit(1), hash: fullHash }]);
    t.service.flush('test');
    t.service.noteModelRequest('s1', 'build', 'fake/a');
  }

  it('is not the commit a short hash names', () => {
    t = tempTracker();
    storeElsewhere(`aaaaaaa${'1'.repeat(33)}`);
    const short = { ...commit(3), hash: 'aaaaaaa' };
    expect(t.service.recordCommits('s1', [short]).map((c) => c.hash)).toEqual(['aaaaaaa']);
  });

  it('is not the agent’s own commit a revert undoes', () => {
    t = tempTracker();
    storeElsewhere(`bbbbbbb${'2'.repeat(33)}`);
    t.service.recordCommits('s1', [revertOf(4, 'bbbbbbb')]);
    t.service.flush('test');
    // The other project's commit and the revert both earn.
    expect(agentCommits('build')).toBe(2);
    expect(t.store.tables.commits.get([PROJECT, hash(4)])).not.toHaveProperty('noCredit');
  });
});

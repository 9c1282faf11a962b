/**
 * The recorder's commits (which earn, which are only facts), git signals, the provisioning record,
 * bug reports and the flusher, on a temporary LMDB. Expected figures are worked out here from the
 * default rules: a commit that earns gives 5 XP, at most 5 commits of a user's turn earn, a level
 * costs 10 x SP.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Mutation } from '../../src/core/store/mutations.js';
import type { CommitRecord } from '../../src/core/types.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker;
afterEach(() => t?.dispose());

const PROJECT = '/work/project';
const AT = '2026-01-02T03:04:05.000Z';
const hash = (n: number) => n.toString(16).padStart(40, 'd');
const commit = (n: number, extra: { message?: string; files?: string[]; parents?: string[] } = {}) => ({
  hash: hash(n),
  message: extra.message ?? `feat: change ${n}`,
  files: extra.files ?? ['src/a.ts'],
  insertions: 1,
  deletions: 0,
  timestamp: new Date(1_700_000_000_000 + n).toISOString(),
  ...(extra.parents ? { parents: extra.parents } : {}),
});

function usage(session: string, agent: string, model = 'fake/a') {
  return t.store.tables.usage.get([session, agent, model]);
}

describe('commits and their credit', () => {
  it('records every commit of a turn, and only the first five earn', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    const recorded = t.service.recordCommits('s1', [1, 2, 3, 4, 5, 6, 7].map((n) => commit(n)));
    expect(recorded.map((c) => c.hash)).toEqual([1, 2, 3, 4, 5, 6, 7].map(hash));
    t.service.endTurn('s1');
    expect(usage('s1', 'build')?.commits).toBe(7);
    // 5 earning commits x 5 XP = 25: the first level (10) paid, 15 left (the next costs 20).
    expect(t.store.tables.agents.get('build')).toMatchObject({ commits: 5, xp: 15, sp: 2 });
    expect(t.store.tables.commits.getKeysCount()).toBe(7);
  });

  it('gives a new turn a fresh limit', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [1, 2, 3, 4, 5].map((n) => commit(n)));
    t.service.endTurn('s1');
    t.service.recordCommits('s1', [commit(6)]);
    t.service.endTurn('s1');
    expect(t.store.tables.agents.get('build')?.commits).toBe(6);
  });

  it('counts a subagent’s commits against its root session’s turn', () => {
    t = tempTracker();
    t.service.noteModelRequest('root', 'build', 'fake/a');
    t.service.noteSession('child', { parentId: 'root' });
    t.service.noteModelRequest('child', 'explore', 'fake/b');
    t.service.recordCommits('root', [1, 2, 3, 4].map((n) => commit(n)));
    t.service.recordCommits('child', [5, 6].map((n) => commit(n)));
    t.service.flush('test');
    expect(t.store.tables.agents.get('build')?.commits).toBe(4);
    expect(t.store.tables.agents.get('explore')?.commits).toBe(1);
    expect(usage('child', 'explore', 'fake/b')).toMatchObject({ commits: 2, parentSessionId: 'root' });
  });

  it('gives no credit for a merge, an empty commit or a revert of the agent’s own commit; a revert of another agent’s commit earns', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.noteModelRequest('s2', 'plan', 'fake/b');
    t.service.recordCommits('s2', [commit(1)]);
    t.service.recordCommits('s1', [commit(2)]);
    t.service.endTurn('s1');
    t.service.endTurn('s2');
    t.service.recordCommits('s1', [
      commit(3, { parents: [hash(1), hash(2)] }),
      commit(4, { files: [] }),
      commit(5, { message: `Revert "x"\n\nThis reverts commit ${hash(2)}.` }),
    ]);
    t.service.endTurn('s1');
    expect(usage('s1', 'build')?.commits).toBe(4);
    expect(t.store.tables.agents.get('build')?.commits).toBe(1);
    t.service.recordCommits('s1', [
      commit(6, { message: `Revert "y"\n\nThis reverts commit ${hash(1)}.` }),
      commit(7, { message: `Revert "z"\n\nThis reverts commit ${'f'.repeat(40)}.` }),
    ]);
    t.service.endTurn('s1');
    expect(t.store.tables.agents.get('build')?.commits).toBe(3);
  });

  it('ignores a commit named by the short hash of one already stored', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [commit(1)]);
    t.service.flush('test');
    expect(t.service.recordCommits('s1', [{ ...commit(1), hash: hash(1).slice(0, 7) }])).toEqual([]);
    const fresh = { ...commit(2), hash: 'eeeeeee' };
    expect(t.service.recordCommits('s1', [fresh]).map((c) => c.hash)).toEqual(['eeeeeee']);
  });

  it('counts a replayed call’s commits once, those not handed over included, and credits only the one handed over, without a file list', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    const replayed = { ...commit(1), files: [] };
    t.service.recordCommits('s1', [replayed], { eventId: 'call_1', at: AT, count: 3 });
    t.service.flush('test');
    t.another().recordCommits('s1', [replayed], { eventId: 'call_1', at: AT, count: 3 });
    t.service.recordCommits('s1', [], { eventId: 'call_1', at: AT, count: 3 });
    t.service.flush('test');
    expect(usage('s1', 'build')?.commits).toBe(3);
    // One earning commit: 5 XP, under the first level's 10 (SP 1).
    expect(t.store.tables.agents.get('build')).toMatchObject({ commits: 1, xp: 5, sp: 1 });
  });

  it('credits nothing for commits of a replayed call it was not handed (git does not hold them)', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [], { eventId: 'call_1', at: AT, count: 7 });
    t.service.flush('test');
    expect(usage('s1', 'build')?.commits).toBe(7);
    expect(t.store.tables.agents.get('build')).toBeUndefined();
  });

  it('writes no agent for commits that earn nothing, and nothing for a replayed call that made no commit', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'fresh', 'fake/a');
    t.service.recordCommits('s1', [], { eventId: 'call_0', at: AT });
    expect(t.service.pendingMutations).toBe(0);
    t.service.recordCommits('s1', [commit(1, { parents: [hash(8), hash(9)] })]);
    t.service.flush('test');
    expect(t.store.tables.agents.get('fresh')).toBeUndefined();
    expect(usage('s1', 'fresh')?.commits).toBe(1);
  });

  it('counts the commits of two replayed calls apart', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [], { eventId: 'call_1', at: AT, count: 1 });
    t.service.recordCommits('s1', [], { eventId: 'call_2', at: AT, count: 1 });
    t.service.flush('test');
    expect(usage('s1', 'build')?.commits).toBe(2);
  });

  it('finds a buffered commit by its own hash, in its own project only', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [commit(1), commit(2)]);
    expect(t.service.gradeCommit({ agent: 'build', project: PROJECT, commit: hash(2), agentGrade: 2 }).commit).toBe(hash(2));
    expect(() => t.service.gradeCommit({ agent: 'build', project: '/work/elsewhere', commit: hash(1), agentGrade: 2 })).toThrow(/was not made by a tracked session in this project/);
  });

  it('lists a project’s tracked commits from the buffer and the database', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [commit(1)]);
    t.service.flush('test');
    t.service.recordCommits('s1', [commit(2)]);
    expect(t.service.trackedCommits(PROJECT).map((c) => c.hash).sort()).toEqual([hash(1), hash(2)]);
    expect(t.service.trackedCommits('/work/elsewhere')).toEqual([]);
  });

  it('says whether a project has a tracked commit, buffered or stored, and only for that project', () => {
    t = tempTracker();
    // '/work/projec' sorts just before PROJECT and is a prefix of its path: its range starts at PROJECT's commits.
    const others = ['/work/projec', '/work/elsewhere', '/a', '/work/project/sub'];
    // Commits of projects sorting before and after PROJECT, stored by other sessions.
    const stored = t.store.tables.commits as unknown as { putSync(key: [string, string], value: CommitRecord): void };
    t.store.write(() => {
      for (const project of ['/0-first', '/zz-last']) stored.putSync([project, hash(9)], { ...commit(9), project, agent: 'build', model: 'fake/a', sessionId: 's0' });
    });
    expect(t.service.hasTrackedCommits('/0-first')).toBe(true);
    expect(t.service.hasTrackedCommits(PROJECT)).toBe(false);
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [commit(1)]);
    expect(t.service.hasTrackedCommits(PROJECT)).toBe(true);
    for (const other of others) expect(t.service.hasTrackedCommits(other)).toBe(false);
    t.service.flush('test');
    expect(t.service.pendingMutations).toBe(0);
    expect(t.service.hasTrackedCommits(PROJECT)).toBe(true);
    for (const other of others) expect(t.service.hasTrackedCommits(other)).toBe(false);
  });
});

describe('git signals', () => {
  it('counts reverts and follow-up fixes on the maker’s record and keeps the cache, read back before and after the flush', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    const [made] = t.service.recordCommits('s1', [commit(1)]);
    t.service.flush('test');
    const cache = { head: hash(9), counted: { [hash(1)]: { reverted: true, followUpFix: false } } };
    t.service.recordGitSignals(PROJECT, [{ commit: made as CommitRecord, revertedCommits: 1, followUpFixCommits: 2 }], cache);
    expect(t.service.gitSignalCache(PROJECT)).toEqual(cache);
    expect(t.service.gitSignalCache('/work/elsewhere')).toBeUndefined();
    t.service.flush('test');
    expect(t.service.gitSignalCache(PROJECT)).toEqual(cache);
    expect(usage('s1', 'build')).toMatchObject({ commits: 1, revertedCommits: 1, followUpFixCommits: 2 });
  });
});

describe('the provisioning record', () => {
  it('keeps the items put into a config folder, buffered and stored, each once', () => {
    t = tempTracker();
    t.service.recordProvisioned('/cfg', ['agent:a', 'skill:b']);
    const pending = t.service.pendingMutations;
    t.service.recordProvisioned('/cfg', ['agent:a']);
    expect(t.service.pendingMutations).toBe(pending);
    t.service.recordProvisioned('/cfg', ['skill:b', 'skill:c']);
    expect(t.service.provisionedItems('/cfg').sort()).toEqual(['agent:a', 'skill:b', 'skill:c']);
    expect(t.service.provisionedItems('/other')).toEqual([]);
    t.service.flush('test');
    t.service.recordProvisioned('/cfg', ['skill:d']);
    expect(t.service.provisionedItems('/cfg').sort()).toEqual(['agent:a', 'skill:b', 'skill:c', 'skill:d']);
  });
});

describe('bug reports', () => {
  it('charges an agent’s own bug on its session’s record and journals it under the session’s project', () => {
    t = tempTracker();
    t.service.noteSession('s1', { project: '/work/p2' });
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    const { status, verdict } = t.service.reportBug({ agent: 'build', reporter: 'build', sessionId: 's1', description: 'broke it' });
    expect(verdict).toEqual({ verified: true, evidence: 'own work' });
    expect(status).toMatchObject({ bugs: 1, sp: 0, halted: true });
    t.service.flush('test');
    expect(usage('s1', 'build')?.bugs).toBe(1);
    const entries = [...t.store.tables.activities.getRange()].map((e) => e.value);
    expect(entries).toEqual([expect.objectContaining({ task: 'Bug reported: broke it', outcome: 'bug', project: '/work/p2', model: 'fake/a', sessionId: 's1' })]);
  });

  it('charges a bug another agent reports in a named commit to the setup that made the commit, not the reporter’s model', () => {
    t = tempTracker();
    // build made commit 1 on fake/a in s1 (a flush between: an earlier session's commit); reviewer runs on fake/c in s2.
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [commit(1)]);
    t.service.flush('turn');
    t.service.noteModelRequest('s2', 'reviewer', 'fake/c');
    const { verdict } = t.service.reportBug({ agent: 'build', reporter: 'reviewer', sessionId: 's2', commit: hash(1).slice(0, 10), description: 'empty password accepted' });
    expect(verdict).toEqual({ verified: true, evidence: 'commit' });
    t.service.flush('test');
    expect(usage('s1', 'build')?.bugs).toBe(1);
    // No build × fake/c setup appears: build never ran on the reviewer's model.
    expect(usage('s2', 'build', 'fake/c')).toBeUndefined();
    expect([...t.store.tables.usage.getRange()].map((e) => `${e.key.join('/')}`).sort()).toEqual(['s1/build/fake/a']);
    const entries = [...t.store.tables.activities.getRange()].map((e) => e.value);
    expect(entries).toEqual([expect.objectContaining({ task: 'Bug reported: empty password accepted', agent: 'build', model: 'fake/a' })]);
  });

  it('knows an agent that has only buffered work, and journals a report without a session under the service’s project', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordToolCall('s1', 'c1', 'bash', true);
    expect(t.store.tables.agents.doesExist('build')).toBe(false);
    expect(t.service.knowsAgent('build')).toBe(true);
    expect(t.service.knowsAgent('plan')).toBe(false);
    t.service.reportBug({ agent: 'build', description: 'flaky' });
    t.service.flush('test');
    const entries = [...t.store.tables.activities.getRange()].map((e) => e.value);
    expect(entries).toEqual([expect.objectContaining({ task: 'Bug reported: flaky', project: PROJECT, model: 'unknown', actions: '', decisions: '', automatic: false })]);
    expect(entries[0]).not.toHaveProperty('sessionId');
  });

  it('takes an empty commit as none named, and keeps a long report’s journal entry to the text limit', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.noteModelRequest('s2', 'plan', 'fake/b');
    t.service.recordToolCall('s2', 'c1', 'read', true);
    const { verdict } = t.service.reportBug({ agent: 'plan', reporter: 'build', sessionId: 's1', commit: '', description: 'wrong' });
    expect(verdict).toEqual({ verified: false, reason: 'a report against another agent must name a commit plan made in this project' });
    // The text limit is 4000 characters; "Bug reported: " takes it over.
    t.service.reportBug({ agent: 'build', sessionId: 's1', description: 'x'.repeat(4000) });
    t.service.flush('test');
    const tasks = [...t.store.tables.activities.getRange()].map((e) => e.value.task);
    expect(tasks).toContain('Unverified bug report from build (not counted: a report against another agent must name a commit plan made in this project): wrong');
    expect(tasks).toContain(`Bug reported: ${'x'.repeat(4000 - 'Bug reported: '.length)}`);
  });

  it('reads the halts the hooks asked about when a flush is written, not on the next tool call', () => {
    t = tempTracker();
    const table = t.store.tables.agents;
    const read = table.get.bind(table);
    let reads = 0;
    table.get = ((key: string) => {
      reads += 1;
      return read(key);
    }) as typeof table.get;
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    expect(t.service.isHalted('build')).toBe(false);
    expect(reads).toBe(1);
    t.service.recordToolCall('s1', 'c1', 'bash', true);
    t.service.flush('turn');
    const afterFlush = reads;
    expect(t.service.isHalted('build')).toBe(false);
    expect(reads).toBe(afterFlush);
  });

  it('refuses a report without a description, writing nothing', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    expect(() => t.service.reportBug({ agent: 'build', sessionId: 's1', description: '' })).toThrow(/description/);
    expect(t.service.pendingMutations).toBe(0);
  });

  it('sees another process’s halt after the store is attached again', () => {
    t = tempTracker();
    const other = t.another();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    expect(t.service.isHalted('build')).toBe(false);
    other.noteModelRequest('s2', 'build', 'fake/a');
    other.reportBug({ agent: 'build', sessionId: 's2', description: 'broke it' });
    other.flush('bug');
    expect(t.service.isHalted('build')).toBe(false);
    t.service.storeAttached();
    expect(t.service.isHalted('build')).toBe(true);
  });

  it('throws the write error when a revive cannot be saved', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.reportBug({ agent: 'build', sessionId: 's1', description: 'broke it' });
    t.service.flush('bug');
    t.store.addIndexer(() => {
      throw new Error('disk on fire');
    });
    // A buffered commit goes into the revive's transaction; indexing it fails the write.
    t.service.recordCommits('s1', [commit(1)]);
    expect(() => t.service.revive('build')).toThrow('disk on fire');
    expect(t.store.tables.agents.get('build')).toMatchObject({ halted: true });
  });
});

describe('the flusher', () => {
  it('tells every listener the agents a flush touched, even when one listener throws', () => {
    t = tempTracker();
    const heard: string[][] = [];
    const batches: (readonly Mutation[])[] = [];
    t.service.onFlushed(() => {
      throw new Error('listener broke');
    });
    t.service.onFlushed((agents, mutations) => {
      heard.push([...agents].sort());
      batches.push(mutations);
    });
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.noteModelRequest('s2', 'plan', 'fake/b');
    t.service.recordToolCall('s1', 'c1', 'bash', true);
    t.service.recordCommand('s2');
    expect(t.service.flush('test')).toMatchObject({ ok: true });
    expect(heard).toEqual([['build', 'plan']]);
    expect(batches[0]?.some((m) => m.table === 'usage' && m.key[0] === 's1' && m.counters.toolCalls === 1)).toBe(true);
    expect(t.logged).toEqual([{ level: 'warn', message: 'agent-tracker: after-flush step failed: listener broke' }]);
  });

  it.each<[string, Record<string, unknown>, (service: TempTracker['service']) => void]>([
    ['turn', {}, (service) => service.endTurn('s1')],
    ['push', {}, (service) => service.recordPush('s1')],
    ['buffer limit', { flushMaxMutations: 2 }, () => undefined],
    ['undo', {}, (service) => service.recordRevert('s1', 'msg_1')],
    ['revive', {}, (service) => expect(() => service.revive('build')).toThrow('disk on fire')],
    ['user grade', {}, (service) => expect(() => service.gradeAsUser({ project: PROJECT, commit: hash(1), grade: 2, via: 'cli' })).toThrow('disk on fire')],
  ])('names what triggered a flush that could not be saved (%s)', (reason, options, trigger) => {
    t = tempTracker(options);
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.noteTurnTask('s1', 'make it', 'msg_1');
    t.service.recordCommits('s1', [commit(1)]);
    t.service.endTurn('s1');
    t.service.reportBug({ agent: 'build', sessionId: 's1', description: 'broke it' });
    t.service.flush('setup');
    t.store.addIndexer(() => {
      throw new Error('disk on fire');
    });
    // An indexed record in the batch makes the write fail.
    t.service.recordCommits('s1', [commit(2)]);
    trigger(t.service);
    expect(t.logged).toEqual([{ level: 'error', message: `agent-tracker: could not save tracking data (${reason}): disk on fire` }]);
  });

  it('writes nothing for an empty buffer', () => {
    t = tempTracker();
    let told = 0;
    t.service.onFlushed(() => (told += 1));
    expect(t.service.flush('test')).toEqual({ ok: true, mutations: 0, durationMs: 0 });
    expect(t.store.meta().flushes).toBe(0);
    expect(told).toBe(0);
  });

  it('holds the size bound while recording in one flush, and flushes once it is over', () => {
    t = tempTracker({ flushMaxMutations: 2 });
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    const result = t.service.inOneFlush(() => {
      for (let i = 0; i < 5; i += 1) t.service.recordToolCall('s1', `c${i}`, 'bash', true);
      return t.store.meta().flushes;
    });
    expect(result).toBe(0);
    expect(t.store.meta().flushes).toBe(1);
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])?.toolCalls).toBe(5);
  });

  it('flushes on its own once the oldest change is older than the age bound', () => {
    t = tempTracker({ flushMaxAgeMs: 1 });
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordToolCall('s1', 'c1', 'bash', true);
    const start = Date.now();
    while (Date.now() - start < 5) {
      // wait out the 1 ms bound
    }
    t.service.recordToolCall('s1', 'c2', 'bash', true);
    expect(t.service.pendingMutations).toBe(0);
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])?.toolCalls).toBe(2);
  });

  it('hands over what is buffered and forgets it', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordToolCall('s1', 'c1', 'bash', true);
    const taken = t.service.takePending();
    expect(taken.map((m) => m.table).sort()).toEqual(['events']);
    expect(t.service.pendingMutations).toBe(0);
    expect(t.service.flush('test').ok).toBe(true);
    expect(t.store.tables.usage.getKeysCount()).toBe(0);
  });
});

describe('grades', () => {
  it('takes an empty task for a self-graded commit with an empty message', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [commit(1, { message: '' })]);
    expect(t.service.gradeCommit({ agent: 'build', project: PROJECT, commit: hash(1), agentGrade: 2 }).task).toBe('');
  });

  it('counts a user grade that could not be saved yet as given, for that project and commit only', () => {
    t = tempTracker();
    t.service.noteSession('a', { project: '/work/a' });
    t.service.noteModelRequest('a', 'build', 'fake/a');
    t.service.noteSession('b', { project: '/work/b' });
    t.service.noteModelRequest('b', 'build', 'fake/a');
    t.service.recordCommits('a', [commit(1), commit(2)]);
    t.service.recordCommits('b', [commit(1)]);
    t.service.flush('test');
    t.store.addIndexer(() => {
      throw new Error('disk on fire');
    });
    // A buffered commit goes into the grade's transaction; indexing it fails the write.
    t.service.recordCommits('a', [commit(3)]);
    expect(() => t.service.gradeAsUser({ project: '/work/a', commit: hash(1), grade: 5, via: 'cli' })).toThrow('disk on fire');
    expect(() => t.service.gradeAsUser({ project: '/work/a', commit: hash(1), grade: 2, via: 'cli' })).toThrow(/you already graded commit/);
    expect(() => t.service.gradeAsUser({ project: '/work/b', commit: hash(1), grade: 2, via: 'cli' })).toThrow('disk on fire');
    expect(() => t.service.gradeAsUser({ project: '/work/a', commit: hash(2), grade: 1, via: 'cli' })).toThrow('disk on fire');
  });
});

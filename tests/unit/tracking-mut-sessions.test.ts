/**
 * Subagent chains as the per-turn commit limit sees them: a grandchild's commits count in the user's
 * own session's turn, and sessions whose parents loop (bad data) still record their commits, each
 * loop member earning within one turn's limit.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { EARNING_COMMITS_PER_TURN } from '../../src/core/integrity/commit-credit.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker;
afterEach(() => t?.dispose());

let next = 0;
function commits(count: number) {
  return Array.from({ length: count }, () => {
    next += 1;
    return { hash: next.toString(16).padStart(40, 'f'), message: `feat: ${next}`, files: [`src/${next}.ts`], insertions: 1, deletions: 0, timestamp: '2026-11-26T09:00:00.000Z' };
  });
}

describe('the turn a subagent’s commits count in', () => {
  it('is the root session’s, two levels down too', () => {
    t = tempTracker();
    t.service.noteModelRequest('root', 'build', 'fake/a');
    t.service.noteSession('child', { parentId: 'root' });
    t.service.noteModelRequest('child', 'general', 'fake/a');
    t.service.noteSession('grandchild', { parentId: 'child' });
    t.service.noteModelRequest('grandchild', 'explore', 'fake/b');
    t.service.recordCommits('root', commits(EARNING_COMMITS_PER_TURN - 1));
    t.service.recordCommits('grandchild', commits(3));
    t.service.flush('test');
    // The root's turn had room for one more: one of the grandchild's three earns.
    expect(t.store.tables.agents.get('explore')?.commits).toBe(1);
    expect(t.store.tables.agents.get('build')?.commits).toBe(EARNING_COMMITS_PER_TURN - 1);
    expect(t.store.tables.usage.get(['grandchild', 'explore', 'fake/b'])).toMatchObject({ commits: 3, parentSessionId: 'child' });
  });

  it('is found, and the commits recorded, when the sessions’ parents loop', () => {
    t = tempTracker();
    t.service.noteSession('a', { parentId: 'b' });
    t.service.noteSession('b', { parentId: 'a' });
    t.service.noteModelRequest('a', 'build', 'fake/a');
    t.service.noteModelRequest('b', 'build', 'fake/a');
    const total = EARNING_COMMITS_PER_TURN + 2;
    expect(t.service.recordCommits('a', commits(total))).toHaveLength(total);
    t.service.flush('test');
    expect(t.store.tables.commits.getKeysCount()).toBe(total);
    expect(t.store.tables.agents.get('build')?.commits).toBe(EARNING_COMMITS_PER_TURN);
  });
});

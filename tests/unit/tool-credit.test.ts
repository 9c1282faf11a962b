/** Tool calls that do nothing earn nothing: 40 × `true` is 40 tool calls and no XP. */
import { afterEach, describe, expect, it } from '@jest/globals';
import { isNoOpCommand } from '../../src/core/integrity/tool-credit.js';
import { DEFAULT_RULES } from '../../src/core/rules.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker | undefined;
afterEach(() => {
  t?.dispose();
  t = undefined;
});

describe('a no-op shell command', () => {
  it.each([
    ['true', true],
    [':', true],
    ['echo hi', true],
    ['echo done; true', true],
    ['  true && : || echo x  ', true],
    ['printf "%s" a', true],
    ['sleep 1', true],
    ['exit 0', true],
    ['', true],
    ['echo hi > notes.txt', false],
    ['echo hi | tee notes.txt', false],
    ['echo $(rm -rf build)', false],
    ['true && npm test', false],
    ['ls', false],
    ['git commit -m x', false],
    ['exit 1', false],
  ])('%j is a no-op: %s', (command, expected) => {
    expect(isNoOpCommand(command)).toBe(expected);
  });
});

describe('tool-call credit', () => {
  it('counts forty `true` calls as tool calls but gives them no XP; real work still earns', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    for (let i = 0; i < 40; i += 1) t.service.recordToolCall('s1', `prt_true_${i}`, 'bash', true, { command: 'true' });
    t.service.recordToolCall('s1', 'prt_ls', 'bash', true, { command: 'ls -la' });
    t.service.recordToolCall('s1', 'prt_read', 'read', true);
    t.service.flush('test');
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ toolCalls: 42 });
    expect(t.store.tables.agents.get('build')).toMatchObject({ xp: 2 * DEFAULT_RULES.xpPerToolCall, sp: DEFAULT_RULES.initialSp });
  });
});

describe('commit credit per turn', () => {
  const commit = (n: number) => ({ hash: n.toString(16).padStart(40, 'c'), message: `work ${n}`, files: [`f${n}.txt`], insertions: 1, deletions: 0, timestamp: '2025-01-01T00:00:00.000Z' });

  it("counts subagents' commits in the root session's turn: two subagents with six commits each earn five in all", () => {
    t = tempTracker();
    t.service.noteSession('root', {});
    t.service.noteModelRequest('root', 'build', 'fake/a');
    for (const [child, first] of [['sub1', 0], ['sub2', 100]] as const) {
      t.service.noteSession(child, { parentId: 'root' });
      t.service.noteModelRequest(child, 'general', 'fake/a');
      t.service.recordCommits(child, Array.from({ length: 6 }, (_, i) => commit(first + i)));
      expect(t.service.endTurn(child).ok).toBe(true);
    }
    t.service.flush('test');
    // Every commit is recorded; five earn (the limit of one turn).
    expect(t.store.tables.commits.getKeysCount()).toBe(12);
    expect(t.store.tables.agents.get('general')).toMatchObject({ commits: 5 });
    // The user's next turn earns again.
    expect(t.service.endTurn('root').ok).toBe(true);
    t.service.noteSession('sub3', { parentId: 'root' });
    t.service.noteModelRequest('sub3', 'general', 'fake/a');
    t.service.recordCommits('sub3', [commit(200)]);
    t.service.flush('test');
    expect(t.store.tables.agents.get('general')).toMatchObject({ commits: 6 });
  });
});

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
    expect(t.store.tables.sessions.get(['s1', 'build', 'fake/a'])).toMatchObject({ toolCalls: 42 });
    expect(t.store.tables.agents.get('build')).toMatchObject({ xp: 2 * DEFAULT_RULES.xpPerToolCall, sp: DEFAULT_RULES.initialSp });
  });
});

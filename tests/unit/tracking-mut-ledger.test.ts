/**
 * Replays checked against what the store holds (ledger.ts) and a turn's journal entry (turns.ts), on a
 * temporary LMDB: a replayed message that grew adds its growth; an event id another session holds is
 * still this session's to count; a held event is found whatever session sorts before it; a turn's
 * journal entry lists every tool it used, and its kind is read from the files it edited; a streamed
 * message's change in any one figure counts.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker;
afterEach(() => t?.dispose());

const AT = '2026-01-02T03:04:05.000Z';
const SETUP = { agent: 'build', model: 'fake/a' };
const tokens = (input: number) => ({ input, output: 10, reasoning: 0, cacheRead: 0, cacheWrite: 0 });

describe('a replayed event', () => {
  it('of a message the store holds adds what its tokens grew by, once', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordAssistantMessage('s1', 'msg_1', SETUP, tokens(100), 0, { at: AT });
    t.service.flush('test');
    // A backfill in another process reports the finished message: 40 more input tokens.
    const backfill = t.another();
    backfill.recordAssistantMessage('s1', 'msg_1', SETUP, tokens(140), 0, { at: AT });
    backfill.flush('test');
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ messages: 1, tokensInput: 140, tokensOutput: 10 });
  });

  it('counts a call whose id a session sorting after it holds too (ids of old providers repeat)', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.noteModelRequest('s2', 'build', 'fake/a');
    t.service.recordToolCall('s2', 'call_1', 'bash', true, { at: AT });
    t.service.flush('test');
    t.service.recordToolCall('s1', 'call_1', 'bash', true, { at: AT });
    t.service.flush('test');
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])?.toolCalls).toBe(1);
    expect(t.store.tables.usage.get(['s2', 'build', 'fake/a'])?.toolCalls).toBe(1);
  });

  it('buffers nothing for a call the store holds when another session sorts before it', () => {
    t = tempTracker();
    t.service.noteModelRequest('s0', 'build', 'fake/a');
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordToolCall('s0', 'prt_0', 'bash', true, { at: AT });
    t.service.recordToolCall('s1', 'prt_1', 'bash', true, { at: AT });
    t.service.flush('test');
    const backfill = t.another();
    backfill.recordToolCall('s1', 'prt_1', 'bash', true, { at: AT });
    expect(backfill.pendingMutations).toBe(0);
  });
});

describe('a streamed message', () => {
  it('counts a change of any one token figure or of the cost alone', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    const ones = { input: 1, output: 1, reasoning: 1, cacheRead: 1, cacheWrite: 1 };
    // One message per figure: reported with every figure at 1, then again with only that figure at 7.
    for (const name of ['input', 'output', 'reasoning', 'cacheRead', 'cacheWrite'] as const) {
      t.service.recordAssistantMessage('s1', `msg_${name}`, SETUP, { ...ones }, 0.5);
      t.service.recordAssistantMessage('s1', `msg_${name}`, SETUP, { ...ones, [name]: 7 }, 0.5);
    }
    t.service.recordAssistantMessage('s1', 'msg_cost', SETUP, { ...ones }, 0.5);
    t.service.recordAssistantMessage('s1', 'msg_cost', SETUP, { ...ones }, 0.75);
    t.service.flush('test');
    // Six messages; each figure is 7 in one of them and 1 in the five others; the cost 0.5 five times and 0.75 once.
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({
      messages: 6,
      tokensInput: 12,
      tokensOutput: 12,
      tokensReasoning: 12,
      tokensCacheRead: 12,
      tokensCacheWrite: 12,
      cost: 3.25,
    });
  });
});

describe("a turn's journal entry", () => {
  it('lists each tool with its count, in the order first used, and no decisions', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.noteTurnTask('s1', 'tidy the parser', 'msg_1');
    t.service.recordToolCall('s1', 'c1', 'bash', true);
    t.service.recordToolCall('s1', 'c2', 'edit', true);
    t.service.recordToolCall('s1', 'c3', 'edit', false);
    t.service.endTurn('s1');
    const entries = [...t.store.tables.activities.getRange()].map(({ value }) => value);
    expect(entries).toEqual([expect.objectContaining({ task: 'tidy the parser', actions: 'bash x1, edit x2', outcome: 'no commits; 1 failed tool call(s)', decisions: '', automatic: true })]);
  });

  it('counts a turn that edited only tests as a tests turn, whatever its prompt says', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.noteTurnTask('s1', 'the parser, please', 'msg_1');
    t.service.recordToolCall('s1', 'c1', 'edit', true);
    t.service.noteFileEdited('s1', 'tests/parser.test.ts');
    t.service.endTurn('s1');
    const usage = t.store.tables.usage.get(['s1', 'build', 'fake/a']);
    expect([usage?.turns, usage?.turnsTests, usage?.turnsOther ?? 0, usage?.turnsFeature ?? 0]).toEqual([1, 1, 0, 0]);
  });
});

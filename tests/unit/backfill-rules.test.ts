/** The pure parts of replayable recording and backfill, table by table. */
import { describe, expect, it } from '@jest/globals';
import { bashGitFacts, outputCanShowCommits } from '../../src/core/backfill/bash-facts.js';
import { iso } from '../../src/core/backfill/replay-session.js';
import { replayDelta } from '../../src/core/store/replay.js';

describe('what a finished bash call did to git', () => {
  it.each([
    ['git commit -m "x"', 0, '[main 1a2b3c4] x\n 1 file changed', { commits: 1, printed: [{ hash: '1a2b3c4', message: 'x' }], pushed: false }],
    ['git commit -q -m "x"', 0, '', { commits: 1, printed: [], pushed: false }],
    ['git commit -m "x"', 1, '[main 1a2b3c4] x', { commits: 0, printed: [], pushed: false }],
    ['git commit -m "x"', undefined, '[main (root-commit) 00aa11b] first one', { commits: 1, printed: [{ hash: '00aa11b', message: 'first one' }], pushed: false }],
    ['git commit -m a && git commit -m b', 0, '[dev 1111111] a\n[dev 2222222] b', { commits: 2, printed: [{ hash: '1111111', message: 'a' }, { hash: '2222222', message: 'b' }], pushed: false }],
    ['git -C repo commit -am fix && git push origin main', 0, '[main abcdef0] fix', { commits: 1, printed: [{ hash: 'abcdef0', message: 'fix' }], pushed: true }],
    ['git push', 0, 'Everything up-to-date', { commits: 0, printed: [], pushed: true }],
    ['git push', 128, 'fatal', { commits: 0, printed: [], pushed: false }],
    ['echo "[main 1a2b3c4] x"', 0, '[main 1a2b3c4] x', { commits: 0, printed: [], pushed: false }],
    ['git log --oneline', 0, '[main 1a2b3c4] x', { commits: 0, printed: [], pushed: false }],
    ['legit commit', 0, '', { commits: 0, printed: [], pushed: false }],
    // git revert and git cherry-pick make a commit and print its summary line as git commit does.
    ['git revert --no-edit HEAD', 0, '[main 88a3e12] Revert "feat: add a"\n 1 file changed, 1 deletion(-)', { commits: 1, printed: [{ hash: '88a3e12', message: 'Revert "feat: add a"' }], pushed: false }],
    ['git cherry-pick 1a2b3c4', 0, '[dev 5d6e7f8] feat: add a\n Date: Sat Nov 28 10:00:00 2026 +0000\n 1 file changed', { commits: 1, printed: [{ hash: '5d6e7f8', message: 'feat: add a' }], pushed: false }],
    ['git revert --no-commit HEAD', 0, '', { commits: 0, printed: [], pushed: false }],
    ['git revert HEAD', 1, 'error: could not revert 1a2b3c4... x', { commits: 0, printed: [], pushed: false }],
    ['echo revert "[main 1a2b3c4] x"', 0, '[main 1a2b3c4] x', { commits: 0, printed: [], pushed: false }],
  ])('%s (exit %s)', (command, exit, output, expected) => {
    expect(bashGitFacts(command, exit, output)).toEqual(expected);
    // A history reader keeps the output only where it can show a commit: without the rest, the same facts.
    expect(bashGitFacts(command, exit, outputCanShowCommits(command) ? output : '')).toEqual(expected);
  });

  it('keeps the output of a command that says commit, revert or cherry-pick, and of no other', () => {
    expect(['git commit -m x', 'git -C repo commit -am fix', 'legit commit'].map(outputCanShowCommits)).toEqual([true, true, true]);
    expect(['git revert --no-edit HEAD', 'git cherry-pick abc'].map(outputCanShowCommits)).toEqual([true, true]);
    expect(['npm test', 'git log --oneline', 'git push', 'git pick', '', undefined].map(outputCanShowCommits)).toEqual([false, false, false, false, false, false]);
  });
});

describe('what a replayed event adds to what the store holds for it', () => {
  it.each([
    ['nothing held: everything', undefined, { toolCalls: 1 }, { delta: { toolCalls: 1 }, totals: { toolCalls: 1 }, changed: true }],
    ['the same again: nothing', { toolCalls: 1 }, { toolCalls: 1 }, { delta: {}, totals: { toolCalls: 1 }, changed: false }],
    ['a message that grew: the growth', { messages: 1, tokensOutput: 5, cost: 0.1 }, { messages: 1, tokensOutput: 20, cost: 0.25 }, { delta: { tokensOutput: 15, cost: 0.15 }, totals: { messages: 1, tokensOutput: 20, cost: 0.25 }, changed: true }],
    ['an older, smaller copy: nothing, the held value stays', { tokensOutput: 20 }, { tokensOutput: 5 }, { delta: {}, totals: { tokensOutput: 20 }, changed: false }],
    ['a counter held but not reported: kept', { toolCalls: 1, toolFailures: 1 }, { toolCalls: 1 }, { delta: {}, totals: { toolCalls: 1, toolFailures: 1 }, changed: false }],
    ['a zero reported for nothing held: held as zero', undefined, { tokensReasoning: 0, messages: 1 }, { delta: { messages: 1 }, totals: { tokensReasoning: 0, messages: 1 }, changed: true }],
  ] as const)('%s', (_name, held, reported, expected) => {
    const result = replayDelta(held === undefined ? undefined : { ...held }, { ...reported });
    expect(result.changed).toBe(expected.changed);
    expect(result.totals).toEqual(expected.totals);
    for (const [name, value] of Object.entries(expected.delta)) expect(result.delta[name as keyof typeof result.delta]).toBeCloseTo(value, 12);
    expect(Object.keys(result.delta).sort()).toEqual(Object.keys(expected.delta).sort());
  });
});

describe('the time of a replayed event', () => {
  it.each([0, 1, 999, 86_399_999, 86_400_000, Date.UTC(2025, 0, 10, 9, 5, 7, 42), Date.UTC(2024, 1, 29, 23, 59, 59, 999), 253_402_300_799_999, 253_402_300_800_000, -1, 1.5])(
    'is written as Date writes it: %s',
    (epochMs) => {
      expect(iso(epochMs)).toBe(new Date(epochMs).toISOString());
    },
  );
});

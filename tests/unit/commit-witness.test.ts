/**
 * The lookups a replay makes in a project's commits (src/core/backfill/commit-witness.ts), on fixture
 * strings and hand-made commits: what `git log` printed, a printed hash, and the commits of a call's time.
 */
import { describe, expect, it } from '@jest/globals';
import { LONGEST_CALL_MS, oldestWitnessable, parseWitnessLog, ProjectCommits, witnessLogArgs } from '../../src/core/backfill/commit-witness.js';
import type { WitnessedCommit } from '../../src/core/backfill/commit-witness.js';

const US = '\u001f';
const T = 1_700_000_000_000;
const hex = (digit: string, rest = '0') => digit.padEnd(40, rest);
const made = (hash: string, at: number, subject = 'work', parents: string[] = []): WitnessedCommit => ({ hash, parents, committedAt: at, subject });

describe('parseWitnessLog', () => {
  it('reads each commit\'s hash, parents, time in milliseconds and subject, and leaves out every other line', () => {
    const merge = hex('c');
    const output = [
      `${hex('a')}${US}${US}1700000000${US}feat: root`,
      `${hex('b')}${US}${hex('a')}${US}1700000005${US}fix: one`,
      `${merge}${US}${hex('a')} ${hex('b')}${US}1700000009${US}Merge branch 'x'`,
      'not a commit',
      `${hex('d')}${US}${US}soon${US}bad time`,
      `${hex('e')}${US}${US}${US}no time`,
      `abc${US}${US}1700000000${US}short hash`,
      '',
    ].join('\n');
    expect(parseWitnessLog(output)).toEqual([
      { hash: hex('a'), parents: [], committedAt: 1_700_000_000_000, subject: 'feat: root' },
      { hash: hex('b'), parents: [hex('a')], committedAt: 1_700_000_005_000, subject: 'fix: one' },
      { hash: merge, parents: [hex('a'), hex('b')], committedAt: 1_700_000_009_000, subject: "Merge branch 'x'" },
    ]);
  });

  it('asks git for every ref and the reflog, newest first, bounded, with no signature check', () => {
    const args = witnessLogArgs(7);
    expect(args.slice(0, 1)).toEqual(['log']);
    expect(args).toEqual(expect.arrayContaining(['--all', '--reflog', '--no-show-signature', '--max-count=7']));
    expect(args.at(-1)).toBe(`--format=%H${US}%P${US}%ct${US}%s`);
    expect(args.filter((arg) => arg.startsWith('--since'))).toEqual([]);
    // git's own form of a time: whole seconds since the epoch, after an @.
    expect(witnessLogArgs(7, 1_700_000_000_999)).toEqual([...args.slice(0, -1), '--since=@1700000000', args.at(-1)]);
    expect(witnessLogArgs(7, 100_000_000_000)).toContain('--since=@100000000');
  });

  it('leaves out a bound git would not read as a time (before 1973: a session created at 0, say), or none at all', () => {
    for (const since of [99_999_999_999, 0, oldestWitnessable(0), -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(witnessLogArgs(7, since)).toEqual(witnessLogArgs(7));
    }
  });

  it('reads from the oldest time a call of the sessions can hold: the longest call before the oldest one, less a second', () => {
    expect(oldestWitnessable(T)).toBe(T - 10 * 60_000 - 1000);
    expect(oldestWitnessable(undefined)).toBeUndefined();
  });
});

describe('ProjectCommits', () => {
  const call = { from: T, to: T + 10_000 };

  it('finds a printed hash by its unique prefix, made during the call (git\'s whole seconds: a second of slack each way)', () => {
    // In git log's order (newest first), not the hashes' order.
    const commits = new ProjectCommits([made(hex('9', '8'), T - 1001), made(hex('1a2b3c6', '7'), T + 11_000), made(hex('1a2b3c4', '5'), T + 4000), made(hex('1a2b3c5', '6'), T - 1000)]);
    expect(commits.printed('1a2b3c4', call)?.hash).toBe(hex('1a2b3c4', '5'));
    expect(commits.printed('1a2b3c5', call)?.hash).toBe(hex('1a2b3c5', '6'));
    expect(commits.printed('1a2b3c6', call)?.hash).toBe(hex('1a2b3c6', '7'));
    expect(commits.printed('9888888', call)).toBeUndefined();
    expect(commits.printed('1a2b3c7', call)).toBeUndefined();
    expect(commits.printed('0000000', call)).toBeUndefined();
    expect(commits.printed('fffffff', call)).toBeUndefined();
    // The whole hash, as a longer abbreviation would print it.
    expect(commits.printed(hex('1a2b3c4', '5'), call)?.hash).toBe(hex('1a2b3c4', '5'));
  });

  it('finds nothing for a prefix two commits share, or for a hash it does not hold in full', () => {
    const commits = new ProjectCommits([made(hex('abcdef1', '1'), T + 1), made(hex('abcdef1', '2'), T + 2)]);
    expect(commits.printed('abcdef1', call)).toBeUndefined();
    expect(commits.printed('abcdef11', call)?.hash).toBe(hex('abcdef1', '1'));
    expect(commits.printed(`${hex('abcdef1', '1')}0`, call)).toBeUndefined();
  });

  it('finds each of many commits, given in any order, by its seven characters', () => {
    // A fixed scramble of 300 distinct hashes (i * 7919 mod 2^28 is one-to-one), in git log's order, not the hashes'.
    const hashes = Array.from({ length: 300 }, (_v, i) => ((i * 7919 * 104_729) % 2 ** 28).toString(16).padStart(7, '0').padEnd(40, String(i % 10)));
    const commits = new ProjectCommits(hashes.map((hash, i) => made(hash, T + i)));
    const wide = { from: T, to: T + 1000 };
    expect(hashes.filter((hash) => commits.printed(hash.slice(0, 7), wide)?.hash !== hash)).toEqual([]);
  });

  it('gives back each found commit whole: its hash, parents, time and subject', () => {
    const root = made(hex('a'), T + 1000, 'feat: root');
    const merge = made(hex('c'), T + 3000, "Merge branch 'x' into main", [hex('a'), hex('b')]);
    const fix = made(hex('b'), T + 2000, 'fix: one', [hex('a')]);
    const commits = new ProjectCommits([merge, fix, root]);
    expect(commits.printed('c000000', call)).toEqual(merge);
    expect(commits.printed(hex('a'), call)).toEqual(root);
    expect(commits.madeDuring(call)).toEqual([root, fix, merge]);
  });

  it('holds a commit the log listed twice (a ref and the reflog) once', () => {
    const twice = made(hex('5'), T + 1);
    expect(new ProjectCommits([twice, { ...twice }]).printed('5000000', call)?.hash).toBe(hex('5'));
  });

  it('gives the commits made during a call, oldest first, and bounds a call of unknown start to the longest one', () => {
    const inside = [made(hex('e'), T + 9000), made(hex('d'), T + 2000), made(hex('f'), T + 2000)];
    const commits = new ProjectCommits([...inside, made(hex('1'), T + 12_000), made(hex('2'), T - 5000)]);
    expect(commits.madeDuring(call).map((c) => c.hash)).toEqual([hex('d'), hex('f'), hex('e')]);
    const end = T + LONGEST_CALL_MS;
    const edges = new ProjectCommits([made(hex('3'), T - 1000), made(hex('4'), T - 1001), made(hex('6'), end + 1000)]);
    expect(edges.madeDuring({ to: end }).map((c) => c.hash)).toEqual([hex('3'), hex('6')]);
    expect(edges.printed('4000000', { to: end })).toBeUndefined();
  });
});

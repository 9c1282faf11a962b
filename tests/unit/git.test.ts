import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { commitLogArgs, commitsSince, MAX_GITS_LOOKED_AT, mayMoveHead, parseCommitLog, readHead, runsGitPush, SUBCOMMAND_WINDOW } from '../../src/core/projects/git.js';
import { git, makeRepo, makeSandbox, removeSandbox } from '../helpers/sandbox.js';

const RS = '\u001e';
const FS = '\u001f';

describe('git output parsing', () => {
  it('parses hashes, messages and numstat lines', () => {
    const output =
      `${RS}${'b'.repeat(40)}${FS}1700000100${FS}second\n\nbody line${FS}\n\n3\t1\tsrc/a.ts\n-\t-\timg.png\n` +
      `${RS}${'a'.repeat(40)}${FS}1700000000${FS}first${FS}\n\n10\t0\tREADME.md\n`;
    const commits = parseCommitLog(output);
    expect(commits.map((c) => c.hash)).toEqual(['b'.repeat(40), 'a'.repeat(40)]);
    expect(commits[0]).toMatchObject({ message: 'second\n\nbody line', files: ['src/a.ts', 'img.png'], insertions: 3, deletions: 1 });
    expect(commits[0]?.timestamp).toBe(new Date(1700000100 * 1000).toISOString());
    expect(commits[1]).toMatchObject({ files: ['README.md'], insertions: 10, deletions: 0 });
  });

  it('builds log arguments as an array, with a range only when there was a HEAD before', () => {
    expect(commitLogArgs('old', 'new', 5)).toEqual(['log', '--max-count=5', '--numstat', '--no-renames', expect.stringContaining('%H'), 'old..new', '--']);
    expect(commitLogArgs(undefined, 'new', 5).at(-2)).toBe('new');
  });

  it.each([
    ['git commit -m x', true],
    ['cd src && git status', false],
    ['git status --short', false],
    ['git -C sub --no-pager log --oneline | head -5', false],
    ['git --git-dir=.git diff HEAD~1 > out.txt; git show -1 2>&1', false],
    ['echo $(git rev-parse HEAD)', false],
    ['git fetch origin && git log origin/main', false],
    ['git status && git commit -qm x', true],
    ['git diff\ngit commit -am x', true],
    ['git log -1 || git reset --hard', true],
    ['git -c user.name=x commit -m y', true],
    ['git -c alias.st=commit st', true],
    ['git --no-pager  log', false],
    ['git -C "my dir" status', true],
    ['git -C a\\ status commit', true],
    ['git -C $REPO status', true],
    ['git $SUB', true],
    ['git --no-pager', true],
    ['git pull', true],
    ['git push', true],
    ['git stash', true],
    ['xargs git cherry-pick < list', true],
    ['echo digit', false],
    ['legit-tool commit', false],
    ['gitk commit', false],
  ])('knows whether %p may move HEAD', (command, expected) => {
    expect(mayMoveHead(command)).toBe(expected);
  });

  it('judges a command of any length in bounded time, reading HEAD once it stops looking', () => {
    // Read-only gits up to the number looked at; one more and HEAD is read without looking.
    expect(mayMoveHead('git status; '.repeat(MAX_GITS_LOOKED_AT))).toBe(false);
    expect(mayMoveHead('git status; '.repeat(MAX_GITS_LOOKED_AT + 1))).toBe(true);
    // A megabyte of one line of read-only gits (before the bound, each look scanned the rest of the line).
    expect(mayMoveHead('git status '.repeat(100_000))).toBe(true);
    // Options that fill the window: no subcommand seen in it.
    const options = ' --no-pager'.repeat(Math.ceil(SUBCOMMAND_WINDOW / 11));
    expect(mayMoveHead(`git${options} status`)).toBe(true);
    // A window that ends inside a word ("status" of "statusx") does not take the cut word.
    const flags = ' -p'.repeat((SUBCOMMAND_WINDOW - ' status'.length) / 3);
    expect(`${flags} status`).toHaveLength(SUBCOMMAND_WINDOW);
    expect(mayMoveHead(`git${flags} statusx`)).toBe(true);
    expect(mayMoveHead(`git${flags.slice(3)} status`)).toBe(false);
  });

  it.each([
    ['git push', true],
    ['git push -u origin main', true],
    ['git -C repo push origin', true],
    ['git commit -m "push it" ', false],
    ['echo git push-notes', false],
    ['git add . && git commit -m x && git push', true],
  ])('knows whether %p pushes', (command, expected) => {
    expect(runsGitPush(command)).toBe(expected);
  });
});

describe('reading commits from a real repository', () => {
  const sandbox = makeSandbox();
  afterAll(() => removeSandbox(sandbox));

  it('lists the commits between two HEADs, oldest first, with their files', async () => {
    const repo = makeRepo(sandbox, 'commits');
    const before = await readHead(repo);
    fs.writeFileSync(path.join(repo, 'one.txt'), 'one\n');
    git(repo, ['add', 'one.txt'], sandbox.env);
    git(repo, ['commit', '-q', '-m', 'one'], sandbox.env);
    fs.writeFileSync(path.join(repo, 'two.txt'), 'two\nlines\n');
    git(repo, ['add', 'two.txt'], sandbox.env);
    git(repo, ['commit', '-q', '-m', 'two'], sandbox.env);
    const after = await readHead(repo);
    expect(after).not.toBe(before);
    const commits = await commitsSince(repo, before, after as string, 0);
    expect(commits.map((c) => c.message)).toEqual(['one', 'two']);
    expect(commits[1]).toMatchObject({ files: ['two.txt'], insertions: 2, deletions: 0 });
    expect(commits.map((c) => c.hash)).toEqual(git(repo, ['log', '--reverse', '--format=%H', `${before}..HEAD`], sandbox.env).trim().split('\n'));
  });

  it('leaves out commits older than the call (brought in, not made)', async () => {
    const repo = makeRepo(sandbox, 'old-commits');
    const before = await readHead(repo);
    fs.writeFileSync(path.join(repo, 'x.txt'), 'x\n');
    git(repo, ['add', 'x.txt'], sandbox.env);
    git(repo, ['commit', '-q', '-m', 'old'], { ...sandbox.env, GIT_COMMITTER_DATE: '2001-01-01T00:00:00Z' });
    const after = (await readHead(repo)) as string;
    expect(await commitsSince(repo, before, after, Math.floor(Date.now() / 1000) - 60)).toEqual([]);
  });

  it('has no HEAD in a folder that is not a repository', async () => {
    const folder = path.join(sandbox.root, 'plain');
    fs.mkdirSync(folder);
    expect(await readHead(folder)).toBeUndefined();
  });
});

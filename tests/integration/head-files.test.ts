/**
 * HEAD read from a repository's files, checked against what git itself says (`git rev-parse`) on real
 * repositories: every layout it answers for gives git's hash, every other gives undefined (the caller
 * then asks git), and nothing planted at one of its names makes it hang or read outside the repository.
 */
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { currentHead, headFromFiles, headIfMoved } from '../../src/core/projects/head-files.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('agent-tracker-head-files-');
const git = (cwd: string, ...args: string[]): string => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, encoding: 'utf8' }).trim();
const gitHead = (cwd: string): string => git(cwd, 'rev-parse', 'HEAD');

/** A repository with `commits` commits on branch `main`. */
function repo(commits = 2): string {
  const dir = tempDir();
  git(dir, 'init', '-q', '-b', 'main');
  for (let i = 0; i < commits; i += 1) {
    fs.writeFileSync(path.join(dir, 'a.txt'), `${i}\n`);
    git(dir, 'add', 'a.txt');
    git(dir, 'commit', '-q', '-m', `c${i}`);
  }
  return dir;
}

describe("HEAD from the repository's files", () => {
  it('is the commit git names, from the loose ref, and follows a new commit', () => {
    const dir = repo();
    expect(headFromFiles(dir)).toBe(gitHead(dir));
    const before = gitHead(dir);
    fs.writeFileSync(path.join(dir, 'a.txt'), 'new\n');
    git(dir, 'commit', '-q', '-am', 'next');
    expect(headFromFiles(dir)).toBe(gitHead(dir));
    expect(headFromFiles(dir)).not.toBe(before);
  });

  it('reads a packed branch from packed-refs, among tags and peeled lines', () => {
    const dir = repo(3);
    git(dir, 'tag', '-a', '-m', 'v1', 'v1', 'HEAD~1');
    git(dir, 'branch', 'other', 'HEAD~2');
    git(dir, 'pack-refs', '--all');
    expect(fs.existsSync(path.join(dir, '.git', 'refs', 'heads', 'main'))).toBe(false);
    expect(headFromFiles(dir)).toBe(gitHead(dir));
  });

  it('reads a detached HEAD and a switch to another branch', () => {
    const dir = repo(3);
    git(dir, 'checkout', '-q', '--detach', 'HEAD~1');
    expect(headFromFiles(dir)).toBe(gitHead(dir));
    git(dir, 'checkout', '-q', '-b', 'side', 'HEAD~1');
    expect(headFromFiles(dir)).toBe(gitHead(dir));
  });

  it('follows a reset that rewrites the loose ref', () => {
    const dir = repo(3);
    git(dir, 'reset', '-q', '--hard', 'HEAD~2');
    expect(headFromFiles(dir)).toBe(gitHead(dir));
  });

  it('leaves to git what its files do not say plainly', () => {
    const unborn = tempDir();
    git(unborn, 'init', '-q', '-b', 'main');
    expect(headFromFiles(unborn)).toBeUndefined();

    const main = repo();
    const worktree = path.join(tempDir(), 'wt');
    git(main, 'worktree', 'add', '-q', worktree, '-b', 'wt-branch');
    expect(gitHead(worktree)).toMatch(/^[0-9a-f]{40}$/);
    expect(headFromFiles(worktree)).toBeUndefined();

    const sub = path.join(main, 'sub');
    fs.mkdirSync(sub);
    expect(headFromFiles(sub)).toBeUndefined();
    expect(headFromFiles(tempDir())).toBeUndefined();
  });

  it('is asked of git where the files do not tell: a worktree has its HEAD all the same', async () => {
    const main = repo();
    const worktree = path.join(tempDir(), 'wt');
    git(main, 'worktree', 'add', '-q', worktree, '-b', 'wt-branch', 'HEAD~1');
    expect(await currentHead(main)).toBe(gitHead(main));
    expect(await currentHead(worktree)).toBe(gitHead(worktree));
    expect(await headIfMoved(worktree, gitHead(main))).toBe(gitHead(worktree));
    expect(await headIfMoved(worktree, gitHead(worktree))).toBeUndefined();
    expect(await currentHead(tempDir())).toBeUndefined();
  });

  it('gives undefined for a ref that is damaged, no hash, or names a path out of refs/heads', () => {
    const dir = repo();
    const ref = path.join(dir, '.git', 'refs', 'heads', 'main');
    fs.writeFileSync(ref, 'not a hash\n');
    expect(headFromFiles(dir)).toBeUndefined();
    fs.rmSync(ref);
    fs.mkdirSync(ref);
    expect(headFromFiles(dir)).toBeUndefined();

    const outside = repo();
    fs.writeFileSync(path.join(outside, 'x'), `${gitHead(outside)}\n`);
    fs.writeFileSync(path.join(outside, '.git', 'HEAD'), 'ref: refs/heads/../../../x\n');
    expect(headFromFiles(outside)).toBeUndefined();
    fs.writeFileSync(path.join(outside, '.git', 'HEAD'), 'ref: refs/tags/v1\n');
    expect(headFromFiles(outside)).toBeUndefined();
    // HEAD lines git itself would not take (each would otherwise lead to the `main` branch's ref).
    for (const line of ['xref: refs/heads/main', 'ref: refs/heads/main junk', 'ref: refs/heads//main', 'ref: refs/heads/./main', 'ref: refs/heads/x/../main']) {
      fs.writeFileSync(path.join(outside, '.git', 'HEAD'), `${line}\n`);
      expect([line, headFromFiles(outside)]).toEqual([line, undefined]);
    }
    fs.writeFileSync(path.join(outside, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    expect(headFromFiles(outside)).toBe(gitHead(outside));
  });

  it('does not fall back to packed-refs when the loose ref is there but cannot be read', () => {
    const dir = repo();
    git(dir, 'pack-refs', '--all');
    expect(headFromFiles(dir)).toBe(gitHead(dir));
    fs.mkdirSync(path.join(dir, '.git', 'refs', 'heads', 'main'));
    expect(headFromFiles(dir)).toBeUndefined();
  });

  it('does not wait on a FIFO planted at HEAD or at the ref', () => {
    const dir = repo();
    fs.rmSync(path.join(dir, '.git', 'refs', 'heads', 'main'));
    execFileSync('mkfifo', [path.join(dir, '.git', 'refs', 'heads', 'main')]);
    expect(headFromFiles(dir)).toBeUndefined();
    fs.rmSync(path.join(dir, '.git', 'HEAD'));
    execFileSync('mkfifo', [path.join(dir, '.git', 'HEAD')]);
    expect(headFromFiles(dir)).toBeUndefined();
  });

  it('leaves to git a run where GIT_DIR names another repository', () => {
    const dir = repo();
    const saved = process.env.GIT_DIR;
    process.env.GIT_DIR = path.join(repo(), '.git');
    try {
      expect(headFromFiles(dir)).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.GIT_DIR;
      else process.env.GIT_DIR = saved;
    }
    expect(headFromFiles(dir)).toBe(gitHead(dir));
  });
});

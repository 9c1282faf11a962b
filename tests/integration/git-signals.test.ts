/** Git after the fact: revert and follow-up-fix detection (pure, table-driven) and on real fixture repositories. */
import { afterEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { branchLogArgs, gitSignals, readBranch, refreshGitSignals, refreshGitSignalsOf } from '../../src/core/outcomes/git-outcomes.js';
import type { GitSignalCache, GitSignalSink } from '../../src/core/outcomes/git-outcomes.js';
import { commitFate, FOLLOW_UP_WINDOW, followUpWindowClosed, isFixLike, isFixupOf, newlyCounted, parseBranchLog, revertingCommits, reverts, touchesSameLines } from '../../src/core/outcomes/git-signals.js';
import type { BranchCommit, LineRange } from '../../src/core/outcomes/git-signals.js';
import type { CommitRecord } from '../../src/core/types.js';
import { headIfMoved } from '../../src/core/projects/head-files.js';
import { backgroundGitSignals } from '../../src/opencode/git-signals-background.js';
import { recordingLogger, tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const lines = (file: string, start: number, end: number): LineRange => ({ file, start, end });
const commit = (hash: string, subject: string, extra: Partial<BranchCommit> = {}): BranchCommit => ({ hash, subject, body: '', oldLines: [], newLines: [], ...extra });
const fillers = (n: number, from = 0) => Array.from({ length: n }, (_v, i) => commit(`f${(from + i).toString(16).padStart(7, '0')}`, `chore: other ${i}`, { oldLines: [lines('other.txt', 1, 1)] }));
const target = commit('c0ffee1234567890', 'feat: add parser', { newLines: [lines('src/p.ts', 10, 20)] });
const fixAt = (subject = 'fix: parser off by one', file = 'src/p.ts', start = 15, end = 15) => commit('fix0000000000001', subject, { oldLines: [lines(file, start, end)] });

describe('fix-like messages', () => {
  it.each([
    ['fix: off by one', true],
    ['Fixes the parser', true],
    ['fixed crash', true],
    ['hotfix for login', true],
    ['bugfix', true],
    ['Correct the total', true],
    ['repair build', true],
    ['oops', true],
    ['typo in readme', true],
    ['regression in 2.0', true],
    ['fixing the parser', true],
    ['bug in parser', true],
    ['repairs', true],
    ['repaired build', true],
    ['corrects totals', true],
    ['corrected', true],
    ['correction of totals', true],
    ['broken link', true],
    ['FIX: upper case', true],
    ['add fixtures', false],
    ['feat: add parser', false],
    ['prefix handling', false],
    ['refactor: fixtures', false],
    ['debug logging', false],
    ['Revert "feat: add parser"', false],
  ])('%j: %s', (subject, want) => {
    expect(isFixLike(subject)).toBe(want);
  });
});

describe('reverts and fixups', () => {
  it.each([
    [{ subject: 'Revert "feat: add parser"', body: 'This reverts commit c0ffee1234567890.' }, true],
    [{ subject: 'undo', body: 'This reverts commit c0ffee1.' }, true],
    [{ subject: 'undo', body: 'this reverts commit C0FFEE1234.' }, true],
    [{ subject: 'Revert "feat: add parser"', body: '' }, true],
    [{ subject: 'Revert "feat: add parser too"', body: '' }, false],
    [{ subject: 'undo', body: 'This reverts commit deadbee.' }, false],
    [{ subject: 'revert the parser', body: '' }, false],
    [{ subject: 'undo', body: 'This reverts commit c0ffee.' }, false],
    [{ subject: 'undo', body: 'This reverts commit deadbee.\nThis reverts commit c0ffee1.' }, true],
    [{ subject: 'Re: Revert "feat: add parser"', body: '' }, false],
    [{ subject: 'Revert "feat: add parser" again', body: '' }, false],
    [{ subject: 'Revert "feat: add parser" ', body: '' }, true],
  ])('%j reverts the commit: %s', (later, want) => {
    expect(reverts(later, target)).toBe(want);
  });
  it.each([
    ['fixup! feat: add parser', true],
    ['squash! feat: add parser', true],
    ['amend! feat: add parser', true],
    ['fixup! fixup! feat: add parser', true],
    ['fixup! c0ffee1', true],
    ['fixup! c0ffee2', false],
    ['fixup! c0ffe', false],
    ['fixup! C0FFEE1', true],
    ['FIXUP! feat: add parser', true],
    ['squash! fixup! feat: add parser', true],
    ['fixup! feat: other', false],
    ['feat: add parser', false],
  ])('%j aims at the commit: %s', (subject, want) => {
    expect(isFixupOf({ subject }, target)).toBe(want);
  });
  it.each([
    [[lines('a', 10, 20)], [lines('a', 20, 25)], true],
    [[lines('a', 10, 20)], [lines('a', 5, 10)], true],
    [[lines('a', 10, 20)], [lines('a', 12, 12)], true],
    [[lines('a', 10, 20)], [lines('a', 21, 30)], false],
    [[lines('a', 10, 20)], [lines('a', 1, 9)], false],
    [[lines('a', 10, 20)], [lines('b', 10, 20)], false],
    [[], [lines('a', 1, 1)], false],
    [[lines('a', 10, 20)], [lines('b', 1, 5), lines('a', 15, 15)], true],
  ])('%j and %j share a line: %s', (written, changed, want) => {
    expect(touchesSameLines(written, changed)).toBe(want);
  });
});

describe('the fate of a commit on its branch', () => {
  it.each([
    ['a fix to the same lines right after', [target, fixAt()], { reverted: false, followUpFix: true }],
    ['a fix as the 10th commit after', [target, ...fillers(FOLLOW_UP_WINDOW - 1), fixAt()], { reverted: false, followUpFix: true }],
    ['a fix as the 11th commit after', [target, ...fillers(FOLLOW_UP_WINDOW), fixAt()], { reverted: false, followUpFix: false }],
    ['a fix to other lines', [target, fixAt('fix: parser', 'src/p.ts', 30, 31)], { reverted: false, followUpFix: false }],
    ['a fix to another file', [target, fixAt('fix: parser', 'src/q.ts', 15, 15)], { reverted: false, followUpFix: false }],
    ['a change to the same lines that is no fix', [target, fixAt('feat: extend parser')], { reverted: false, followUpFix: false }],
    ['a fixup! commit anywhere in the window', [target, ...fillers(FOLLOW_UP_WINDOW - 1), commit('a1', 'fixup! feat: add parser')], { reverted: false, followUpFix: true }],
    ['a fixup! commit after the window', [target, ...fillers(FOLLOW_UP_WINDOW), commit('a1', 'fixup! feat: add parser')], { reverted: false, followUpFix: false }],
    ['a revert much later', [target, ...fillers(FOLLOW_UP_WINDOW * 3), commit('r1', 'Revert "feat: add parser"', { body: 'This reverts commit c0ffee1234567890.' })], { reverted: true, followUpFix: false }],
    ['a revert touching the same lines is no fix', [target, commit('r1', 'Revert "feat: add parser"', { oldLines: [lines('src/p.ts', 10, 20)] })], { reverted: true, followUpFix: false }],
    ['a revert naming its hash only, under another subject', [target, ...fillers(FOLLOW_UP_WINDOW + 2), commit('r2', 'chore: undo the parser', { body: 'This reverts commit c0ffee12.' })], { reverted: true, followUpFix: false }],
    ['a revert by its subject only', [target, ...fillers(FOLLOW_UP_WINDOW + 2), commit('r3', 'Revert "feat: add parser"')], { reverted: true, followUpFix: false }],
    ['a revert of another commit', [target, ...fillers(3), commit('r4', 'Revert "chore: other 1"', { body: 'This reverts commit f0000001.' })], { reverted: false, followUpFix: false }],
    ['a revert BEFORE it', [commit('r5', 'Revert "feat: add parser"', { body: 'This reverts commit c0ffee1234567890.' }), target], { reverted: false, followUpFix: false }],
    ['nothing after it', [target], { reverted: false, followUpFix: false }],
    ['a fix BEFORE it', [fixAt(), target], { reverted: false, followUpFix: false }],
    ['a fix right after it, late on the branch', [...fillers(12), target, fixAt()], { reverted: false, followUpFix: true }],
    ['a fix to other files and to its lines', [target, commit('fix0000000000002', 'fix: several things', { oldLines: [lines('README.md', 1, 1), lines('src/p.ts', 12, 12)] })], { reverted: false, followUpFix: true }],
  ])('%s', (_name, branch, want) => {
    expect(commitFate(branch, branch.indexOf(target))).toEqual(want);
  });
  it('asks only the commits that revert something, each found by its hash line or its Revert subject', () => {
    const branch = [
      target,
      ...fillers(2),
      commit('r1', 'chore: undo', { body: 'This reverts commit 0123abc.' }),
      fixAt(),
      commit('r2', 'Revert "x"'),
      commit('r3', 'Reverting things'),
      commit('r4', 'note', { body: 'this Reverts Commit ABCDEF0' }),
      commit('r5', 'note', { body: 'This reverts commit abc12.' }),
      commit('r6', 'Not a Revert "x"'),
      commit('r7', 'Revert "x" and more'),
      commit('r8', '  Revert "y"  '),
    ];
    expect(revertingCommits(branch)).toEqual([3, 5, 7, 11]);
  });
  it('has no fate for a position off the branch', () => {
    expect(commitFate([target], 3)).toEqual({ reverted: false, followUpFix: false });
    expect(commitFate([target, commit('r1', 'Revert "feat: add parser"')], -1)).toEqual({ reverted: false, followUpFix: false });
  });
  it('is not reverted by its own message, and a revert with a fix-like subject is a revert, not a follow-up fix', () => {
    const selfNaming = commit('abcdef1234567890', 'feat: x', { body: 'This reverts commit abcdef12.' });
    expect(commitFate([selfNaming, ...fillers(2)], 0)).toEqual({ reverted: false, followUpFix: false });
    const fixLikeRevert = commit('r9', 'fix: undo the parser', { body: 'This reverts commit c0ffee12.', oldLines: [lines('src/p.ts', 12, 14)] });
    expect(commitFate([target, fixLikeRevert], 0)).toEqual({ reverted: true, followUpFix: false });
  });
  it.each([
    [FOLLOW_UP_WINDOW - 1, false],
    [FOLLOW_UP_WINDOW, true],
    [FOLLOW_UP_WINDOW + 1, true],
  ])('with %i commits after it the window is closed: %s', (after, want) => {
    expect(followUpWindowClosed([target, ...fillers(after)], 0)).toBe(want);
  });
  it('counts the window from the commit, wherever it is on the branch', () => {
    expect(followUpWindowClosed([...fillers(5), target, ...fillers(FOLLOW_UP_WINDOW - 1, 5)], 5)).toBe(false);
    expect(followUpWindowClosed([...fillers(5), target, ...fillers(FOLLOW_UP_WINDOW, 5)], 5)).toBe(true);
  });
  it.each([
    [{ reverted: true, followUpFix: true }, undefined, { revertedCommits: 1, followUpFixCommits: 1 }],
    [{ reverted: true, followUpFix: false }, { reverted: true, followUpFix: false }, { revertedCommits: 0, followUpFixCommits: 0 }],
    [{ reverted: true, followUpFix: true }, { reverted: false, followUpFix: true }, { revertedCommits: 1, followUpFixCommits: 0 }],
    [{ reverted: false, followUpFix: false }, { reverted: true, followUpFix: true }, { revertedCommits: 0, followUpFixCommits: 0 }],
    [{ reverted: false, followUpFix: true }, undefined, { revertedCommits: 0, followUpFixCommits: 1 }],
  ])('fate %j counted before as %j adds %j', (fate, before, want) => {
    expect(newlyCounted(fate, before)).toEqual(want);
  });
});

describe('parsing git log -p -U0', () => {
  it('reads commits oldest first with the lines each removed and wrote', () => {
    const out = [
      '\u001ebbbbbbb2\u001ffix: one\u001f\u001f\ndiff --git a/x.txt b/x.txt\nindex 1..2 100644\n--- a/x.txt\n+++ b/x.txt\n@@ -3 +3 @@\n-a\n+b\n@@ -7,0 +8,2 @@\n+c\n+d\n',
      '\u001eaaaaaaa1\u001ffeat: x\u001fbody line\u001f\ndiff --git a/x.txt b/x.txt\nnew file mode 100644\n--- /dev/null\n+++ b/x.txt\n@@ -0,0 +1,10 @@\n+1\n',
    ].join('');
    expect(parseBranchLog(out)).toEqual([
      { hash: 'aaaaaaa1', subject: 'feat: x', body: 'body line', oldLines: [lines('x.txt', 0, 0)], newLines: [lines('x.txt', 1, 10)] },
      { hash: 'bbbbbbb2', subject: 'fix: one', body: '', oldLines: [lines('x.txt', 3, 3), lines('x.txt', 7, 7)], newLines: [lines('x.txt', 3, 3), lines('x.txt', 8, 9)] },
    ]);
  });
  it('skips a record without a hash, takes a 7-digit one, and trims subject and body', () => {
    const out = '\u001enot a hash\u001fjunk\u001f\u001f\n' + '\u001eabcdef1\u001f  feat: y  \u001f\nbody\n\n\u001f\ndiff --git a/y.txt b/y.txt\n@@ -0,0 +1 @@\n+y\n';
    expect(parseBranchLog(out)).toEqual([{ hash: 'abcdef1', subject: 'feat: y', body: 'body', oldLines: [lines('y.txt', 0, 0)], newLines: [lines('y.txt', 1, 1)] }]);
  });
  it('reads line numbers and counts of several digits', () => {
    const out = '\u001eabcdef1\u001ffix: totals\u001f\u001f\ndiff --git a/t.ts b/t.ts\n@@ -123,45 +130,67 @@\n-a\n+b\n';
    expect(parseBranchLog(out)[0]).toMatchObject({ oldLines: [lines('t.ts', 123, 167)], newLines: [lines('t.ts', 130, 196)] });
  });
  it('takes diff headers inside an added patch file as its content, not as other files', () => {
    // A commit adding a .patch file: its lines that look like a diff header or a hunk belong to the patch file.
    const out = '\u001eabcdef1\u001ffeat: ship a patch\u001f\u001f\ndiff --git a/fix.patch b/fix.patch\n@@ -0,0 +1,3 @@\n+diff --git a/src/p.ts b/src/p.ts\n+@@ -40 +40 @@\n+-x\n@@ -0,0 +9 @@\n+end\n';
    expect(parseBranchLog(out)[0]).toMatchObject({
      oldLines: [lines('fix.patch', 0, 0), lines('fix.patch', 0, 0)],
      newLines: [lines('fix.patch', 1, 3), lines('fix.patch', 9, 9)],
    });
  });
  it('passes git an argument array naming the first-parent branch with zero-context diffs', () => {
    expect(branchLogArgs(5)).toEqual(['log', '--first-parent', '-n', '5', '--format=\u001e%H\u001f%s\u001f%b\u001f', '-p', '-U0', '--no-color', '--no-ext-diff', '--no-textconv', '--submodule=short', '--no-renames', 'HEAD']);
  });
});

describe('on real repositories', () => {
  let dir: string;
  let t: TempTracker | undefined;
  afterEach(() => {
    t?.dispose();
    t = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
  function repo(): void {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-signals-')));
    git('init', '-q', '-b', 'main');
    git('config', 'user.email', 't@example.com');
    git('config', 'user.name', 'T');
  }
  function commitFile(file: string, text: string, message: string): string {
    fs.writeFileSync(path.join(dir, file), text);
    git('add', '-A');
    git('commit', '-qm', message);
    return git('rev-parse', 'HEAD');
  }
  const numbered = (n: number, changed: Record<number, string> = {}) => Array.from({ length: n }, (_v, i) => changed[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';
  const record = (hash: string, sessionId: string): CommitRecord => ({ hash, project: dir, agent: 'build', model: 'fake/a', sessionId, message: '', files: [], insertions: 0, deletions: 0, timestamp: '2024-01-01T00:00:00Z' });

  it('finds a reverted commit and a follow-up fix, counts each once on the maker, and leaves other commits alone', async () => {
    repo();
    commitFile('a.txt', numbered(20), 'init');
    const reverted = commitFile('b.txt', 'b\n', 'feat: b');
    const fixed = commitFile('a.txt', numbered(20, { 5: 'five', 6: 'six' }), 'feat: change five');
    const clean = commitFile('c.txt', 'c\n', 'feat: c');
    commitFile('a.txt', numbered(20, { 5: 'FIVE', 6: 'six' }), 'fix: five was wrong');
    git('revert', '--no-edit', reverted);

    const branch = await readBranch(dir);
    expect(branch?.map((c) => c.subject)).toEqual(['init', 'feat: b', 'feat: change five', 'feat: c', 'fix: five was wrong', 'Revert "feat: b"']);

    t = tempTracker({}, dir);
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [reverted, fixed, clean].map((hash) => ({ hash, message: '', files: [], insertions: 0, deletions: 0, timestamp: '2024-01-01T00:00:00Z' })));
    t.service.flush('test');
    expect(await refreshGitSignals(t.service, dir)).toBe(2);
    t.service.flush('test');
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ revertedCommits: 1, followUpFixCommits: 1 });
    // Same HEAD: nothing read again. A new commit: recomputed, nothing counted twice.
    expect(await refreshGitSignals(t.service, dir)).toBe(0);
    commitFile('d.txt', 'd\n', 'fix: unrelated file');
    expect(await refreshGitSignals(t.service, dir)).toBe(0);
    t.service.flush('test');
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ revertedCommits: 1, followUpFixCommits: 1 });
    expect(gitSignals(branch ?? [], [record(clean, 's1')], 'x', undefined).signals).toEqual([]);
  });

  it.each([['recommend'], ['report']])('`%s` brings the signals up to date before it answers', async (command) => {
    repo();
    commitFile('a.txt', 'a\n', 'init');
    const reverted = commitFile('b.txt', 'b\n', 'feat: b');
    t = tempTracker({}, dir);
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [{ hash: reverted, message: '', files: ['b.txt'], insertions: 1, deletions: 0, timestamp: '2024-01-01T00:00:00Z' }]);
    t.service.flush('test');
    // Reverted after the session ended: no session start will see it, the command must.
    git('revert', '--no-edit', reverted);
    const cli = path.join(process.cwd(), 'dist', 'cli', 'main.js');
    const env = { PATH: process.env.PATH, HOME: t.dir, XDG_CONFIG_HOME: path.join(t.dir, 'config') };
    execFileSync(process.execPath, [cli, command, '--json', '--project', dir, '--db', t.config.databasePath], { cwd: dir, env, encoding: 'utf8' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ revertedCommits: 1 });
  });

  it('at session start, counts a revert of a tracked commit in the background; a project without tracked commits gets nothing read or cached', async () => {
    repo();
    commitFile('a.txt', 'a\n', 'init');
    const reverted = commitFile('b.txt', 'b\n', 'feat: b');
    git('revert', '--no-edit', reverted);
    t = tempTracker({}, dir);
    const logged: { level: string; message: string }[] = [];
    const logger = recordingLogger(logged);
    // No tracked commit yet: nothing is read, so nothing is cached for this HEAD either.
    backgroundGitSignals(t.service, dir, logger)();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(t.service.gitSignalCache(dir)).toBeUndefined();
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    t.service.recordCommits('s1', [{ hash: reverted, message: '', files: ['b.txt'], insertions: 1, deletions: 0, timestamp: '2024-01-01T00:00:00Z' }]);
    t.service.flush('test');
    backgroundGitSignals(t.service, dir, logger)();
    const until = Date.now() + 10_000;
    while (t.service.gitSignalCache(dir) === undefined && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(t.service.gitSignalCache(dir)?.head).toBe(git('rev-parse', 'HEAD'));
    t.service.flush('test');
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ revertedCommits: 1 });
    expect(logged).toEqual([]);
  });

  it('at session start, logs a store that fails to read instead of throwing out of the timer (OpenCode would crash)', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-failing-'));
    const logged: { level: string; message: string }[] = [];
    const failing = { store: {}, hasTrackedCommits: () => { throw new Error('MDB_CORRUPTED: damaged page'); } } as unknown as Parameters<typeof backgroundGitSignals>[0];
    backgroundGitSignals(failing, dir, recordingLogger(logged))();
    const until = Date.now() + 5_000;
    while (logged.length === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(logged).toEqual([{ level: 'warn', message: `agent-tracker: could not read git signals of ${dir}: MDB_CORRUPTED: damaged page` }]);
  });

  it('refreshes several projects at once, each once, and sees HEAD move on a branch packed into packed-refs', async () => {
    const projects: string[] = [];
    const tracked = new Map<string, CommitRecord[]>();
    for (let i = 0; i < 6; i += 1) {
      repo();
      projects.push(dir);
      commitFile('a.txt', 'a\n', 'init');
      const made = commitFile('b.txt', `b${i}\n`, `feat: b${i}`);
      git('revert', '--no-edit', made);
      tracked.set(dir, [record(made, `s${i}`)]);
    }
    const caches = new Map<string, GitSignalCache>();
    const recorded: { project: string; reverted: number; head: string }[] = [];
    const sink: GitSignalSink = {
      trackedCommits: (project) => tracked.get(project) ?? [],
      gitSignalCache: (project) => caches.get(project),
      recordGitSignals: (project, signals, cache) => {
        caches.set(project, cache);
        recorded.push({ project, reverted: signals.reduce((sum, signal) => sum + signal.revertedCommits, 0), head: cache.head });
      },
    };
    const headOf = (project: string) => execFileSync('git', ['rev-parse', 'HEAD'], { cwd: project, encoding: 'utf8' }).trim();
    await refreshGitSignalsOf(sink, [...projects, projects[0] as string]);
    expect(recorded.map((entry) => entry.project).sort()).toEqual([...projects].sort());
    expect(recorded.every((entry) => entry.reverted === 1 && entry.head === headOf(entry.project))).toBe(true);

    recorded.length = 0;
    await refreshGitSignalsOf(sink, projects);
    expect(recorded).toEqual([]);
    // HEAD moves on a branch that lives in packed-refs only: seen, and nothing counted twice.
    dir = projects[2] as string;
    git('pack-refs', '--all');
    commitFile('c.txt', 'c\n', 'feat: c');
    git('pack-refs', '--all');
    await refreshGitSignalsOf(sink, projects);
    expect(recorded).toEqual([{ project: dir, reverted: 0, head: headOf(dir) }]);
    for (const project of projects) if (project !== dir) fs.rmSync(project, { recursive: true, force: true });
  });

  it('says HEAD moved only when it is not the one the signals were computed at', async () => {
    repo();
    expect(await headIfMoved(dir, undefined)).toBeUndefined();
    const first = commitFile('a.txt', 'a\n', 'init');
    expect(await headIfMoved(dir, undefined)).toBe(first);
    expect(await headIfMoved(dir, first)).toBeUndefined();
    const second = commitFile('b.txt', 'b\n', 'feat: b');
    expect(await headIfMoved(dir, first)).toBe(second);
    expect(await headIfMoved(path.join(dir, 'gone'), first)).toBeUndefined();
  });

  it('records nothing for an unmoved HEAD, a project without tracked commits, or a HEAD git cannot read', async () => {
    repo();
    commitFile('a.txt', 'a\n', 'init');
    const made = commitFile('b.txt', 'b\n', 'feat: b');
    git('revert', '--no-edit', made);
    const recorded: string[] = [];
    let tracked: CommitRecord[] = [];
    let cache: GitSignalCache | undefined;
    const sink: GitSignalSink = {
      trackedCommits: () => tracked,
      gitSignalCache: () => cache,
      recordGitSignals: (project, _signals, next) => {
        recorded.push(project);
        cache = next;
      },
    };
    expect(await refreshGitSignals(sink, dir)).toBe(0);
    expect(recorded).toEqual([]);
    tracked = [record(made, 's1')];
    expect(await refreshGitSignals(sink, dir)).toBe(1);
    expect(recorded).toEqual([dir]);
    expect(await refreshGitSignals(sink, dir)).toBe(0);
    expect(recorded).toEqual([dir]);
    // The branch's ref names a commit the repository does not hold: the files say HEAD moved, git cannot read the branch.
    fs.writeFileSync(path.join(dir, '.git', 'refs', 'heads', 'main'), `${'0'.repeat(39)}1\n`);
    expect(await refreshGitSignals(sink, dir)).toBe(0);
    expect(recorded).toEqual([dir]);
  });

  it('keeps what a commit was counted as when a later signal comes, so neither is counted twice', () => {
    const made = record('c0ffee1234567890', 's1');
    const withFix = [{ ...target }, fixAt()];
    const first = gitSignals(withFix, [made], 'h1', undefined);
    expect(first.signals.map((signal) => [signal.revertedCommits, signal.followUpFixCommits])).toEqual([[0, 1]]);
    expect(first.cache).toEqual({ head: 'h1', counted: { [made.hash]: { reverted: false, followUpFix: true } } });
    // The branch rewritten: the fix is gone, a revert came. The fix stays counted (never taken back).
    const revert = commit('r1', 'Revert "feat: add parser"', { body: 'This reverts commit c0ffee1234567890.' });
    const second = gitSignals([{ ...target }, revert], [made], 'h2', first.cache);
    expect(second.signals.map((signal) => [signal.revertedCommits, signal.followUpFixCommits])).toEqual([[1, 0]]);
    expect(second.cache).toEqual({ head: 'h2', counted: { [made.hash]: { reverted: true, followUpFix: true } } });
    expect(gitSignals([...withFix, revert], [made], 'h3', second.cache).signals).toEqual([]);
    // Reverted only, from no cache: counted as reverted, not as fixed.
    expect(gitSignals([{ ...target }, revert], [made], 'h4', undefined).cache.counted).toEqual({ [made.hash]: { reverted: true, followUpFix: false } });
  });

  it('has no signal, and no error, for a folder that is gone or is no repository', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-norepo-'));
    t = tempTracker({}, dir);
    expect(await readBranch(dir)).toBeUndefined();
    expect(await refreshGitSignals(t.service, dir)).toBe(0);
    expect(await refreshGitSignals(t.service, path.join(dir, 'gone'))).toBe(0);
    expect(t.service.pendingMutations).toBe(0);
  });
});

/**
 * A commit earns once per change of content: an amend of the same change, a commit that only
 * changes whitespace and an empty commit are recorded but earn nothing. Real git in a temporary
 * repository, a temporary LMDB.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { patchIdsOf, patchLogArgs, parseWhitespaceFreeStat } from '../../src/core/integrity/commit-content.js';
import { commitsSince, readHead } from '../../src/core/projects/git.js';
import { git, makeRepo, makeSandbox, removeSandbox } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

// Real git and real processes on a shared machine: seconds each, more under load.
jest.setTimeout(60_000);

let sandbox: Sandbox;
let t: TempTracker | undefined;
beforeAll(() => {
  sandbox = makeSandbox('agent-tracker-content-credit-');
});
afterAll(() => removeSandbox(sandbox));
afterEach(() => {
  t?.dispose();
  t = undefined;
});

/** Levels far apart, so XP earned stays XP (a level-up would spend it). */
const NO_LEVEL_UPS = { rules: { xpPerLevelFactor: 1_000_000 } };

const H1 = 'a'.repeat(40);
const H2 = 'b'.repeat(40);
const H3 = 'c'.repeat(40);

describe("reading git's answers", () => {
  it('tells whitespace-only and empty-file commits from commits that change a line', () => {
    const output = [`\u001e${H1}`, '', `\u001e${H2}`, '', '0\t0\tempty.txt', `\u001e${H3}`, '', '0\t0\tempty.txt', '1\t0\ta.txt', `\u001e${'d'.repeat(40)}`, '', '-\t-\tlogo.png', ''].join('\n');
    expect([...parseWhitespaceFreeStat(output)]).toEqual([
      [H1, true],
      [H2, true],
      [H3, false],
      ['d'.repeat(40), false],
    ]);
  });

  it('gives one change id per commit that changes lines, the same one for the same change', () => {
    const diff = (file: string, line: number, text: string) => [`diff --git a/${file} b/${file}`, '--- a/' + file, '+++ b/' + file, `@@ -${line},1 +${line},1 @@`, ' context', `-old ${text}`, `+new ${text}`].join('\n');
    const output = [
      `commit ${H1}`, diff('a.ts', 1, 'x'), diff('b.ts', 9, 'y'),
      // The same change at other line numbers, in another file order, with other whitespace.
      `commit ${H2}`, diff('b.ts', 40, 'y'), diff('a.ts', 3, '  x'),
      `commit ${H3}`, diff('a.ts', 1, 'z'),
      // An empty commit: no changed line, no id.
      `commit ${'d'.repeat(40)}`, '',
    ].join('\n');
    const ids = patchIdsOf(output);
    expect([...ids.keys()]).toEqual([H1, H2, H3]);
    expect(ids.get(H2)).toBe(ids.get(H1));
    expect(ids.get(H3)).not.toBe(ids.get(H1));
  });

  it('tells changes apart exactly as git patch-id --stable does, on a real repository', () => {
    const repo = makeRepo(sandbox, 'patch-ids');
    const commit = (message: string, files: Record<string, string>, amend = false) => {
      for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(repo, name), text);
      git(repo, ['add', '-A'], sandbox.env);
      git(repo, ['commit', '--quiet', '--allow-empty', ...(amend ? ['--amend'] : []), '-m', message], sandbox.env);
      return git(repo, ['rev-parse', 'HEAD'], sandbox.env).trim();
    };
    const hashes = [
      commit('one', { 'a.txt': 'alpha\nbeta\n' }),
      commit('one, reworded', { 'a.txt': 'alpha\nbeta\n' }, true),
      commit('two', { 'b.txt': 'gamma\n', 'c.txt': 'delta\n' }),
      commit('three', { 'a.txt': 'alpha\nbeta\nepsilon\n' }),
      commit('empty', {}),
    ];
    // git's own ids, per commit.
    const gitIds = new Map<string, string>();
    for (const hash of hashes) {
      const patch = git(repo, ['show', '--no-color', '--format=commit %H', hash], sandbox.env);
      const line = execFileSync('git', ['patch-id', '--stable'], { cwd: repo, input: patch, encoding: 'utf8' }).trim();
      if (line) gitIds.set(hash, line.split(' ')[0] as string);
    }
    const ours = new Map<string, string>();
    for (const hash of hashes) for (const [commitHash, id] of patchIdsOf(git(repo, patchLogArgs(undefined, hash, 1), sandbox.env))) ours.set(commitHash, id);
    expect([...ours.keys()].sort()).toEqual([...gitIds.keys()].sort());
    for (const a of hashes) for (const b of hashes) expect([a, b, ours.get(a) === ours.get(b)]).toEqual([a, b, gitIds.get(a) === gitIds.get(b)]);
  });
});

describe('a commit earns once per change of content', () => {
  it('gives nothing for an amend of the same change, a whitespace-only commit or an empty one; new changes earn', async () => {
    const repo = makeRepo(sandbox, 'content');
    t = tempTracker(NO_LEVEL_UPS, repo);
    const service = t.service;
    service.noteModelRequest('s1', 'build', 'fake/a');
    const made: string[] = [];
    /** One turn: what the agent's bash call does to git, then what the live hook records. */
    const turn = async (name: string, act: () => void): Promise<void> => {
      const before = await readHead(repo);
      act();
      const after = (await readHead(repo)) as string;
      const commits = await commitsSince(repo, before, after, 0);
      made.push(...commits.map((commit) => commit.hash));
      service.recordCommits('s1', commits, { eventId: `call-${name}` });
      expect(service.endTurn('s1').ok).toBe(true);
    };
    const write = (file: string, text: string) => fs.writeFileSync(path.join(repo, file), text);
    const commitAll = (...args: string[]) => {
      git(repo, ['add', '-A'], sandbox.env);
      git(repo, ['commit', '--quiet', ...args], sandbox.env);
    };

    await turn('real', () => {
      write('a.txt', 'one\ntwo\n');
      commitAll('-m', 'add a');
    });
    await turn('amend-message', () => commitAll('--amend', '-m', 'add a, reworded'));
    await turn('amend-whitespace', () => {
      write('a.txt', 'one   \ntwo\t\n');
      commitAll('--amend', '--no-edit');
    });
    await turn('whitespace-only', () => {
      write('README.md', '#   content  \n');
      commitAll('-m', 'tidy');
    });
    await turn('empty', () => commitAll('--allow-empty', '-m', 'nothing'));
    await turn('new-change', () => {
      write('b.txt', 'three\n');
      commitAll('-m', 'add b');
    });
    expect(service.flush('test').ok).toBe(true);

    // Every commit is recorded (six new hashes); only the two changes of content earn.
    expect(new Set(made).size).toBe(6);
    for (const hash of made) expect(t.store.tables.commits.get([repo, hash])).toMatchObject({ agent: 'build', sessionId: 's1' });
    const rules = t.config.rules;
    expect(t.store.tables.agents.get('build')).toMatchObject({ commits: 2, xp: 2 * rules.xpPerCommit });
  });

  it('remembers a credited change in the database: a later process gives the same change again nothing', async () => {
    const repo = makeRepo(sandbox, 'content-later');
    t = tempTracker(NO_LEVEL_UPS, repo);
    const record = async (service: TempTracker['service'], name: string, act: () => void): Promise<void> => {
      const before = await readHead(repo);
      act();
      const commits = await commitsSince(repo, before, (await readHead(repo)) as string, 0);
      service.recordCommits('s1', commits, { eventId: name });
      expect(service.flush('test').ok).toBe(true);
    };
    t.service.noteModelRequest('s1', 'build', 'fake/a');
    await record(t.service, 'first', () => {
      fs.writeFileSync(path.join(repo, 'c.txt'), 'work\n');
      git(repo, ['add', '-A'], sandbox.env);
      git(repo, ['commit', '--quiet', '-m', 'c'], sandbox.env);
    });
    const later = t.another();
    later.noteModelRequest('s1', 'build', 'fake/a');
    await record(later, 'amend', () => git(repo, ['commit', '--quiet', '--amend', '-m', 'c again'], sandbox.env));
    expect(t.store.tables.agents.get('build')).toMatchObject({ commits: 1, xp: t.config.rules.xpPerCommit });
  });
});

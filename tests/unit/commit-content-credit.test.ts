/**
 * A commit earns once per change of content: an amend of the same change, a commit that only
 * changes whitespace and an empty commit are recorded but earn nothing. Real git in a temporary
 * repository, a temporary LMDB.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { parsePatchIds, parseWhitespaceFreeStat } from '../../src/core/integrity/commit-content.js';
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

  it('reads one patch id per commit', () => {
    expect([...parsePatchIds(`${H1} ${H2}\n${H1} ${H3}\nnoise\n`)]).toEqual([
      [H2, H1],
      [H3, H1],
    ]);
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

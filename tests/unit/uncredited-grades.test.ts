/**
 * A commit that earned nothing (an amend of the same change, a whitespace-only or empty commit) is
 * marked so on its record, and grading it earns nothing: the agent's self-grade moves no CS and
 * earns no XP; the user's grade is the user's judgement (counted, a bad one costs CS) but earns
 * nothing. Real git in a temporary repository, a temporary LMDB.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { commitsSince, readHead } from '../../src/core/projects/git.js';
import { exportRecords, importExport, parseExport } from '../../src/core/store/transfer.js';
import type { ToolContext } from '@opencode-ai/plugin';
import { silentLogger } from '../../src/core/logger.js';
import { formatHealthStatus } from '../../src/core/report/sheet.js';
import { createTools } from '../../src/opencode/tools/index.js';
import { commitToastTitle } from '../../src/opencode/toast.js';
import { git, makeRepo, makeSandbox, removeSandbox } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';
import { tempTracker } from '../helpers/temp-store.js';
import { localPriorArt } from '../../src/opencode/prior-art-answer.js';
import type { TempTracker } from '../helpers/temp-store.js';

// Real git on a shared machine: seconds each, more under load.
jest.setTimeout(60_000);

let sandbox: Sandbox;
const trackers: TempTracker[] = [];
beforeAll(() => {
  sandbox = makeSandbox('agent-tracker-uncredited-');
});
afterAll(() => removeSandbox(sandbox));
afterEach(() => {
  for (const t of trackers.splice(0)) t.dispose();
});

/** Levels far apart, so XP earned stays XP (a level-up would spend it). */
const NO_LEVEL_UPS = { rules: { xpPerLevelFactor: 1_000_000 } };
/** A fresh agent's CS and the XP one credited commit earns, as DESIGN.md states the default rules. */
const START_CS = 60;
const XP_PER_COMMIT = 5;
const XP_PER_GRADED_COMMIT = 1;

function tracker(repo: string): TempTracker {
  const t = tempTracker(NO_LEVEL_UPS, repo);
  trackers.push(t);
  return t;
}

/** Commits the first change, then amends it with a new message only: the same change again. */
async function commitThenAmend(t: TempTracker, repo: string): Promise<{ first: string; amend: string }> {
  const record = async (name: string, act: () => void): Promise<string> => {
    const before = await readHead(repo);
    act();
    const commits = await commitsSince(repo, before, (await readHead(repo)) as string, 0);
    t.service.recordCommits('s1', commits, { eventId: `call-${name}` });
    expect(t.service.endTurn('s1').ok).toBe(true);
    expect(commits).toHaveLength(1);
    return (commits[0] as { hash: string }).hash;
  };
  t.service.noteModelRequest('s1', 'build', 'fake/a');
  const first = await record('first', () => {
    fs.writeFileSync(path.join(repo, 'a.txt'), 'one\ntwo\n');
    git(repo, ['add', '-A'], sandbox.env);
    git(repo, ['commit', '--quiet', '-m', 'add a'], sandbox.env);
  });
  const amend = await record('amend', () => git(repo, ['commit', '--quiet', '--amend', '-m', 'add a, reworded'], sandbox.env));
  expect(t.service.flush('test').ok).toBe(true);
  return { first, amend };
}

function agent(t: TempTracker): { cs: number; xp: number; commits: number } {
  const stored = t.store.tables.agents.get('build');
  if (!stored) throw new Error('no agent record for build');
  return { cs: stored.cs, xp: stored.xp, commits: stored.commits };
}

describe('the commit record says whether the commit earned', () => {
  it('marks an amend of the same change as not credited, and leaves the first commit unmarked', async () => {
    const repo = makeRepo(sandbox, 'mark');
    const t = tracker(repo);
    const { first, amend } = await commitThenAmend(t, repo);
    expect(first).not.toBe(amend);
    expect(t.store.tables.commits.get([repo, first])?.noCredit).toBeUndefined();
    expect(t.store.tables.commits.get([repo, amend])?.noCredit).toBe('same-change');
    // Only the first earned: one commit's XP, one commit counted.
    expect(agent(t)).toEqual({ cs: START_CS, xp: XP_PER_COMMIT, commits: 1 });
  });
});

describe("an agent's self-grade of a commit that earned nothing", () => {
  it('earns no CS and no XP for grading an amend 5, is still recorded, and is not counted in the self-grade sums', async () => {
    const repo = makeRepo(sandbox, 'self-grade');
    const t = tracker(repo);
    const { amend } = await commitThenAmend(t, repo);
    const before = agent(t);

    const entry = t.service.gradeCommit({ sessionId: 's1', agent: 'build', project: repo, commit: amend, agentGrade: 5, agentNote: 'great work' });
    expect(t.service.flush('test').ok).toBe(true);

    expect(agent(t)).toEqual(before);
    expect(entry).toMatchObject({ score_before: before.cs, score_after: before.cs, noCredit: 'same-change' });
    // Recorded: the retrospective and the grade event are there, the grade as the agent gave it.
    expect(t.store.tables.retrospectives.get(['build', amend])).toMatchObject({ agent_grade: 5, score_before: before.cs, score_after: before.cs });
    const events = [...t.store.tables.gradeEvents.getRange()].map(({ value }) => value).filter((event) => event.commit === amend);
    expect(events).toEqual([expect.objectContaining({ source: 'agent', grade: 5 })]);
    const usage = t.store.tables.usage.get(['s1', 'build', 'fake/a']);
    expect(usage?.selfGradedCommits ?? 0).toBe(0);
    expect(usage?.selfGradeSum ?? 0).toBe(0);
    // Graded once: a second self-grade is refused like any other.
    expect(() => t.service.gradeCommit({ sessionId: 's1', agent: 'build', project: repo, commit: amend, agentGrade: 5 })).toThrow(/already graded/);
  });

  it('still earns for a credited commit (5 moves CS by 5 and grading earns XP)', async () => {
    const repo = makeRepo(sandbox, 'self-grade-credited');
    const t = tracker(repo);
    const { first } = await commitThenAmend(t, repo);
    const before = agent(t);
    t.service.gradeCommit({ sessionId: 's1', agent: 'build', project: repo, commit: first, agentGrade: 5 });
    expect(t.service.flush('test').ok).toBe(true);
    expect(agent(t)).toEqual({ ...before, cs: before.cs + 5, xp: before.xp + XP_PER_GRADED_COMMIT });
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ selfGradedCommits: 1, selfGradeSum: 5 });
  });
});

describe('what the agent and the user are shown', () => {
  it('the grade-commit tool tells the agent the commit is not credited and its grade earned nothing', async () => {
    const repo = makeRepo(sandbox, 'tool-output');
    const t = tracker(repo);
    const { amend } = await commitThenAmend(t, repo);
    const tools = createTools({ service: t.service, logger: silentLogger, project: repo, renderStatus: (status) => formatHealthStatus(status), priorArt: localPriorArt(t.service.store, silentLogger) });
    const context = { sessionID: 's1', messageID: 'm1', agent: 'build', directory: repo, worktree: repo, abort: new AbortController().signal, metadata: () => undefined, ask: async () => undefined } as unknown as ToolContext;
    const text = String(await tools['grade-commit']?.execute({ commit: 'HEAD', agentGrade: 5, agentNote: 'amended' } as never, context));
    expect(text).toContain(`self-grade of commit ${amend.slice(0, 12)}`);
    expect(text).toContain(`CS ${START_CS} -> ${START_CS}.`);
    expect(text).toMatch(/not credited: the same change already earned .*its grade earns no CS and no XP/);
  });

  it('the commit toast says which commits earned nothing', async () => {
    const repo = makeRepo(sandbox, 'toast');
    const t = tracker(repo);
    const { first, amend } = await commitThenAmend(t, repo);
    const records = [first, amend].map((hash) => t.store.tables.commits.get([repo, hash])!);
    expect(commitToastTitle('build', [records[1]!], false)).toBe(`build: commit ${amend.slice(0, 7)} (not credited)`);
    expect(commitToastTitle('build', [records[0]!], false)).toBe(`build: commit ${first.slice(0, 7)}`);
    expect(commitToastTitle('build', records, true)).toBe('build: 2 commits (1 not credited) + push');
  });
});

describe("the user's grade of a commit that earned nothing", () => {
  it('counts as the judgement (a bad grade costs CS) but a good grade earns no CS and no XP', async () => {
    const repo = makeRepo(sandbox, 'user-grade');
    const t = tracker(repo);
    const { amend } = await commitThenAmend(t, repo);
    const before = agent(t);

    const bad = t.service.gradeAsUser({ project: repo, commit: amend, grade: -1, via: 'cli' });
    expect(bad.noCredit).toBe('same-change');
    expect(agent(t)).toEqual({ ...before, cs: before.cs - 1 });

    // Corrected to 5: the -1 is taken back, the 5 earns nothing.
    t.service.gradeAsUser({ project: repo, commit: amend, grade: 5, via: 'cli', replace: true });
    expect(agent(t)).toEqual(before);
    expect(t.store.tables.userGrades.get([repo, amend])).toMatchObject({ grade: 5 });
    // The user's word is evidence about the setup: it is counted.
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/a'])).toMatchObject({ userGradedCommits: 1, userGradeSum: 5, csDelta: 0 });
  });
});

describe('export and import carry the mark', () => {
  it('keeps "not credited" through export and import, and reads a commit exported without the mark as credited', async () => {
    const repo = makeRepo(sandbox, 'transfer');
    const source = tracker(repo);
    const { first, amend } = await commitThenAmend(source, repo);
    let text = '';
    exportRecords(source.store, (chunk) => {
      text += chunk;
    });
    const commitLines = parseExport(text).filter((record) => record.kind === 'commits');
    expect(commitLines.map((record) => record.value.noCredit)).toEqual(expect.arrayContaining([undefined, 'same-change']));
    expect(commitLines.find((record) => record.value.hash === first)?.value).not.toHaveProperty('noCredit');

    const target = tracker(repo);
    importExport(target.store, text, 'test export');
    expect(target.store.tables.commits.get([repo, amend])?.noCredit).toBe('same-change');
    // Grading the imported uncredited commit earns nothing there either.
    const before = agent(target);
    target.service.gradeCommit({ agent: 'build', project: repo, commit: amend, agentGrade: 5 });
    expect(target.service.flush('test').ok).toBe(true);
    expect(agent(target)).toEqual(before);

    // An export from before the mark: the same commit without the field reads as credited.
    const old = text.replace(/,"noCredit":"same-change"/g, '');
    expect(old).not.toContain('noCredit');
    const older = tracker(repo);
    importExport(older.store, old, 'old export');
    expect(older.store.tables.commits.get([repo, amend])?.noCredit).toBeUndefined();
    const olderBefore = agent(older);
    older.service.gradeCommit({ agent: 'build', project: repo, commit: amend, agentGrade: 5 });
    expect(older.service.flush('test').ok).toBe(true);
    expect(agent(older)).toEqual({ ...olderBefore, cs: olderBefore.cs + 5, xp: olderBefore.xp + XP_PER_GRADED_COMMIT });
  });

  it('refuses an import whose commit carries an unknown reason, naming the field', () => {
    const repo = '/work/project';
    const t = tracker(repo);
    const value = { hash: 'a'.repeat(40), project: repo, agent: 'build', model: 'fake/a', sessionId: 's1', message: 'm', files: ['a.txt'], insertions: 1, deletions: 0, timestamp: '2026-01-01T00:00:00.000Z', noCredit: 'because' };
    const line = JSON.stringify({ kind: 'commits', key: [repo, value.hash], value });
    expect(() => importExport(t.store, `${line}\n`, 'bad')).toThrow(/commits field "noCredit" must be one of/);
    expect(t.store.tables.commits.get([repo, value.hash])).toBeUndefined();
  });
});

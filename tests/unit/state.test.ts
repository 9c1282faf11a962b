/**
 * Agent state through TrackingService on a temporary LMDB: grading, bugs, halt, revive, the
 * journal, and the `.agent/status.json` export. Expected numbers are worked out from the default rules.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { silentLogger } from '../../src/core/logger.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { statusExporter, statusExportPath } from '../../src/core/tracking/status-export.js';
import type { StatusExport } from '../../src/core/tracking/status-export.js';
import type { Grade } from '../../src/core/types.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const PROJECT = '/work/project';
const hash = (n: number) => n.toString(16).padStart(40, 'a');
const gitCommit = (n: number) => ({
  hash: hash(n),
  message: `feat: change ${n}\n\nbody`,
  files: ['src/a.ts'],
  insertions: 3,
  deletions: 1,
  timestamp: new Date(1_700_000_000_000 + n).toISOString(),
});


let t: TempTracker;
afterEach(() => t?.dispose());

function working(agent = 'build', session = 's1') {
  t.service.noteModelRequest(session, agent, 'fake/model');
  return session;
}

describe('grading a commit', () => {
  it('records the agent\'s self-grade: CS, XP, the retrospective, and a self-grade on the maker\'s usage record', () => {
    t = tempTracker();
    const s = working();
    t.service.recordCommits(s, [gitCommit(1)]);
    const entry = t.service.gradeCommit({ sessionId: s, agent: 'build', project: PROJECT, commit: hash(1), agentGrade: 5, agentNote: 'went well' });
    // Default rules: CS 60 + 5; XP 5 for the commit + 1 for the grading (a level costs 10); SP stays 1.
    const want = { sp: 1, xp: 6, cs: 65 };
    expect(entry).toMatchObject({ score_before: 60, score_after: want.cs, task: 'feat: change 1', agent: 'build', model: 'fake/model' });
    expect(t.service.flush('test').ok).toBe(true);

    expect(t.store.tables.agents.get('build')).toMatchObject({ sp: want.sp, xp: want.xp, cs: want.cs, commits: 1 });
    const retrospective = t.store.tables.retrospectives.get(['build', hash(1)]);
    expect(retrospective).toMatchObject({ commit: hash(1), agent_grade: 5, provenance: 'self', agent_note: 'went well' });
    expect(retrospective?.user_grade).toBeUndefined();
    const events = [...t.store.tables.gradeEvents.getRange()].map((e) => e.value);
    expect(events.map((e) => [e.provenance, e.grade])).toEqual([['self', 5]]);
    const usage = t.store.tables.usage.get([s, 'build', 'fake/model']);
    expect(usage).toMatchObject({ selfGradedCommits: 1, selfGradeSum: 5, csDelta: 5 });
    expect(usage?.userGradedCommits).toBeUndefined();
    expect(usage?.reportedGradedCommits).toBeUndefined();
  });

  it('lowers CS for a bad self-grade and never below 0', () => {
    t = tempTracker({ rules: { initialCs: 0.5 } });
    const s = working();
    t.service.recordCommits(s, [gitCommit(2)]);
    const entry = t.service.gradeCommit({ sessionId: s, agent: 'build', project: PROJECT, commit: hash(2), agentGrade: -1 });
    expect(entry).toMatchObject({ score_before: 0.5, score_after: 0 });
    t.service.flush('test');
    expect(t.store.tables.agents.get('build')?.cs).toBe(0);
  });

  it('stops a gain at the SP x 100 cap', () => {
    t = tempTracker({ rules: { initialCs: 97 } });
    const s = working();
    t.service.recordCommits(s, [gitCommit(3)]);
    const entry = t.service.gradeCommit({ sessionId: s, agent: 'build', project: PROJECT, commit: hash(3), agentGrade: 5 });
    // The commit's 5 XP leave SP 1, so 97 + 5 stops at 1 x 100.
    expect(entry.score_after).toBe(100);
  });

  it('refuses to grade the same commit twice, before and after the flush, and writes nothing more', () => {
    t = tempTracker();
    const s = working();
    t.service.recordCommits(s, [gitCommit(4)]);
    const grade = (g: Grade) => t.service.gradeCommit({ sessionId: s, agent: 'build', project: PROJECT, commit: hash(4).slice(0, 10), agentGrade: g });
    grade(2);
    const pending = t.service.pendingMutations;
    expect(() => grade(5)).toThrow(/already graded/);
    expect(t.service.pendingMutations).toBe(pending);
    t.service.flush('test');
    const cs = t.store.tables.agents.get('build')?.cs;
    expect(() => grade(1)).toThrow(/already graded/);
    expect(t.service.pendingMutations).toBe(0);
    expect(t.store.tables.agents.get('build')?.cs).toBe(cs);
  });

  it("refuses a grade of another agent's commit (it would pass for the maker's self-grade and block it); the maker still grades it", () => {
    t = tempTracker();
    working('build', 's1');
    t.service.recordCommits('s1', [gitCommit(5)]);
    working('plan', 's2');
    const pending = t.service.pendingMutations;
    expect(() => t.service.gradeCommit({ sessionId: 's2', agent: 'plan', project: PROJECT, commit: hash(5), agentGrade: -1 })).toThrow(
      /was made by build, not plan: an agent grades only its own commits/,
    );
    expect(t.service.pendingMutations).toBe(pending);
    const entry = t.service.gradeCommit({ sessionId: 's1', agent: 'build', project: PROJECT, commit: hash(5), agentGrade: 2 });
    expect(entry.agent).toBe('build');
    t.service.flush('test');
    expect(t.store.tables.usage.get(['s1', 'build', 'fake/model'])).toMatchObject({ selfGradedCommits: 1, selfGradeSum: 2 });
  });
});

describe('bug reports, halt and revive', () => {
  it('halts the agent after as many bugs as it has SP, and a halted agent earns no XP', () => {
    t = tempTracker();
    const s = working();
    const climb = 14;
    for (let i = 0; i < climb; i += 1) t.service.recordToolCall(s, `c${i}`, 'bash', true);
    const before = t.service.getAgentStatus('build');
    // 14 XP: the first level costs 10 x SP 1; the next would cost 20.
    expect(before).toMatchObject({ sp: 2, xp: 4 });
    for (let i = 0; i < before.sp; i += 1) {
      expect(t.service.getAgentStatus('build').halted).toBe(false);
      t.service.reportBug({ agent: 'build', sessionId: s, project: PROJECT, description: `bug ${i}` });
    }
    const halted = t.service.getAgentStatus('build');
    expect(halted).toMatchObject({ halted: true, sp: 0, bugs: before.sp, xp: before.xp });

    t.service.recordToolCall(s, 'after-halt', 'bash', true);
    t.service.recordCommits(s, [gitCommit(9)]);
    t.service.flush('test');
    expect(t.store.tables.agents.get('build')).toMatchObject({ halted: true, xp: before.xp, sp: 0, commits: 1 });
    expect(t.store.tables.usage.get([s, 'build', 'fake/model'])?.bugs).toBe(before.sp);
    const journal = [...t.store.tables.activities.getRange()].map((e) => e.value.task);
    expect(journal.filter((task) => task.startsWith('Bug reported:'))).toHaveLength(before.sp);
  });

  it('revives with SP 1 keeping XP and CS, after which XP is earned again', () => {
    t = tempTracker();
    const s = working();
    for (let i = 0; i < 6; i += 1) t.service.recordToolCall(s, `c${i}`, 'bash', true);
    t.service.reportBug({ agent: 'build', sessionId: s, description: 'broke the build' });
    t.service.flush('test');
    const halted = t.store.tables.agents.get('build');
    expect(halted?.halted).toBe(true);

    const revived = t.another().revive('build');
    expect(revived.revived).toBe(true);
    expect(t.store.tables.agents.get('build')).toMatchObject({ sp: 1, halted: false, xp: halted?.xp, cs: halted?.cs, bugs: 1 });

    t.service.recordToolCall(s, 'c-new', 'bash', true);
    t.service.flush('test');
    // 6 XP before the bug, one more tool call after the revive.
    expect(halted?.xp).toBe(6);
    expect(t.store.tables.agents.get('build')?.xp).toBe(7);
  });

  it('leaves a working agent alone on revive', () => {
    t = tempTracker();
    const s = working();
    for (let i = 0; i < 15; i += 1) t.service.recordToolCall(s, `c${i}`, 'bash', true);
    t.service.flush('test');
    const stored = t.store.tables.agents.get('build');
    const flushes = t.store.meta().flushes;
    expect(t.service.revive('build')).toMatchObject({ revived: false, status: { sp: stored?.sp } });
    expect(t.store.tables.agents.get('build')).toEqual(stored);
    expect(t.store.meta().flushes).toBe(flushes);
  });

  it('refuses to revive or report a bug for an agent never tracked, writing nothing', () => {
    t = tempTracker();
    working('build', 's1');
    expect(() => t.service.revive('nobody')).toThrow(/no agent named "nobody"/);
    expect(() => t.service.reportBug({ agent: 'nobody', sessionId: 's1', description: 'x' })).toThrow(/no agent named "nobody"/);
    expect(t.service.pendingMutations).toBe(0);
    expect(t.store.meta().flushes).toBe(0);
  });

  it('lets an agent report its own bug before it earned anything', () => {
    t = tempTracker();
    const s = working('fresh');
    expect(t.service.reportBug({ agent: 'fresh', reporter: 'fresh', sessionId: s, description: 'oops' }).status).toMatchObject({ halted: true, bugs: 1 });
  });

  it("charges another agent's bug only with a commit that agent made in the project; else keeps an unverified report at no cost", () => {
    t = tempTracker({}, PROJECT);
    const planSession = working('plan', 'p1');
    t.service.recordCommits(planSession, [{ hash: 'a'.repeat(40), message: 'plan work', files: ['x'], insertions: 1, deletions: 0, timestamp: '2025-01-01T00:00:00.000Z' }]);
    const buildSession = working('build', 'b1');
    t.service.recordCommits(buildSession, [{ hash: 'b'.repeat(40), message: 'build work', files: ['y'], insertions: 1, deletions: 0, timestamp: '2025-01-01T00:00:00.000Z' }]);
    t.service.flush('test');
    const spBefore = t.service.getAgentStatus('plan').sp;
    const report = (commit?: string) => t.service.reportBug({ agent: 'plan', reporter: 'build', ...(commit ? { commit } : {}), sessionId: buildSession, project: PROJECT, description: 'the plan was wrong' });

    const unnamed = report();
    expect(unnamed.verdict).toEqual({ verified: false, reason: 'a report against another agent must name a commit plan made in this project' });
    expect(report('b'.repeat(12)).verdict).toEqual({ verified: false, reason: `commit ${'b'.repeat(12)} was made by build, not plan` });
    expect(report('c0ffee1').verdict).toEqual({ verified: false, reason: 'no tracked commit of this project starts with "c0ffee1"' });
    t.service.flush('test');
    expect(t.service.getAgentStatus('plan')).toMatchObject({ sp: spBefore, bugs: 0, halted: false });
    const journal = [...t.store.tables.activities.getRange()].map(({ value }) => value).filter((entry) => entry.agent === 'plan');
    expect(journal.map((entry) => entry.outcome)).toEqual(['unverified bug report', 'unverified bug report', 'unverified bug report']);
    expect(journal[0]?.task).toContain('Unverified bug report from build');

    const named = report('a'.repeat(8));
    expect(named.verdict).toEqual({ verified: true, evidence: 'commit' });
    t.service.flush('test');
    expect(t.service.getAgentStatus('plan')).toMatchObject({ sp: spBefore - 1, bugs: 1 });
  });
});

describe('the journal', () => {
  it('stores a hand-written activity entry under the agent and time', () => {
    t = tempTracker();
    const s = working();
    const entry = t.service.logActivity({ agent: 'build', project: PROJECT, sessionId: s, task: 'Refactor', actions: 'split file', outcome: 'ok', decisions: 'kept API' });
    t.service.flush('test');
    const stored = [...t.store.tables.activities.getRange()];
    expect(stored).toHaveLength(1);
    expect(stored[0]?.key.slice(0, 2)).toEqual(['build', entry.timestamp]);
    expect(stored[0]?.value).toMatchObject({ task: 'Refactor', actions: 'split file', outcome: 'ok', decisions: 'kept API', automatic: false, model: 'fake/model' });
  });

  it('writes one automatic entry per finished turn, and none for a repeated idle', () => {
    t = tempTracker();
    const s = working();
    t.service.noteTurnTask(s, 'Add the login page');
    t.service.recordToolCall(s, 'c1', 'bash', true);
    t.service.recordToolCall(s, 'c2', 'read', false);
    t.service.recordCommits(s, [gitCommit(7)]);
    t.service.noteFileEdited(s, 'src/login.ts');
    t.service.endTurn(s);
    t.service.endTurn(s);
    const entries = [...t.store.tables.activities.getRange()].map((e) => e.value);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ automatic: true, task: 'Add the login page', actions: 'bash x1, read x1', files: ['src/login.ts'] });
    expect(entries[0]?.outcome).toContain(hash(7).slice(0, 7));
    expect(entries[0]?.outcome).toContain('1 failed tool call');
  });

  it('keeps entries of the same instant apart', () => {
    const fixed = new Date('2025-05-05T05:05:05.000Z');
    t = tempTracker();
    const s = working();
    const service = new TrackingService({ store: t.store, config: t.config, logger: silentLogger, project: PROJECT, now: () => fixed });
    service.noteModelRequest(s, 'build', 'fake/model');
    for (let i = 0; i < 5; i += 1) service.logActivity({ agent: 'build', project: PROJECT, sessionId: s, task: `task ${i}` });
    service.flush('test');
    expect(t.store.tables.activities.getKeysCount()).toBe(5);
  });
});

describe('.agent/status.json', () => {
  function projectDir(withAgentFolder: boolean): string {
    const dir = path.join(t.dir, 'project');
    fs.mkdirSync(withAgentFolder ? path.join(dir, '.agent') : dir, { recursive: true });
    return dir;
  }

  it('is written after a flush from the database when the project has an .agent folder', () => {
    t = tempTracker();
    const project = projectDir(true);
    t.service.onFlushed(statusExporter({ store: t.store, rules: t.config.rules, project, always: false }));
    const s = working();
    for (let i = 0; i < 3; i += 1) t.service.recordToolCall(s, `c${i}`, 'bash', true);
    expect(fs.existsSync(statusExportPath(project))).toBe(false);
    t.service.flush('test');
    const exported = JSON.parse(fs.readFileSync(statusExportPath(project), 'utf8')) as StatusExport;
    expect(exported.agents).toEqual([expect.objectContaining({ ...t.store.tables.agents.get('build'), tier: 'PROBATION' })]);

    working('plan', 's2');
    t.service.recordToolCall('s2', 'p1', 'bash', true);
    t.service.flush('test');
    const again = JSON.parse(fs.readFileSync(statusExportPath(project), 'utf8')) as StatusExport;
    expect(again.agents.map((a) => a.id)).toEqual(['build', 'plan']);
  });

  it('is not written without an .agent folder unless exportStatus is on', () => {
    t = tempTracker();
    const project = projectDir(false);
    t.service.onFlushed(statusExporter({ store: t.store, rules: t.config.rules, project, always: false }));
    const s = working();
    t.service.recordToolCall(s, 'c1', 'bash', true);
    t.service.flush('test');
    expect(fs.existsSync(path.join(project, '.agent'))).toBe(false);

    t.service.onFlushed(statusExporter({ store: t.store, rules: t.config.rules, project, always: true }));
    t.service.recordToolCall(s, 'c2', 'bash', true);
    t.service.flush('test');
    expect(JSON.parse(fs.readFileSync(statusExportPath(project), 'utf8')).agents[0].id).toBe('build');
  });
});

/**
 * A spill file is plain JSON beside the database, merged at the next start, so an agent's shell can
 * write one. What a planted spill brings through the merge (a temporary LMDB, the real merge): its
 * revive lifts no halt and is held for review, its "user" grade is stored as suspect, and a review
 * decision it carries is not taken. The plugin's own spills still merge whole.
 */
import fs from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { mergeSpills, writeSpill } from '../../src/core/store/spill.js';
import { suspectUserActions } from '../../src/core/integrity/suspect-actions.js';
import { REVIEW_KEY_PREFIX } from '../../src/core/integrity/record-chain.js';
import type { UserGradeRecord } from '../../src/core/types.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const PROJECT = '/work/project';
const COMMIT = 'a'.repeat(40);

/** A tracker whose `build` made a commit and was halted by a bug report of its own work. */
function haltedBuild(): TempTracker {
  const t = tempTracker({}, PROJECT);
  t.service.noteModelRequest('ses_1', 'build', 'fake/model');
  t.service.recordCommits('ses_1', [{ hash: COMMIT, message: 'feat: x', files: ['x.ts'], insertions: 1, deletions: 0, timestamp: new Date().toISOString() }]);
  t.service.reportBug({ agent: 'build', reporter: 'build', sessionId: 'ses_1', project: PROJECT, description: 'broke it' });
  expect(t.service.flush('setup').ok).toBe(true);
  expect(t.service.getAgentStatus('build').halted).toBe(true);
  return t;
}

/** What an agent writes beside the database: the spill format, with a revive, XP and a "user" grade. */
function plantSpill(t: TempTracker, extra: unknown[] = []): string {
  const at = new Date().toISOString();
  const userGrade: UserGradeRecord = { commit: COMMIT, project: PROJECT, agent: 'build', model: 'fake/model', sessionId: 'ses_1', grade: 5, note: 'superb', timestamp: at, provenance: 'user', via: 'cli' };
  const mutations = [{ table: 'agents', key: 'build', ops: [{ kind: 'revive' }, { kind: 'xp', amount: 300 }, { kind: 'grade', delta: 5, userGrade }] }, ...extra];
  const file = `${t.store.path}.spill-20991231T000000000Z-planted.json`;
  fs.writeFileSync(file, JSON.stringify({ format: 1, id: '20991231T000000000Z-planted', database: t.store.path, createdAt: at, mutations }));
  return file;
}

describe('a spill file planted beside the database', () => {
  it('lifts no halt: its revive is held for review, with the sign that it came from a spill file', () => {
    const t = haltedBuild();
    try {
      const file = plantSpill(t);
      expect(mergeSpills(t.store, t.config.rules)).toMatchObject({ merged: 1 });
      expect(t.service.getAgentStatus('build').halted).toBe(true);
      const revive = suspectUserActions(t.store).find((action) => action.action === 'revive');
      expect(revive).toMatchObject({ agent: 'build', heldRevive: true, signs: [expect.stringContaining(`spill file ${file}`)] });
    } finally {
      t.dispose();
    }
  });

  it('stores its "user" grade as suspect until the user reviews it', () => {
    const t = haltedBuild();
    try {
      plantSpill(t);
      mergeSpills(t.store, t.config.rules);
      expect(t.store.tables.userGrades.get([PROJECT, COMMIT])).toMatchObject({ grade: 5 });
      expect(suspectUserActions(t.store).filter((action) => action.action === 'grade')).toEqual([expect.objectContaining({ agent: 'build', signs: [expect.stringContaining('spill file')] })]);
    } finally {
      t.dispose();
    }
  });

  it('takes no review decision from it: a suspect record stays open', () => {
    const t = haltedBuild();
    try {
      // A /grade from a nested OpenCode, stored as suspect: what the planted review would settle.
      t.service.recordUserAction({ agent: 'build', project: PROJECT, summary: 'User graded aaaaaaaaaaaa 5 (slash-command)', provenance: { action: 'grade', via: 'slash-command', suspect: true, signs: ['nested'] } });
      expect(t.service.flush('suspect').ok).toBe(true);
      const [open] = suspectUserActions(t.store);
      plantSpill(t, [{ table: 'meta', key: `${REVIEW_KEY_PREFIX}${open?.id}`, value: { decision: 'confirmed', at: new Date().toISOString(), via: 'terminal-tty' } }]);
      mergeSpills(t.store, t.config.rules);
      expect(suspectUserActions(t.store).map((action) => action.id)).toContain(open?.id);
    } finally {
      t.dispose();
    }
  });

  it("brings no user-grade counters its user grades do not account for: recommend's strongest evidence", () => {
    const t = haltedBuild();
    try {
      const key = ['ses_1', 'build', 'fake/model'];
      const init = { sessionId: 'ses_1', source: 'live', agent: 'build', model: 'fake/model', project: PROJECT, firstAt: new Date().toISOString() };
      // Twenty "user grades" of 5 on the usage record, and the one grade op the planted spill carries.
      plantSpill(t, [{ table: 'usage', key, init, counters: { userGradedCommits: 20, userGradeSum: 100, reportedGradedCommits: 9, reportedGradeSum: 45, toolCalls: 1 }, lastAt: init.firstAt }]);
      mergeSpills(t.store, t.config.rules);
      const usage = t.store.tables.usage.get(key as [string, string, string]);
      expect(usage).toMatchObject({ userGradedCommits: 1, userGradeSum: 5, toolCalls: 1 });
      expect([usage?.reportedGradedCommits ?? 0, usage?.reportedGradeSum ?? 0]).toEqual([0, 0]);
    } finally {
      t.dispose();
    }
  });

  it("still merges the plugin's own spill whole, with no suspect record", () => {
    const t = haltedBuild();
    try {
      writeSpill(t.store.path, [{ table: 'agents', key: 'plan', ops: [{ kind: 'xp', amount: 4 }] }]);
      expect(mergeSpills(t.store, t.config.rules)).toMatchObject({ merged: 1, mutations: 1 });
      expect(t.service.getAgentStatus('plan').xp).toBe(4);
      expect(suspectUserActions(t.store)).toEqual([]);
    } finally {
      t.dispose();
    }
  });
});

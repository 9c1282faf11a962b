/**
 * The answers that bring git signals up to date first (`refreshSignals`, `refreshedRecommendAnswer`)
 * and the prior-art answer, on a temporary store and a temporary git repository whose first tracked
 * commit was reverted.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { priorArtAnswer } from '../../src/core/answers/prior-art.js';
import { recommendAnswer, refreshedRecommendAnswer } from '../../src/core/answers/recommend.js';
import { refreshSignals } from '../../src/core/answers/signals.js';
import { loadHistory } from '../../src/core/report/history.js';
import { buildReport } from '../../src/core/report/report.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const opened: TempTracker[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const t of opened.splice(0)) t.dispose();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const GIT_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test' };

/** A node project in git with two tracked commits, the first reverted; the tracker that recorded them. */
function projectWithRevert(): { dir: string; t: TempTracker } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-answers-')));
  dirs.push(dir);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env: GIT_ENV, encoding: 'utf8', timeout: 30_000 }).trim();
  git('init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'shop', dependencies: { express: '4' } }));
  git('add', '-A');
  git('commit', '-qm', 'init');
  const made: string[] = [];
  for (const name of ['b', 'c']) {
    fs.writeFileSync(path.join(dir, `${name}.txt`), `${name}\n`);
    git('add', '-A');
    git('commit', '-qm', `feat: ${name}`);
    made.push(git('rev-parse', 'HEAD'));
  }
  git('revert', '--no-edit', made[0] as string);
  const t = tempTracker({}, dir);
  opened.push(t);
  t.service.noteSession('s1', { project: dir });
  t.service.noteModelRequest('s1', 'build', 'fake/a');
  t.service.recordCommits('s1', made.map((hash) => ({ hash, message: 'work', files: ['x'], insertions: 1, deletions: 0, timestamp: '2025-01-01T00:00:00.000Z' })));
  expect(t.service.endTurn('s1').ok).toBe(true);
  return { dir, t };
}

const revertRate = (t: TempTracker): number | null | undefined => buildReport(loadHistory(t.store)).rows[0]?.revertRate;

describe('answers that refresh git signals first', () => {
  it('refreshSignals counts the revert once, however often a project is named, and writes it', async () => {
    const { dir, t } = projectWithRevert();
    // Before git is read there is no evidence either way: no rate, not 0%.
    expect(revertRate(t)).toBeNull();
    await refreshSignals(t.service, [dir, dir]);
    // Written by the refresh itself: a reader of the store sees it without another flush.
    expect(revertRate(t)).toBe(1 / 2);
    await refreshSignals(t.service, [dir]);
    expect(revertRate(t)).toBe(1 / 2);
  });

  it('refreshSignals fails when the signals cannot be written', async () => {
    const { dir, t } = projectWithRevert();
    t.store.refuseWrites('the database is being checked');
    await expect(refreshSignals(t.service, [dir])).rejects.toThrow();
  });

  it('refreshedRecommendAnswer refreshes the signals, then answers as recommendAnswer does', async () => {
    const { dir, t } = projectWithRevert();
    const answer = await refreshedRecommendAnswer(t.service, { project: dir });
    expect(revertRate(t)).toBe(1 / 2);
    expect(answer.project.path).toBe(dir);
    const again = await recommendAnswer(t.store, { project: dir });
    // The same answer; only the moment the project was classified differs.
    expect({ ...answer, project: { ...answer.project, classifiedAt: '' } }).toEqual({ ...again, project: { ...again.project, classifiedAt: '' } });
    expect((await recommendAnswer(t.store, { project: dir, prefer: 'cheap' })).prefer).toBe('cheap');
  });

  it('refreshedRecommendAnswer refuses a project that is neither a folder nor stored, writing nothing', async () => {
    const { dir, t } = projectWithRevert();
    await expect(refreshedRecommendAnswer(t.service, { project: path.join(dir, 'gone') })).rejects.toThrow();
    // Nothing counted, git never read: still no rate.
    expect(revertRate(t)).toBeNull();
  });
});

describe('prior-art answer', () => {
  it("finds the project's recorded work by its words", async () => {
    const { dir, t } = projectWithRevert();
    t.service.logActivity({ agent: 'build', project: dir, sessionId: 's1', task: 'cursor pagination for the order list', outcome: 'success' });
    expect(t.service.flush('note').ok).toBe(true);
    const answer = await priorArtAnswer(t.store, { taskDescription: 'cursor pagination' }, dir);
    expect(answer.positivePatterns.map((match) => match.task)).toContain('cursor pagination for the order list');
  });
});

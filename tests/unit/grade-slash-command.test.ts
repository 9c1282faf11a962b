/**
 * `/grade` without a hash: it grades the latest tracked commit that is not a revert, and answers with
 * a toast and a log line (what `opencode run` shows) naming the commit, agent and model.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { PluginInput } from '@opencode-ai/plugin';
import { createGradeCommand } from '../../src/opencode/grade-command.js';
import { recordingLogger, tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const PROJECT = '/work/project';
let t: TempTracker | undefined;
afterEach(() => t?.dispose());

const commit = (fill: string, n: number, message: string) => ({
  hash: fill.repeat(40),
  message,
  files: ['src/a.ts'],
  insertions: 1,
  deletions: 0,
  timestamp: new Date(1_700_000_000_000 + n * 1000).toISOString(),
});

/** The one host call the command makes, kept as data: the toast it would show. */
function toastRecorder(shown: { title?: string; message: string }[]): PluginInput['client'] {
  const tui = { showToast: (input: { body: { title?: string; message: string } }) => Promise.resolve(void shown.push(input.body)) };
  return { tui } as unknown as PluginInput['client'];
}

describe('/grade', () => {
  it('skips a revert when choosing the latest commit and names commit, agent and model', () => {
    t = tempTracker({}, PROJECT);
    t.service.noteModelRequest('s1', 'build', 'fake/model-a');
    t.service.recordCommits('s1', [commit('a', 1, 'feat: the work'), commit('b', 2, 'Revert "feat: the work"\n\nThis reverts commit ' + 'a'.repeat(40) + '.')]);
    t.service.flush('test');
    const shown: { title?: string; message: string }[] = [];
    const logged: { level: string; message: string }[] = [];
    createGradeCommand({ client: toastRecorder(shown), service: t.service, logger: recordingLogger(logged), project: PROJECT })('5');
    const expected = `commit aaaaaaa by build (fake/model-a) graded 5 (excellence)`;
    expect(shown).toEqual([expect.objectContaining({ title: 'Your grade: 5 (excellence)', message: expected })]);
    expect(logged.map((entry) => entry.message)).toContain(`agent-tracker: /grade recorded: ${expected}`);
  });
});

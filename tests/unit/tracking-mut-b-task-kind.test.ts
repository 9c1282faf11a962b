/**
 * The task kind of turns whose text has blanks around it or whose commits say nothing: what the user
 * sees counted under turnsBugFix, turnsFeature, ... on the setup's usage record.
 */
import { describe, expect, it } from '@jest/globals';
import { classifyTaskKind } from '../../src/core/outcomes/task-kind.js';
import type { TaskKind, TurnFacts } from '../../src/core/outcomes/task-kind.js';

describe('classifyTaskKind on blank and padded text', () => {
  it.each<[string, TurnFacts, TaskKind]>([
    // A blank commit message is no commit: the turn edited nothing, so a question stays a question.
    ['an empty commit message and a question', { prompt: 'what is this?', commitMessages: [''] }, 'question/other'],
    ['a blank commit message and a question', { prompt: 'what is this?', commitMessages: ['   '] }, 'question/other'],
    // A conventional prefix after leading blanks still names the kind.
    ['a fix commit with leading blanks', { prompt: 'go', filesEdited: ['src/a.ts'], commitMessages: ['  fix: keep the buffer'] }, 'bug fix'],
    // A question word after leading blanks still makes the prompt a question (no "add" feature).
    ['a padded question that edited nothing', { prompt: '  how do I add a flag', filesEdited: [] }, 'question/other'],
    // A commit with no telling prefix is still an edit: a question-like prompt does not make it a question.
    ['a commit without a prefix and a question word', { prompt: 'what now', commitMessages: ['wip'] }, 'feature'],
  ])('%s', (_name, turn, expected) => {
    expect(classifyTaskKind(turn)).toBe(expected);
  });
});

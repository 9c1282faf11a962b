/** The tables' records in words, as export, import and doctor print them: one of a kind in the singular. */
import { describe, expect, it } from '@jest/globals';
import { kindCount } from '../../src/cli/record-kinds.js';

describe('a count of records in words', () => {
  it.each([
    ['agents', 1, '1 agent'],
    ['agents', 2, '2 agents'],
    ['agents', 0, '0 agents'],
    ['sessions', 1, '1 usage record (one per session × agent × model)'],
    ['sessions', 3000, '3000 usage records (one per session × agent × model)'],
    ['retrospectives', 1, '1 retrospective'],
    ['activities', 1, '1 activity'],
    ['activities', 6, '6 activities'],
    ['projects', 1, '1 project'],
    ['userGrades', 1, '1 userGrade'],
    ['commits', 1, '1 commit'],
  ])('%s × %p: %p', (kind, count, text) => {
    expect(kindCount(kind, count)).toBe(text);
  });
});

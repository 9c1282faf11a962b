/** The task-kind classifier, table-driven: what the turn did first, then the user's prompt. */
import { describe, expect, it } from '@jest/globals';
import { classifyTaskKind, TASK_KINDS } from '../../src/core/outcomes/task-kind.js';
import type { TaskKind, TurnFacts } from '../../src/core/outcomes/task-kind.js';

describe('classifyTaskKind', () => {
  it.each<[string, TurnFacts, TaskKind]>([
    // What the turn edited, when every file says the same.
    ['only test files', { prompt: 'make it better', filesEdited: ['src/a.test.ts', 'tests/unit/b.test.ts'] }, 'tests'],
    ['a Go test file', { prompt: 'go on', filesEdited: ['pkg/store_test.go'] }, 'tests'],
    ['only docs', { prompt: 'update things', filesEdited: ['README.md', 'docs/USAGE.md'] }, 'docs'],
    ['only config', { prompt: 'please', filesEdited: ['package.json', '.github/workflows/ci.yml'] }, 'config'],
    // Mixed edits fall through to the commits, then the prompt.
    ['mixed edits, a fix commit', { prompt: 'go', filesEdited: ['src/a.ts', 'README.md'], commitMessages: ['fix(store): keep the buffer'] }, 'bug fix'],
    ['a feat commit', { prompt: 'go', filesEdited: ['src/a.ts'], commitMessages: ['feat: add --since'] }, 'feature'],
    ['a refactor commit', { prompt: 'go', filesEdited: ['src/a.ts'], commitMessages: ['refactor: split the store'] }, 'refactor'],
    ['a chore commit', { prompt: 'go', filesEdited: ['src/a.ts'], commitMessages: ['chore(deps): bump lmdb'] }, 'config'],
    ['commits of different kinds', { prompt: 'rename the flag', filesEdited: ['src/a.ts'], commitMessages: ['feat: x', 'fix: y'] }, 'refactor'],
    // The prompt's words, first match wins.
    ['a bug in words', { prompt: 'The export crashes on an empty database', filesEdited: ['src/export.ts'] }, 'bug fix'],
    ['fix the failing test is a bug fix', { prompt: 'fix the failing test in report', filesEdited: ['src/report.ts'] }, 'bug fix'],
    ['a refactor in words', { prompt: 'Clean up the store module and extract the codec', filesEdited: ['src/store.ts'] }, 'refactor'],
    ['tests in words', { prompt: 'add unit tests for the parser', filesEdited: ['src/parser.ts'] }, 'tests'],
    ['docs in words', { prompt: 'document the CLI flags', filesEdited: ['src/cli.ts'] }, 'docs'],
    ['config in words', { prompt: 'upgrade the dependencies', filesEdited: ['src/index.ts'] }, 'config'],
    ['a feature in words', { prompt: 'Implement a --json flag for status', filesEdited: ['src/status.ts'] }, 'feature'],
    ['edits with no telling word', { prompt: 'go ahead', filesEdited: ['src/a.ts'] }, 'feature'],
    // Questions and the rest.
    ['a question that edited nothing', { prompt: 'Why does the flush fail on NFS?' }, 'question/other'],
    ['an explain request', { prompt: 'explain how the term index works' }, 'question/other'],
    ['nothing to go on', { prompt: 'hello' }, 'question/other'],
    ['an empty prompt', { prompt: '   ' }, 'question/other'],
    ['a request with no edits yet', { prompt: 'fix the crash in export' }, 'bug fix'],
  ])('%s', (_name, turn, expected) => {
    expect(classifyTaskKind(turn)).toBe(expected);
  });

  it('only ever answers one of the listed kinds', () => {
    for (const prompt of ['', '?', 'fix', 'a b c', 'docs?', 'refactor the tests']) expect(TASK_KINDS).toContain(classifyTaskKind({ prompt }));
  });
});

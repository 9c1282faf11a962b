/**
 * What a prior-art match shows of its entry (task, labelled notes, grade) and which queries the
 * search refuses, through the real flush path and the real term index.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { getAllCommits } from '../../src/core/search/entries.js';
import { QueryService } from '../../src/core/search/service.js';
import { InputError } from '../../src/core/validation.js';
import { DEFAULT_PROJECT, hashOf, priorArtStore } from '../helpers/prior-art-store.js';
import type { PriorArtStore, Seed } from '../helpers/prior-art-store.js';

let t: PriorArtStore | undefined;
afterEach(() => {
  t?.dispose();
  t = undefined;
});

function seeded(seeds: Seed[]): QueryService {
  t = priorArtStore();
  t.write(seeds);
  return new QueryService(t.store);
}

describe('a prior-art match', () => {
  it("shows a commit's subject as its task and its body and first five files as notes, counting the rest", () => {
    const files = ['a.ts', 'b.ts', 'c.ts', 'd.ts', 'e.ts', 'f.ts', 'g.ts'];
    const service = seeded([{ kind: 'commit', id: 'c', message: 'Fix ledger totals\n\nround   each line\nthen sum', files }]);
    const [match] = service.searchPriorArt({ taskDescription: 'ledger totals', scope: DEFAULT_PROJECT }).positivePatterns;
    expect(match?.source).toBe('commit');
    expect(match?.task).toBe('Fix ledger totals');
    expect(match?.notes).toBe('Message: round each line then sum Files: a.ts, b.ts, c.ts, d.ts, e.ts (+2 more)');
  });

  it('lists all of five files, and leaves out a label whose text is empty', () => {
    const service = seeded([{ kind: 'commit', id: 'c', message: 'ledger export', files: ['a.ts', 'b.ts', 'c.ts', 'd.ts', 'e.ts'] }]);
    const [match] = service.searchPriorArt({ taskDescription: 'ledger export', scope: DEFAULT_PROJECT }).positivePatterns;
    expect(match?.notes).toBe('Files: a.ts, b.ts, c.ts, d.ts, e.ts');
  });

  it("shows the user's note and grade on a commit the user graded, and who graded it", () => {
    const service = seeded([
      { kind: 'commit', id: 'c', message: 'ledger rounding', files: ['l.ts'] },
      { kind: 'userGrade', id: 'c', grade: 2, note: 'solid work' },
    ]);
    const [match] = service.searchPriorArt({ taskDescription: 'ledger rounding', scope: DEFAULT_PROJECT }).positivePatterns;
    expect(match).toMatchObject({ source: 'commit', grade: 2, gradedBy: 'user', notes: 'Files: l.ts User note: solid work' });
  });

  it("names a retrospective without a task by its commit, and labels the agent's and the user's notes", () => {
    const service = seeded([{ kind: 'retrospective', id: 'r', task: '  ', userGrade: 5, agentNote: 'ledger\nrounding fixed', userNote: 'thanks' }]);
    const [match] = service.searchPriorArt({ taskDescription: 'ledger rounding', scope: DEFAULT_PROJECT }).positivePatterns;
    expect(match?.task).toBe(`commit ${hashOf('r').slice(0, 12)}`);
    expect(match?.notes).toBe('Agent note: ledger rounding fixed User note: thanks');
  });

  it("labels an activity's outcome and decisions, each on one line", () => {
    const service = seeded([{ kind: 'activity', id: 'a', task: 'ledger\n  import', outcome: 'imported\n\n3 files', decisions: '' }]);
    const [match] = service.searchPriorArt({ taskDescription: 'ledger import', scope: DEFAULT_PROJECT }).positivePatterns;
    expect(match).toMatchObject({ source: 'activity', task: 'ledger import', notes: 'Outcome: imported 3 files' });
  });
});

describe('a prior-art query', () => {
  it('takes up to 50 results per category and refuses 51', () => {
    const service = seeded([{ kind: 'activity', id: 'a', task: 'ledger' }]);
    expect(service.searchPriorArt({ taskDescription: 'ledger', scope: DEFAULT_PROJECT, maxResults: 50 }).positivePatterns).toHaveLength(1);
    expect(() => service.searchPriorArt({ taskDescription: 'ledger', scope: DEFAULT_PROJECT, maxResults: 51 })).toThrow(
      'the maximum number of results must be a whole number from 1 to 50, got 51',
    );
  });

  it('refuses a scope that is not text, and reads a scope with spaces around it as the scope', () => {
    const service = seeded([{ kind: 'activity', id: 'a', task: 'ledger' }]);
    const notText = { taskDescription: 'ledger', scope: 7 } as unknown as { taskDescription: string; scope: string };
    expect(() => service.searchPriorArt(notText)).toThrow(InputError);
    expect(() => service.searchPriorArt(notText)).toThrow('the scope must be a string');
    const padded = service.searchPriorArt({ taskDescription: 'ledger', scope: `  ${DEFAULT_PROJECT}  ` });
    expect(padded.positivePatterns.map((match) => match.scope)).toEqual([DEFAULT_PROJECT]);
    expect(padded.crossScopePatterns).toEqual([]);
  });
});

describe('getAllCommits', () => {
  it('takes pages of 1 to 10,000 entries and refuses a bigger one with the size it got', () => {
    t = priorArtStore();
    t.write([{ kind: 'commit', id: 'c', message: 'one' }, { kind: 'commit', id: 'd', message: 'two' }]);
    const store = t.store;
    expect(getAllCommits(store, { limit: 1 }).entries).toHaveLength(1);
    expect(getAllCommits(store, { limit: 10_000 }).entries).toHaveLength(2);
    expect(() => getAllCommits(store, { limit: 10_001 })).toThrow('the page size must be a whole number from 1 to 10000, got 10001');
  });
});

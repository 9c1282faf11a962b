import { afterEach, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { getAllActivities, getAllCommits, getAllRetrospectives } from '../../src/core/query/entries.js';
import { QueryService } from '../../src/core/query/service.js';
import { BLOCK_BYTES, decodePostings, DOCUMENTS_PER_BLOCK, REFS_PER_BLOCK, TermIndexReader } from '../../src/core/query/term-index.js';
import type { DocumentRef } from '../../src/core/query/term-index.js';
import { tokenize } from '../../src/core/query/tokenizer.js';
import { DEFAULT_RULES } from '../../src/core/rules.js';
import type { CommitKey, JournalKey, Mutation } from '../../src/core/store/mutations.js';
import { DEFAULT_PROJECT, mutationOf, priorArtStore } from '../helpers/prior-art-store.js';
import type { PriorArtStore, Seed } from '../helpers/prior-art-store.js';

let t: PriorArtStore | undefined;
afterEach(() => {
  t?.dispose();
  t = undefined;
});

const NOW = '2025-01-01T00:00:00.000Z';

function entryRefs(store: PriorArtStore['store']): DocumentRef[] {
  const refs: DocumentRef[] = [];
  for (const { key } of store.tables.retrospectives.getRange()) refs.push(['retrospective', ...key]);
  for (const { key } of store.tables.activities.getRange()) refs.push(['activity', ...key]);
  for (const { key } of store.tables.commits.getRange()) refs.push(['commit', ...key]);
  return refs;
}

function sortedRefs(refs: DocumentRef[]): string[] {
  return refs.map((ref) => JSON.stringify(ref)).sort();
}

function termKeys(store: PriorArtStore['store']): number {
  return store.tables.terms.getKeysCount();
}

describe('the term index and the entries never disagree', () => {
  it('writes neither entries nor postings when the flush fails after the index was updated', () => {
    t = priorArtStore();
    const store = t.store;
    let postingsSeenInsideTheTransaction = 0;
    store.addIndexer(() => {
      // Runs after the term indexer, inside the same transaction: the postings are there now.
      postingsSeenInsideTheTransaction = new TermIndexReader(store.tables.terms).postings('halfway').count;
      throw new Error('disk on fire');
    });
    const seeds: Seed[] = [
      { kind: 'retrospective', id: 'r', task: 'halfway retrospective', userGrade: 2 },
      { kind: 'activity', id: 'a', task: 'halfway activity' },
      { kind: 'commit', id: 'c', message: 'halfway commit' },
    ];
    expect(() => store.applyBatch(seeds.map(mutationOf), DEFAULT_RULES, NOW)).toThrow('disk on fire');
    expect(postingsSeenInsideTheTransaction).toBe(3);
    expect(entryRefs(store)).toEqual([]);
    expect(termKeys(store)).toBe(0);
    expect(new TermIndexReader(store.tables.terms).statistics()).toEqual({ documents: 0, totalLength: 0 });
  });

  it('writes neither when an entry fails to apply midway through the batch', () => {
    t = priorArtStore();
    const good = mutationOf({ kind: 'activity', id: 'ok', task: 'midway activity' });
    const broken = mutationOf({ kind: 'commit', id: 'bad', message: 'midway commit' });
    if (broken.table !== 'commits') throw new Error('the helper should make a commit mutation');
    // A value lmdb cannot encode makes applyOne throw after the first entry was written.
    const unencodable: Mutation = { ...broken, value: { ...broken.value, files: [Symbol('not storable')] as unknown as string[] } };
    expect(() => t?.store.applyBatch([good, unencodable], DEFAULT_RULES, NOW)).toThrow();
    expect(entryRefs(t.store)).toEqual([]);
    expect(termKeys(t.store)).toBe(0);
  });

  it('keeps every stored entry indexed exactly once over any mix of good and failing flushes', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            seeds: fc.array(
              fc.record({
                kind: fc.constantFrom('retrospective', 'activity', 'commit'),
                id: fc.integer({ min: 0, max: 40 }),
                words: fc.array(fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'the', 'ok'), { maxLength: 6 }),
              }),
              { minLength: 1, maxLength: 6 },
            ),
            fails: fc.boolean(),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        (flushes) => {
          const local = priorArtStore();
          let failNext = false;
          local.store.addIndexer(() => {
            if (failNext) throw new Error('simulated failure');
          });
          try {
            for (const flush of flushes) {
              failNext = flush.fails;
              const seeds = flush.seeds.map(({ kind, id, words }): Seed => {
                const text = words.join(' ');
                if (kind === 'retrospective') return { kind, id: `s${id}`, task: text, userGrade: 2 };
                if (kind === 'activity') return { kind, id: `s${id}`, task: text };
                return { kind, id: `s${id}`, message: text };
              });
              try {
                local.store.applyBatch(seeds.map(mutationOf), DEFAULT_RULES, NOW);
              } catch {
                // the failure under test
              }
            }
            const reader = new TermIndexReader(local.store.tables.terms);
            const refs = entryRefs(local.store);
            const indexed = [...reader.documentRefs()];
            expect(sortedRefs(indexed)).toEqual(sortedRefs(refs));
            expect(reader.statistics().documents).toBe(refs.length);
          } finally {
            local.dispose();
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it('indexes a document only once when the same entries arrive again (a second flush, an import of what is there)', () => {
    t = priorArtStore();
    const seeds: Seed[] = [
      { kind: 'activity', id: 'again', task: 'reindex safely', at: '2025-02-01T00:00:00.000Z' },
      { kind: 'commit', id: 'again', message: 'reindex safely too', at: '2025-02-01T00:01:00.000Z' },
    ];
    t.write(seeds);
    const store = t.store;
    const before = { stats: new TermIndexReader(store.tables.terms).statistics(), keys: termKeys(store) };
    t.write(seeds);
    const records = [
      ...[...store.tables.activities.getRange()].map(({ key, value }) => ({ table: 'activities' as const, key, value })),
      ...[...store.tables.commits.getRange()].map(({ key, value }) => ({ table: 'commits' as const, key, value })),
    ];
    expect(store.transaction(() => store.mergeAbsent(records))).toMatchObject({ added: 0, skipped: 2 });
    expect({ stats: new TermIndexReader(store.tables.terms).statistics(), keys: termKeys(store) }).toEqual(before);
    expect(sortedRefs([...new TermIndexReader(store.tables.terms).documentRefs()])).toEqual(sortedRefs(entryRefs(store)));
  });

  it('keeps postings of a term across many blocks in document order, and every document findable across metadata and reference blocks', () => {
    t = priorArtStore();
    // Enough documents (three bytes of postings each) that the term's postings close a block and fill
    // more than one metadata block and many reference blocks.
    const total = Math.ceil(BLOCK_BYTES / 3) + DOCUMENTS_PER_BLOCK + 5;
    const seeds = Array.from({ length: total }, (_, i): Seed => ({ kind: 'activity', id: `b${i}`, task: `blocky entry ${i}` }));
    t.write(seeds.slice(0, REFS_PER_BLOCK - 3));
    t.write(seeds.slice(REFS_PER_BLOCK - 3, DOCUMENTS_PER_BLOCK + 1));
    t.write(seeds.slice(DOCUMENTS_PER_BLOCK + 1));
    const [term = ''] = tokenize('blocky');
    const reader = new TermIndexReader(t.store.tables.terms);
    const { blocks, count } = reader.postings(term);
    expect(count).toBe(total);
    expect(blocks.length).toBeGreaterThan(1);
    expect(blocks.slice(0, -1).every((block) => block.length >= BLOCK_BYTES)).toBe(true);
    const documents = blocks.flatMap((block) => {
      const numbers = new Uint32Array(block.length);
      const decoded = decodePostings(block, numbers, new Uint32Array(block.length), new Uint32Array(block.length));
      return Array.from(numbers.subarray(0, decoded));
    });
    expect(documents).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(sortedRefs([...reader.documentRefs()])).toEqual(sortedRefs(entryRefs(t.store)));
    expect(reader.documentMetadata(total)).toMatchObject({ kind: 'activity', documentLength: 3, grade: undefined });
    const result = new QueryService(t.store).searchPriorArt({ taskDescription: 'blocky', scope: DEFAULT_PROJECT, maxResults: 3 });
    expect(result.positivePatterns).toHaveLength(3);
  });

  it('finds a graded retrospective and a commit again from their compact references (hashes stored as bytes)', () => {
    t = priorArtStore();
    t.write([
      { kind: 'retrospective', id: 'graded', task: 'compact reference check', userGrade: 5 },
      { kind: 'commit', id: 'not-hex-id', message: 'compact reference commit', project: '/projects/beta' },
    ]);
    const reader = new TermIndexReader(t.store.tables.terms);
    expect(sortedRefs([...reader.documentRefs()])).toEqual(sortedRefs(entryRefs(t.store)));
    expect(reader.documentMetadata(1)).toMatchObject({ kind: 'retrospective', grade: 5 });
    expect(reader.documentMetadata(2)).toMatchObject({ kind: 'commit', grade: undefined });
  });
});

describe('getAllRetrospectives / getAllActivities / getAllCommits', () => {
  it('pages through every entry across agents and projects without repeats', () => {
    t = priorArtStore();
    const seeds: Seed[] = [
      ...Array.from({ length: 7 }, (_, i): Seed => ({ kind: 'commit', id: `c${i}`, message: `m${i}`, project: `/p/${i % 3}` })),
      ...Array.from({ length: 4 }, (_, i): Seed => ({ kind: 'activity', id: `a${i}`, task: `t${i}`, agent: i % 2 ? 'plan' : 'build' })),
      ...Array.from({ length: 3 }, (_, i): Seed => ({ kind: 'retrospective', id: `r${i}`, task: `t${i}`, userGrade: 2, agent: `agent${i}` })),
    ];
    t.write(seeds);
    const store = t.store;
    const pagesOf = <K, V>(read: (after?: K) => { entries: V[]; next?: K }) => {
      const sizes: number[] = [];
      const all: V[] = [];
      let after: K | undefined;
      for (let guard = 0; guard < 20; guard += 1) {
        const page = read(after);
        sizes.push(page.entries.length);
        all.push(...page.entries);
        if (!page.next) break;
        after = page.next;
      }
      return { sizes, all };
    };
    const commits = pagesOf((after?: CommitKey) => getAllCommits(store, { limit: 3, ...(after ? { after } : {}) }));
    expect(commits.sizes).toEqual([3, 3, 1]);
    expect(new Set(commits.all.map((c) => c.hash)).size).toBe(7);
    const activities = pagesOf((after?: JournalKey) => getAllActivities(store, { limit: 2, ...(after ? { after } : {}) }));
    expect(activities.sizes).toEqual([2, 2]);
    expect(new Set(activities.all.map((a) => a.agent))).toEqual(new Set(['build', 'plan']));
    expect(getAllRetrospectives(store).entries.map((r) => r.agent)).toEqual(['agent0', 'agent1', 'agent2']);
    expect(() => getAllCommits(store, { limit: 0 })).toThrow(/page size/);
  });
});

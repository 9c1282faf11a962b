import { afterEach, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { getAllActivities, getAllCommits, getAllRetrospectives } from '../../src/core/search/entries.js';
import { QueryService } from '../../src/core/search/service.js';
import { rebuildStaleTermIndex } from '../../src/core/search/reindex.js';
import { CHUNK_BYTES } from '../../src/core/search/index/chunks.js';
import { compareTerms, decodePostings } from '../../src/core/search/index/codec.js';
import { BLOCK_BYTES, DOCUMENTS_PER_BLOCK, REFS_PER_BLOCK, TERM_INDEX_VERSION } from '../../src/core/search/index/layout.js';
import { TermIndexReader } from '../../src/core/search/index/reader.js';
import { MAX_RUNS, MERGE_SHARE, MIN_MERGE_TERMS } from '../../src/core/search/index/runs.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { Store } from '../../src/core/store/store.js';
import type { DocumentRef } from '../../src/core/search/index/layout.js';
import { tokenize } from '../../src/core/search/tokenizer.js';
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
    expect(store.write(() => store.mergeAbsent(records))).toMatchObject({ added: 0, skipped: 2 });
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
    const documentsOf = (block: Uint8Array) => {
      const numbers = new Uint32Array(block.length);
      const decoded = decodePostings(block, numbers, new Uint32Array(block.length), new Uint32Array(block.length));
      return Array.from(numbers.subarray(0, decoded));
    };
    const { blocks, count } = reader.postings(term);
    expect(count).toBe(total);
    expect(blocks.length).toBeGreaterThan(1);
    expect(blocks.flatMap(documentsOf)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    // Once the runs are merged, the postings close blocks: each posting here is three one-byte
    // numbers (gap 1, frequency 1, length 3), so a block closes at its ceil(BLOCK_BYTES / 3)th.
    while (t.store.maintainIndexes());
    const merged = reader.postings(term);
    const perBlock = Math.ceil(BLOCK_BYTES / 3);
    expect(merged.count).toBe(total);
    expect(merged.blocks).toHaveLength(Math.ceil(total / perBlock));
    expect(documentsOf(merged.blocks[0] as Uint8Array)).toEqual(Array.from({ length: perBlock }, (_, i) => i + 1));
    expect(merged.blocks.flatMap(documentsOf)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(sortedRefs([...reader.documentRefs()])).toEqual(sortedRefs(entryRefs(t.store)));
    expect(reader.documentMetadata(total)).toMatchObject({ kind: 'activity', documentLength: 3, grade: undefined });
    const result = new QueryService(t.store).searchPriorArt({ taskDescription: 'blocky', scope: DEFAULT_PROJECT, maxResults: 3 });
    expect(result.positivePatterns).toHaveLength(3);
  });

  it('finds journal entries again from their references whatever the time in their key (ISO times stored as milliseconds)', () => {
    t = priorArtStore();
    t.write([
      { kind: 'activity', id: 'iso', task: 'reference time check', at: '2025-03-01T08:30:00.000Z' },
      { kind: 'activity', id: 'not-iso', task: 'reference time check', at: '2025-03-01 08:30' },
      { kind: 'activity', id: 'no-millis', task: 'reference time check', at: '2025-03-01T08:30:00Z' },
    ]);
    const reader = new TermIndexReader(t.store.tables.terms);
    expect(sortedRefs([...reader.documentRefs()])).toEqual(sortedRefs(entryRefs(t.store)));
    const stored = t.store.tables.terms.get(['d', 0]) as unknown[][];
    expect(stored.map((ref) => ref[1])).toEqual([Date.parse('2025-03-01T08:30:00.000Z'), '2025-03-01 08:30', '2025-03-01T08:30:00Z']);
    const result = new QueryService(t.store).searchPriorArt({ taskDescription: 'reference time check', scope: DEFAULT_PROJECT, maxResults: 5 });
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

/** Every posting of `term`, as [entry, term frequency, document length], in the order read; and whether the documents came in order. */
function postingsOf(reader: TermIndexReader, term: string): { postings: string[]; ordered: boolean } {
  reader.startQuery();
  const postings: string[] = [];
  let last = 0;
  let ordered = true;
  for (const block of reader.postings(term).blocks) {
    const documents = new Uint32Array(block.length);
    const frequencies = new Uint32Array(block.length);
    const lengths = new Uint32Array(block.length);
    const count = decodePostings(block, documents, frequencies, lengths);
    for (let i = 0; i < count; i += 1) {
      const document = documents[i] as number;
      if (document <= last) ordered = false;
      last = document;
      postings.push(JSON.stringify([reader.documentRef(document), frequencies[i], lengths[i]]));
    }
  }
  return { postings, ordered };
}

/** How many terms' postings the index's runs (not merged into the terms' blocks yet) hold. */
function runTerms(store: PriorArtStore['store']): number {
  return new TermIndexReader(store.tables.terms).pendingRuns().terms;
}

/** The `n`th of 17,576 distinct made-up words ("zq" and three letters), one term each. */
function syntheticWord(n: number): string {
  return `zq${[26 * 26, 26, 1].map((scale) => String.fromCharCode(97 + (Math.floor(n / scale) % 26))).join('')}`;
}

const VOCABULARY = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'theta', 'kappa', 'lambda', 'sigma', 'omega', 'ok'];

describe('runs: each flush writes its postings as a run, merged into the terms after it', () => {
  it('reads the same postings, in document order, as an index built in one go, over any sequence of flushes and merge steps', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            entries: fc.array(
              fc.record({
                kind: fc.constantFrom('retrospective', 'activity', 'commit'),
                words: fc.array(fc.constantFrom(...VOCABULARY), { minLength: 1, maxLength: 8 }),
              }),
              { minLength: 1, maxLength: 12 },
            ),
            // The merge steps the plugin runs after this flush (none: the session ended first).
            steps: fc.integer({ min: 0, max: 2 }),
          }),
          { minLength: 1, maxLength: 3 * MERGE_SHARE },
        ),
        (flushes) => {
          const local = priorArtStore();
          try {
            let id = 0;
            for (const flush of flushes) {
              local.write(flush.entries.map(({ kind, words }): Seed => {
                id += 1;
                const text = words.join(' ');
                if (kind === 'retrospective') return { kind, id: `p${id}`, task: text, userGrade: 1 };
                if (kind === 'activity') return { kind, id: `p${id}`, task: text };
                return { kind, id: `p${id}`, message: text };
              }));
              for (let step = 0; step < flush.steps; step += 1) local.store.maintainIndexes();
            }
            const store = local.store;
            const terms = VOCABULARY.flatMap((word) => tokenize(word));
            const flushed = terms.map((term) => postingsOf(new TermIndexReader(store.tables.terms), term));
            expect(flushed.every(({ ordered }) => ordered)).toBe(true);
            // The rebuild writes every posting straight into the terms' blocks, with no run.
            store.write((tables) => tables.terms.putSync(['s', 'version'], 1));
            expect(rebuildStaleTermIndex(store).rebuilt).toBe(true);
            expect(runTerms(store)).toBe(0);
            const rebuilt = terms.map((term) => postingsOf(new TermIndexReader(store.tables.terms), term));
            expect(flushed.map(({ postings }) => [...postings].sort())).toEqual(rebuilt.map(({ postings }) => [...postings].sort()));
          } finally {
            local.dispose();
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('never loses, repeats or reorders a posting while merge steps take partial slices of runs, and leaves no run chunk behind', () => {
    // Enough distinct words that the runs hold more than a slice, so slices end inside chunks and
    // runs written meanwhile hold terms before the sweep's place.
    const words = Array.from({ length: 900 }, (_, n) => syntheticWord(n));
    const terms = [...new Set(words.flatMap((word) => tokenize(word)))];
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            // 15-25 entries of 20-30 words: a run holds more terms than a step's minimum.
            entries: fc.array(fc.array(fc.integer({ min: 0, max: words.length - 1 }), { minLength: 20, maxLength: 30 }), { minLength: 15, maxLength: 25 }),
            steps: fc.integer({ min: 0, max: 3 }),
          }),
          { minLength: 1, maxLength: 5 },
        ),
        (flushes) => {
          const local = priorArtStore();
          try {
            const all = () => terms.map((term) => postingsOf(new TermIndexReader(local.store.tables.terms), term));
            let id = 0;
            for (const flush of flushes) {
              local.write(flush.entries.map((picked): Seed => ({ kind: 'activity', id: `w${(id += 1)}`, task: picked.map((at) => words[at]).join(' ') })));
              const written = all();
              expect(written.every(({ ordered }) => ordered)).toBe(true);
              for (let step = 0; step < flush.steps; step += 1) {
                local.store.maintainIndexes();
                expect(all()).toEqual(written);
              }
            }
            const before = all();
            for (let guard = 0; guard < 100 && local.store.maintainIndexes(); guard += 1);
            expect(all()).toEqual(before);
            expect(runTerms(local.store)).toBe(0);
            // Every chunk of every run is gone once its terms are merged.
            expect(local.store.tables.terms.getKeysCount({ start: ['q'], end: ['r'] })).toBe(0);
          } finally {
            local.dispose();
          }
        },
      ),
      { numRuns: 12 },
    );
  });

  it('sweeps the whole term range, so with one step per flush no more than MERGE_SHARE runs wait', () => {
    t = priorArtStore();
    // Each flush holds more terms than a step merges, spread over the whole range of terms: a sweep
    // that started from the first term again at every step would leave the later terms of old runs
    // waiting for ever.
    const word = syntheticWord;
    const live: number[] = [];
    for (let flush = 0; flush < 4 * MERGE_SHARE; flush += 1) {
      t.write(Array.from({ length: 20 }, (_, i): Seed => ({
        kind: 'activity',
        id: `f${flush}-${i}`,
        task: Array.from({ length: 30 }, (_, j) => word((flush * 7919 + i * 30 + j) % 3000)).join(' '),
      })));
      t.store.maintainIndexes();
      live.push(new TermIndexReader(t.store.tables.terms).pendingRuns().runs);
    }
    expect(Math.max(...live)).toBeLessThanOrEqual(MERGE_SHARE);
  });

  it('leaves the merge to a step after the flush, and each step merges a slice until no run is left', () => {
    t = priorArtStore();
    // One flush of 4,000 distinct words.
    const word = syntheticWord;
    const taskOf = (i: number) => Array.from({ length: 10 }, (_, j) => word(i * 10 + j)).join(' ');
    t.write(Array.from({ length: 400 }, (_, i): Seed => ({ kind: 'activity', id: `big${i}`, task: taskOf(i) })));
    const reader = new TermIndexReader(t.store.tables.terms);
    const afterFlush = reader.pendingRuns();
    expect(afterFlush.runs).toBe(1);
    expect(afterFlush.terms).toBeGreaterThan(MERGE_SHARE * MIN_MERGE_TERMS);
    // Each step merges 1/MERGE_SHARE of what the runs held when it started, sweeping the terms in order.
    const held: number[] = [];
    for (let left = true, guard = 0; left && guard < 4 * MERGE_SHARE; guard += 1) {
      left = t.store.maintainIndexes();
      held.push(reader.pendingRuns().terms);
    }
    expect(held[0]).toBe(afterFlush.terms - Math.ceil(afterFlush.terms / MERGE_SHARE));
    // Then at least MIN_MERGE_TERMS a step: the tail goes in one.
    expect(held.filter((terms) => terms > 0 && terms < MIN_MERGE_TERMS).length).toBeLessThanOrEqual(1);
    expect(held.every((terms, step) => step === 0 || terms < (held[step - 1] as number))).toBe(true);
    expect(held.at(-1)).toBe(0);
    expect(held.length).toBeLessThanOrEqual(4 * MERGE_SHARE);
    expect(reader.pendingRuns().runs).toBe(0);
    expect(t.store.maintainIndexes()).toBe(false);
    const result = new QueryService(t.store).searchPriorArt({ taskDescription: word(123), scope: DEFAULT_PROJECT, maxResults: 3 });
    expect(result.positivePatterns.map((match) => match.task)).toEqual([taskOf(12)]);
  });

  it('merges slices inside the flushes themselves once more than MAX_RUNS runs wait (no step ran), so the runs a query reads stay bounded', () => {
    t = priorArtStore();
    const runs: number[] = [];
    const flushes = 3 * MAX_RUNS;
    for (let i = 0; i < flushes; i += 1) {
      t.write([{ kind: 'activity', id: `r${i}`, task: `thumbnail step ${i} of many` }]);
      runs.push(new TermIndexReader(t.store.tables.terms).pendingRuns().runs);
    }
    expect(runs.slice(0, MAX_RUNS)).toEqual(Array.from({ length: MAX_RUNS }, (_, i) => i + 1));
    // A sweep of about MERGE_SHARE slices empties every run it started with.
    expect(Math.max(...runs)).toBeLessThanOrEqual(MAX_RUNS + MERGE_SHARE + 1);
    expect(runs.at(-1)).toBeLessThanOrEqual(MAX_RUNS + MERGE_SHARE + 1);
    expect(postingsOf(new TermIndexReader(t.store.tables.terms), tokenize('thumbnail')[0] as string)).toMatchObject({ ordered: true, postings: { length: flushes } });
  });

  it('finds entries whose postings are still in runs, and again once they are merged', () => {
    t = priorArtStore();
    t.write([{ kind: 'activity', id: 'first', task: 'thumbnail cache warmup' }]);
    t.write([{ kind: 'activity', id: 'second', task: 'thumbnail resize' }]);
    expect(runTerms(t.store)).toBeGreaterThan(0);
    const tasks = () => new QueryService(t!.store).searchPriorArt({ taskDescription: 'thumbnail', scope: DEFAULT_PROJECT }).positivePatterns.map((match) => match.task).sort();
    expect(tasks()).toEqual(['thumbnail cache warmup', 'thumbnail resize']);
    while (t.store.maintainIndexes());
    expect(runTerms(t.store)).toBe(0);
    expect(tasks()).toEqual(['thumbnail cache warmup', 'thumbnail resize']);
  });

  it('finds the runs of an index rebuilt meanwhile, whose run numbers start again (what it read of the old runs is forgotten)', () => {
    t = priorArtStore();
    const store = t.store;
    const tasks = (text: string) => new QueryService(store).searchPriorArt({ taskDescription: text, scope: DEFAULT_PROJECT }).positivePatterns.map((match) => match.task).sort();
    t.write([{ kind: 'activity', id: 'a', task: 'thumbnail cache warmup' }]);
    expect(tasks('thumbnail')).toEqual(['thumbnail cache warmup']);
    // A rebuild (here of an index marked stale) starts again from empty: new generation, run 1 anew.
    store.write((tables) => tables.terms.putSync(['s', 'version'], 1));
    expect(rebuildStaleTermIndex(store).rebuilt).toBe(true);
    t.write([{ kind: 'activity', id: 'b', task: 'zebra crossing thumbnail' }]);
    expect(new TermIndexReader(store.tables.terms).pendingRuns().runs).toBe(1);
    expect(tasks('zebra')).toEqual(['zebra crossing thumbnail']);
    expect(tasks('thumbnail')).toEqual(['thumbnail cache warmup', 'zebra crossing thumbnail']);
  });

  it('packs a run into chunks of at most one page each, full but for the last', () => {
    t = priorArtStore();
    const word = syntheticWord;
    t.write(Array.from({ length: 100 }, (_, i): Seed => ({ kind: 'activity', id: `c${i}`, task: Array.from({ length: 20 }, (_, j) => word(i * 20 + j)).join(' ') })));
    const chunks = [...t.store.tables.terms.getRange({ start: ['q'], end: ['r'] })].map(({ value }) => (value as Uint8Array).length);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((length) => length <= CHUNK_BYTES)).toBe(true);
    expect(chunks.slice(0, -1).every((length) => length > CHUNK_BYTES - 64)).toBe(true);
  });

  it('writes no run for a flush whose entries hold no searchable word', () => {
    t = priorArtStore();
    t.write([{ kind: 'commit', id: 'quiet', message: '' }]);
    expect(new TermIndexReader(t.store.tables.terms).pendingRuns()).toEqual({ runs: 0, terms: 0 });
    expect(new TermIndexReader(t.store.tables.terms).statistics().documents).toBe(1);
  });

  it('merges nothing into an index of another version (it waits for its rebuild)', () => {
    t = priorArtStore();
    t.write([{ kind: 'activity', id: 'a', task: 'thumbnail cache warmup' }]);
    const store = t.store;
    store.write((tables) => tables.terms.putSync(['s', 'version'], 1));
    const keys = store.tables.terms.getKeysCount();
    expect(store.maintainIndexes()).toBe(false);
    expect(store.tables.terms.getKeysCount()).toBe(keys);
    expect(new TermIndexReader(store.tables.terms).pendingRuns().runs).toBe(1);
  });

  it('has nothing to merge in a store opened read-only', () => {
    t = priorArtStore();
    t.write([{ kind: 'activity', id: 'first', task: 'thumbnail cache warmup' }]);
    const readOnly = Store.open({ path: t.store.path, maxDatabaseSize: t.store.maxDatabaseSize, readOnly: true, indexer: termIndexer });
    try {
      expect(readOnly.maintainIndexes()).toBe(false);
      expect(new TermIndexReader(readOnly.tables.terms).pendingRuns().runs).toBe(1);
    } finally {
      readOnly.close();
    }
  });

  it('orders terms as lmdb orders their keys (by UTF-8 bytes), characters above U+FFFF included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        expect(Math.sign(compareTerms(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
      }),
      { numRuns: 2_000 },
    );
    expect(compareTerms('\u{1F600}', '\uFFFD')).toBeGreaterThan(0);
    expect('\u{1F600}' < '\uFFFD').toBe(true);
    // At the edges of the surrogates and of the units after them.
    expect(compareTerms('\uE000', '\u{10000}')).toBeLessThan(0);
    expect(compareTerms('\uD7FF', '\uE000')).toBeLessThan(0);
    expect(compareTerms('\uD7FF', '\u{10000}')).toBeLessThan(0);
    expect(compareTerms('\uFFFF', '\u{10000}')).toBeLessThan(0);
    expect(compareTerms('\u{10000}', '\uE000')).toBeGreaterThan(0);
  });

  it('rebuilds an index of version 3 or 4 (without the grades of bug reports), then marks a verified report as a mistake', () => {
    for (const earlier of [3, 4]) {
      t = priorArtStore();
      const store = t.store;
      t.write([{ kind: 'activity', id: 'bug', task: 'Bug reported: thumbnail cache serves stale images', outcome: 'bug' }]);
      store.write((tables) => tables.terms.putSync(['s', 'version'], earlier));
      const reader = new TermIndexReader(store.tables.terms);
      expect(reader.isCurrent()).toBe(false);
      expect(rebuildStaleTermIndex(store).rebuilt).toBe(true);
      expect(reader.version()).toBe(TERM_INDEX_VERSION);
      const result = new QueryService(store).searchPriorArt({ taskDescription: 'thumbnail cache', scope: DEFAULT_PROJECT });
      expect(result.positivePatterns).toEqual([]);
      expect(result.mistakes.map((match) => [match.task, match.judgedBy])).toEqual([['Bug reported: thumbnail cache serves stale images', 'reported-bug']]);
      t.dispose();
      t = undefined;
    }
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

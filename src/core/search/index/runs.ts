/**
 * Runs: how a live flush's postings wait before they join the terms' blocks, and their merge.
 *
 * A flush does not append to each term's open block where it lies: its terms are spread over the
 * whole index, so it would copy on write most of the index's pages (lmdb frees them only two
 * transactions later, so they stay in the file). It writes its postings as a run: the terms in
 * order, packed into chunks of one page, each under its last term, after every earlier run's (pages
 * written in order, full). After the flush, in a transaction of its own (`mergeTermRuns`, see
 * DocumentIndexer.maintain), a slice of the runs is merged into the blocks: the runs' next
 * MERGE_SHARE-th of terms in order, where the previous slice stopped (a sweep that wraps around). A
 * slice is a contiguous range of terms, so it copies only the pages of that range. A term's blocks
 * hold documents older than any run's, and runs are read in order after them, so a term's
 * postings always come in document order. The postings of a term found in 20,000 entries are
 * about 50 KB in a few dozen blocks.
 */
import { compareTerms, textDecoder } from './codec.js';
import { ChunkWriter, chunkEntries, packEntries } from './chunks.js';
import type { ChunkEntry } from './chunks.js';
import { indexIsCurrent, liveRuns, readNumber, RUN_PREFIX, RUNS_KEY, SWEEP_KEY, toBytes } from './layout.js';
import type { TermIndexKey, TermTable } from './layout.js';
import { appendDecoded, appendPostings, runBlock } from './postings.js';

/** Each flush merges this share of the terms its runs hold (1/MERGE_SHARE). */
export const MERGE_SHARE = 8;
/** Terms a slice merges at least: the last few runs go in one step, not in a long tail of small ones. */
export const MIN_MERGE_TERMS = 256;
/** Runs left waiting after which a flush merges a slice itself (see writer.ts). */
export const MAX_RUNS = 32;

/**
 * Writes a flush's postings (flat triples per term) as a new run: its terms in order, packed into
 * chunks of about CHUNK_BYTES, each under its last term and after every earlier run's. Returns the
 * live runs, this one last.
 */
export function writeRun(table: TermTable, pending: ReadonlyMap<string, readonly number[]>): number[] {
  const runs = liveRuns(table);
  if (pending.size === 0) return runs;
  const run = readNumber(table, ['s', 'nextRun']) + 1;
  table.putSync(['s', 'nextRun'], run);
  const terms = [...pending.keys()].sort(compareTerms);
  const chunks = new ChunkWriter(table, run);
  for (const term of terms) chunks.add(term, runBlock(pending.get(term) as readonly number[]));
  chunks.finish();
  runs.push(run, terms.length);
  return runs;
}

/**
 * One step of the merge a flush leaves (see above), inside the caller's write
 * transaction: the next slice of the runs into the terms' blocks. Returns whether runs are left.
 */
export function mergeTermRuns(table: TermTable): boolean {
  if (!indexIsCurrent(table)) return false;
  const runs = liveRuns(table);
  if (runs.length === 0) return false;
  mergeSlice(table, runs);
  return liveRuns(table).length > 0;
}

/**
 * Merges the next slice of the runs into the terms' blocks: the next 1/MERGE_SHARE of the terms
 * the runs hold (at least MIN_MERGE_TERMS), in term order from where the sweep stopped
 * (`SWEEP_KEY`), every run's postings of each term at once and oldest run first; then drops the
 * runs left empty. The sweep wraps around to the first term once no run holds a later one.
 */
export function mergeSlice(table: TermTable, runs: number[]): void {
  let held = 0;
  for (let slot = 1; slot < runs.length; slot += 2) held += runs[slot] as number;
  if (held === 0) return;
  const budget = Math.max(Math.ceil(held / MERGE_SHARE), MIN_MERGE_TERMS);
  const stored = table.get(SWEEP_KEY);
  let merged = mergeFrom(table, runs, typeof stored === 'string' ? stored : undefined, budget);
  // Nothing from the sweep's place on: it starts again from the first term.
  if (merged.terms === 0 && typeof stored === 'string') merged = mergeFrom(table, runs, undefined, budget);
  if (merged.last === undefined) table.removeSync(SWEEP_KEY);
  else table.putSync(SWEEP_KEY, merged.last);
  const live: number[] = [];
  for (let slot = 0; slot < runs.length; slot += 2) if ((runs[slot + 1] as number) > 0) live.push(runs[slot] as number, runs[slot + 1] as number);
  table.putSync(RUNS_KEY, live);
}

/**
 * Where a merge is in one run, walking its chunks in term order from the sweep's place. A chunk's
 * entries before `from` (a run written after the sweep passed them) are skipped and stay; the
 * entries taken follow, then those not reached. What to write back is collected in `changes`.
 */
class RunHead {
  /** The current entry's term; undefined once the run has no more. */
  term: string | undefined;
  /** Per chunk left behind: its key, and the entries it keeps (none: the chunk is removed). */
  readonly changes: { key: TermIndexKey; rest: ChunkEntry[] }[] = [];
  private readonly chunks: Iterator<{ key: TermIndexKey; value: unknown }>;
  private key: TermIndexKey | undefined;
  private entries: ChunkEntry[] = [];
  private at = 0;
  private firstTaken = -1;

  constructor(
    table: TermTable,
    readonly slot: number,
    run: number,
    private readonly from: string | undefined,
  ) {
    const start: TermIndexKey = from === undefined ? [RUN_PREFIX, run] : [RUN_PREFIX, run, from];
    this.chunks = table.getRange({ start, end: [RUN_PREFIX, run + 1] })[Symbol.iterator]();
    this.nextChunk();
  }

  /** The current entry's block; moves on to the next entry. */
  take(): Uint8Array {
    const block = (this.entries[this.at] as ChunkEntry).block;
    if (this.firstTaken < 0) this.firstTaken = this.at;
    this.at += 1;
    this.settle();
    return block;
  }

  /** Closes the cursor and notes what the current chunk keeps. */
  close(): void {
    this.chunks.return?.();
    this.leaveChunk();
  }

  private leaveChunk(): void {
    if (this.key === undefined || this.firstTaken < 0) return;
    this.changes.push({ key: this.key, rest: [...this.entries.slice(0, this.firstTaken), ...this.entries.slice(this.at)] });
    this.key = undefined;
  }

  private nextChunk(): void {
    this.leaveChunk();
    const next = this.chunks.next();
    this.key = next.done === true ? undefined : next.value.key;
    const bytes = next.done === true ? undefined : toBytes(next.value.value);
    // Copied: lmdb may reuse the buffer behind a value on the next read.
    this.entries = bytes ? chunkEntries(bytes.slice()) : [];
    this.at = 0;
    this.firstTaken = -1;
    this.term = undefined;
    if (this.key !== undefined) this.settle();
  }

  /** Reads the current entry's term, skipping those before `from`; at a chunk's end, goes to the next. */
  private settle(): void {
    while (this.at < this.entries.length) {
      const term = textDecoder.decode((this.entries[this.at] as ChunkEntry).term);
      if (this.firstTaken >= 0 || this.from === undefined || compareTerms(term, this.from) >= 0) {
        this.term = term;
        return;
      }
      this.at += 1;
    }
    this.nextChunk();
  }
}

/**
 * Merges up to `budget` terms from `from` on (every term when undefined), updating the counts in
 * `runs`. Returns how many terms it merged and the term the next slice starts from (the last one
 * merged: a run written later may hold it again), or undefined when it reached every run's end.
 */
function mergeFrom(table: TermTable, runs: number[], from: string | undefined, budget: number): { terms: number; last: string | undefined } {
  // First read what to merge, one cursor per run walked in term order, then write: no write
  // happens while a cursor is open.
  const heads: RunHead[] = [];
  const batch: { term: string; blocks: Uint8Array[] }[] = [];
  try {
    for (let slot = 0; slot < runs.length; slot += 2) heads.push(new RunHead(table, slot, runs[slot] as number, from));
    while (batch.length < budget) {
      let term: string | undefined;
      for (const head of heads) if (head.term !== undefined && (term === undefined || compareTerms(head.term, term) < 0)) term = head.term;
      if (term === undefined) break;
      const blocks: Uint8Array[] = [];
      // Heads are in run order: the oldest run's postings first.
      for (const head of heads) {
        if (head.term !== term) continue;
        blocks.push(head.take());
        runs[head.slot + 1] = (runs[head.slot + 1] as number) - 1;
      }
      batch.push({ term, blocks });
    }
  } finally {
    for (const head of heads) head.close();
  }
  const more = heads.some((head) => head.term !== undefined);
  for (const head of heads) {
    for (const { key, rest } of head.changes) {
      if (rest.length === 0) table.removeSync(key);
      else table.putSync(key, packEntries(rest));
    }
  }
  const postings: number[] = [];
  for (const { term, blocks } of batch) {
    postings.length = 0;
    for (const block of blocks) appendDecoded(block, postings);
    appendPostings(table, term, postings);
  }
  return { terms: batch.length, last: more ? batch.at(-1)?.term : undefined };
}

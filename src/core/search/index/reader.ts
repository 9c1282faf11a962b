/**
 * Read access to the term index for queries: statistics, a term's postings (blocks, then the runs
 * not merged yet), documents' metadata and references (cached per index generation), the
 * dictionaries, and the indexed words near a misspelt one.
 */
import { FUZZY_MAX_EDITS, withinOneEdit } from '../fuzzy.js';
import { wordTerm } from '../tokenizer.js';
import { blockInChunk } from './chunks.js';
import { blockHeader, ByteWriter, compareTerms, postingCount, textEncoder } from './codec.js';
import { DOCUMENTS_PER_BLOCK, GENERATION_KEY, indexIsCurrent, LAST_KEY_NUMBER, liveRuns, OPEN_BLOCK, readNumber, REFS_PER_BLOCK, RUN_PREFIX, toBytes, VERSION_KEY } from './layout.js';
import type { Dictionary, DocumentRef, IndexStatistics, PostingList, TermReadTable } from './layout.js';
import { METADATA_WORDS, metadataOf, toWords } from './metadata.js';
import type { DocumentMetadata } from './metadata.js';
import { headDictionary, unpackPart } from './refs.js';
import { MAX_RUNS } from './runs.js';

/** Full metadata blocks kept in memory per table, at most (4 MiB each 1,000 blocks: over 250,000 documents). */
const CACHED_METADATA_BLOCKS = 4_096;

/** Full metadata blocks of one index generation, kept across queries and readers of one table. */
interface MetadataCache {
  generation: unknown;
  blocks: Map<number, Uint32Array>;
}
const metadataCaches = new WeakMap<TermReadTable, MetadataCache>();

/** Each run's chunk keys (their last terms, in order), per index generation and table. */
const runDirectoryCaches = new WeakMap<TermReadTable, { generation: unknown; runs: Map<number, string[]> }>();
/** Run directories kept per table, at most (a few hundred bytes each, for small runs). */
const CACHED_RUN_DIRECTORIES = 4 * MAX_RUNS;

/** Read access to the term index for queries. */
export class TermIndexReader {
  /** Metadata blocks read during the current query (see `startQuery`); full ones also go to the shared cache. */
  private metadataBlocks = new Map<number, Uint32Array | undefined>();
  private fullBlocks: Map<number, Uint32Array> = new Map();
  /** The block read last: postings come in document order, so most lookups hit it. */
  private lastBlock = -1;
  private lastWords: Uint32Array | undefined;
  /** The references block read last (for the same reason), and the names read during the current query. */
  private lastRefsBlock = -1;
  private lastRefs: unknown;
  private names = new Map<string, string | undefined>();

  constructor(private readonly table: TermReadTable) {}

  statistics(): IndexStatistics {
    return { documents: readNumber(this.table, ['s', 'documents']), totalLength: readNumber(this.table, ['s', 'totalLength']) };
  }

  /** The highest document number assigned so far. */
  lastDocument(): number {
    return readNumber(this.table, ['s', 'nextDocument']);
  }

  /**
   * All postings of `term`, in document order, as blocks to decode with `decodePostings`. The
   * count is the term's document frequency as of this read.
   */
  postings(term: string): PostingList {
    // Each block is copied as it is read: lmdb may reuse the buffer behind a value on the next read.
    const blocks: Uint8Array[] = [];
    let open: Uint8Array | undefined;
    let count = 0;
    for (const { key, value } of this.table.getRange({ start: ['p', term, OPEN_BLOCK], end: ['p', term, LAST_KEY_NUMBER] })) {
      const bytes = toBytes(value);
      if (!bytes) continue;
      if (key[2] === OPEN_BLOCK) {
        // The open block is stored first but holds the last postings: it is read without its header fields.
        const header = blockHeader(bytes, true);
        const writer = new ByteWriter(bytes.length);
        writer.varint(header.count);
        writer.append(bytes.subarray(header.start));
        open = writer.take();
        count += header.count;
      } else {
        blocks.push(bytes.slice());
        count += postingCount(bytes);
      }
    }
    if (open && count > 0) blocks.push(open);
    // Then the runs not merged yet, oldest first: their documents come after every block's.
    const runs = liveRuns(this.table);
    const wanted = runs.length > 0 ? textEncoder.encode(term) : undefined;
    const directories = runs.length > 0 ? this.runDirectories() : undefined;
    for (let slot = 0; slot < runs.length && wanted && directories; slot += 2) {
      const block = this.runBlock(directories, runs[slot] as number, term, wanted);
      if (!block) continue;
      blocks.push(block);
      count += postingCount(block);
    }
    return { blocks, count };
  }

  /**
   * A run's block of `term` (whose UTF-8 bytes are `wanted`), if it holds one: in its first chunk
   * whose last term is not before it. A run's chunk keys never change (a merge only rewrites a
   * chunk's value or removes the chunk, whose terms are then all merged), so each run's list of
   * them is read once per index generation; a chunk gone means the run no longer holds the term.
   */
  private runBlock(directories: Map<number, string[]>, run: number, term: string, wanted: Uint8Array): Uint8Array | undefined {
    const lastTerms = this.runDirectory(directories, run);
    let low = 0;
    let high = lastTerms.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareTerms(lastTerms[middle] as string, term) < 0) low = middle + 1;
      else high = middle;
    }
    const lastTerm = lastTerms[low];
    if (lastTerm === undefined) return undefined;
    const chunk = toBytes(this.table.get([RUN_PREFIX, run, lastTerm]));
    return chunk && blockInChunk(chunk, wanted);
  }

  /** The run directories of this index generation (read by `runDirectory`). */
  private runDirectories(): Map<number, string[]> {
    const generation = this.table.get(GENERATION_KEY);
    let cache = runDirectoryCaches.get(this.table);
    if (!cache || cache.generation !== generation) {
      cache = { generation, runs: new Map() };
      runDirectoryCaches.set(this.table, cache);
    }
    return cache.runs;
  }

  private runDirectory(directories: Map<number, string[]>, run: number): string[] {
    let lastTerms = directories.get(run);
    if (!lastTerms) {
      lastTerms = [];
      for (const key of this.table.getKeys({ start: [RUN_PREFIX, run], end: [RUN_PREFIX, run + 1] })) {
        if (typeof key[2] === 'string') lastTerms.push(key[2]);
      }
      // Runs merged away are dropped from the cache now and then; a run is never written again.
      if (directories.size >= CACHED_RUN_DIRECTORIES) directories.clear();
      directories.set(run, lastTerms);
    }
    return lastTerms;
  }

  /** The runs not merged yet, and how many terms' postings they hold. */
  pendingRuns(): { runs: number; terms: number } {
    const runs = liveRuns(this.table);
    let terms = 0;
    for (let slot = 1; slot < runs.length; slot += 2) terms += runs[slot] as number;
    return { runs: runs.length / 2, terms };
  }

  /** Forgets the metadata blocks read so far: call at the start of each query (they may change between queries). */
  startQuery(): void {
    this.metadataBlocks.clear();
    this.lastBlock = -1;
    this.lastWords = undefined;
    this.lastRefsBlock = -1;
    this.lastRefs = undefined;
    this.names.clear();
    // Full blocks are immutable until the index starts over (its generation changes).
    const generation = this.table.get(GENERATION_KEY);
    let cache = metadataCaches.get(this.table);
    if (!cache || cache.generation !== generation || cache.blocks.size > CACHED_METADATA_BLOCKS) {
      cache = { generation, blocks: new Map() };
      metadataCaches.set(this.table, cache);
    }
    this.fullBlocks = cache.blocks;
  }

  /** The metadata words of a document's block. */
  private metadataBlock(document: number): Uint32Array | undefined {
    const block = Math.floor((document - 1) / DOCUMENTS_PER_BLOCK);
    if (block === this.lastBlock) return this.lastWords;
    let words = this.fullBlocks.get(block) ?? this.metadataBlocks.get(block);
    if (words === undefined && !this.metadataBlocks.has(block)) {
      const bytes = toBytes(this.table.get(['m', block]));
      // The value read is a fresh copy: viewed in place when it is aligned, copied only when not.
      words = bytes && bytes.byteOffset % 4 === 0 ? new Uint32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / 4)) : bytes && toWords(bytes);
      this.metadataBlocks.set(block, words);
      if (words?.length === DOCUMENTS_PER_BLOCK * METADATA_WORDS) this.fullBlocks.set(block, words);
    }
    this.lastBlock = block;
    this.lastWords = words;
    return words;
  }

  /** Copies a document's METADATA_WORDS words to `target` at `at` (zeros when it has none), for the scoring loop. */
  copyMetadata(document: number, target: Uint32Array, at: number): void {
    const words = this.metadataBlock(document);
    const base = ((document - 1) % DOCUMENTS_PER_BLOCK) * METADATA_WORDS;
    for (let i = 0; i < METADATA_WORDS; i += 1) target[at + i] = words?.[base + i] ?? 0;
  }

  /** What ranking knows of a document; undefined for a number never assigned. */
  documentMetadata(document: number): DocumentMetadata | undefined {
    if (document < 1) return undefined;
    this.startQuery();
    const words = this.metadataBlock(document);
    return words ? metadataOf(words, (document - 1) % DOCUMENTS_PER_BLOCK) : undefined;
  }

  /** The index version the index was built with; 1 for indexes from before versions were kept. */
  version(): number {
    const stored = this.table.get(VERSION_KEY);
    return typeof stored === 'number' ? stored : 1;
  }

  /** Whether this version can read the index (it is empty or of this version; else it waits for its rebuild). */
  isCurrent(): boolean {
    return indexIsCurrent(this.table);
  }

  /**
   * The terms of the indexed words at most one edit from `word` (which must be a fuzzy word).
   * Reads only the words with the same first letter and a length one apart: a first letter typed
   * wrong is not corrected, as in most spell checkers.
   */
  similarTerms(word: string): string[] {
    const terms = new Set<string>();
    const first = word.charAt(0);
    for (let length = word.length - FUZZY_MAX_EDITS; length <= word.length + FUZZY_MAX_EDITS; length += 1) {
      for (const { key } of this.table.getRange({ start: ['w', first, length], end: ['w', first, length + 1] })) {
        const candidate = key[3];
        if (typeof candidate !== 'string' || !withinOneEdit(word, candidate)) continue;
        // The word's term is what the analyzer makes of it, as when it was indexed.
        const term = wordTerm(candidate);
        if (term !== undefined) terms.add(term);
      }
    }
    return [...terms];
  }

  /** The entry behind a document number (read with the blocks of the current query: see `startQuery`). */
  documentRef(document: number): DocumentRef | undefined {
    if (document < 1) return undefined;
    const words = this.metadataBlock(document);
    const metadata = words && metadataOf(words, (document - 1) % DOCUMENTS_PER_BLOCK);
    const refsBlock = Math.floor((document - 1) / REFS_PER_BLOCK);
    if (refsBlock !== this.lastRefsBlock) {
      this.lastRefs = this.table.get(['d', refsBlock]);
      this.lastRefsBlock = refsBlock;
    }
    const stored = this.lastRefs;
    const packed: unknown = Array.isArray(stored) ? stored[(document - 1) % REFS_PER_BLOCK] : undefined;
    if (!metadata || !Array.isArray(packed) || typeof packed[0] !== 'number') return undefined;
    const head = this.nameOf(headDictionary(metadata.kind), packed[0]);
    const tail = packed.slice(1).map(unpackPart);
    if (head === undefined || tail.some((part) => part === undefined)) return undefined;
    return [metadata.kind, head, ...tail] as DocumentRef;
  }

  /** Every document's entry, in document order (for checks; a query never reads them all). */
  *documentRefs(): Generator<DocumentRef> {
    this.startQuery();
    const last = this.lastDocument();
    for (let document = 1; document <= last; document += 1) {
      const ref = this.documentRef(document);
      if (ref) yield ref;
    }
  }

  /** The name behind a compact id (read once per query). */
  nameOf(dictionary: Dictionary, id: number): string | undefined {
    const key = `${dictionary} ${id}`;
    if (this.names.has(key)) return this.names.get(key);
    const value = this.table.get(['i', dictionary, id]);
    const name = typeof value === 'string' ? value : undefined;
    this.names.set(key, name);
    return name;
  }

  /** The compact id of a name, if it was ever indexed. */
  idOf(dictionary: Dictionary, name: string): number | undefined {
    const value = this.table.get(['n', dictionary, name]);
    return typeof value === 'number' ? value : undefined;
  }
}

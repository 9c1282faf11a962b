/**
 * The prior-art term index, kept in the `terms` sub-database and updated inside the same flush
 * transaction that writes the entries, so entries and index never disagree.
 *
 * Key layout (arrays sort element by element):
 *   ['p', term, 0]            -> bytes   the term's open postings block (header: closed blocks, count, last document)
 *   ['p', term, n]            -> bytes   its closed blocks 1..n, each about BLOCK_BYTES of postings
 *   ['q', run, last term]     -> bytes   a chunk of a run: the postings one flush added, by term, until merged
 *   ['m', block]              -> bytes   what ranking and filtering need of DOCUMENTS_PER_BLOCK documents, fixed width
 *   ['d', block]              -> array   which entry each of REFS_PER_BLOCK documents stands for
 *   ['n', dictionary, name]   -> number  compact ids for project paths and agent names
 *   ['i', dictionary, id]     -> string  and back
 *   ['s', statistic]          -> number  documents, total length, next ids, the index version
 *   ['w', first, length, word] -> null   a word entries used (for typo correction; its term is derived)
 *
 * A posting is a document number (as the gap from the one before, in the same block), a term
 * frequency and the document's length (what BM25 needs for every posting), as variable-length
 * integers: three or four bytes. What filtering and ties need (kind, grade, project, agent, time)
 * is stored once per document in the 'm' blocks, and read only for the documents that score high
 * enough to be kept; the document frequency is the sum of the blocks' counts. So a query reads
 * the postings of its own terms and the metadata of its best candidates, then fetches just the
 * few entries it returns.
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
import type { Table, TermIndexKey, WritableTable, WrittenDocument } from '../store/tables.js';
import { isoMillis, isoText } from '../iso-time.js';
import type { Grade } from '../types.js';
import { searchableText } from './documents.js';
import type { EntryKind } from './documents.js';
import { FUZZY_MAX_EDITS, isFuzzyWord, withinOneEdit } from './fuzzy.js';
import { analyze, wordTerm } from './tokenizer.js';
import type { TermSink } from './tokenizer.js';

/**
 * The version of the index: of the analyzer that gives an entry's terms (tokenizer.ts) and of the
 * layout above. An index of another version is rebuilt once (see reindex.ts); until then it is not
 * read and not written to.
 * 1: lower-cased words of 3+ letters. 2: NFKC, identifier splitting, Porter2 stems, two-letter words.
 * 3: the same terms; packed postings, per-document metadata and compact document references.
 * 4: the same, with runs (an index of version 3 is one without runs: it is read and written as is,
 *    and stamped 4 by its first flush, so that a tracker of version 3 no longer writes to it).
 */
export const TERM_INDEX_VERSION = 4;
/** The earlier version this one reads and writes as it is (see above). */
const COMPATIBLE_VERSION = 3;
const VERSION_KEY: TermIndexKey = ['s', 'version'];
/** The live runs, oldest first, as flat pairs: run number, terms it still holds. */
const RUNS_KEY: TermIndexKey = ['s', 'runs'];
/** The term the merge sweep goes on from (absent: from the first). */
const SWEEP_KEY: TermIndexKey = ['s', 'sweep'];
const RUN_PREFIX = 'q';
/** Each flush merges this share of the terms its runs hold (1/MERGE_SHARE). */
export const MERGE_SHARE = 8;
/** Terms a slice merges at least: the last few runs go in one step, not in a long tail of small ones. */
export const MIN_MERGE_TERMS = 256;
/** Runs left waiting after which a flush merges a slice itself (see indexWrittenDocuments). */
export const MAX_RUNS = 32;
/** Bytes after which a run chunk is put: one page with lmdb's overflow header (4,096 - 16). */
export const CHUNK_BYTES = 4_080;
/** UTF-16 code units where surrogates (characters above U+FFFF) start, and where the units after them start. */
const SURROGATE_START = 0xd800;
const PRIVATE_USE_START = 0xe000;
const SURROGATE_SPAN = PRIVATE_USE_START - SURROGATE_START;
const UNITS_ABOVE_SURROGATES = 0x10000 - PRIVATE_USE_START;
const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();
/** Set anew whenever the index starts from empty (a new file, a rebuild): full metadata blocks never change within one. */
const GENERATION_KEY: TermIndexKey = ['s', 'generation'];
/** Full metadata blocks kept in memory per table, at most (4 MiB each 1,000 blocks: over 250,000 documents). */
const CACHED_METADATA_BLOCKS = 4_096;

/** A key of the `terms` sub-database. */
export type { TermIndexKey };

/** Which entry a document number stands for: its kind and its key in that kind's table. */
export type DocumentRef =
  | ['retrospective', string, string]
  | ['activity', string, string, string]
  | ['commit', string, string];

/** Compact-id dictionaries. */
export type Dictionary = 'project' | 'agent';

/** Posting bytes after which a term's open block is closed (values this size stay on the B-tree's pages). */
export const BLOCK_BYTES = 1_024;
/** Documents per metadata block: METADATA_WORDS × 4 bytes each, so a block fills one 4 KiB page. */
export const DOCUMENTS_PER_BLOCK = 254;
/** Documents per reference block: small, because a query reads only the blocks of the entries it returns. */
export const REFS_PER_BLOCK = 32;
/** 32-bit words of metadata per document: seconds, project id, agent id, length + kind and grade. */
export const METADATA_WORDS = 4;
const METADATA_SECONDS = 0;
const METADATA_PROJECT = 1;
const METADATA_AGENT = 2;
const METADATA_SHAPE = 3;
const MAX_UINT16 = 0xffff;
const SHAPE_MULTIPLIER = 0x10000;
/** Grade codes: 0 for ungraded entries, else grade + GRADE_OFFSET (always positive, under GRADE_CODES). */
const GRADE_OFFSET = 2;
const GRADE_CODES = 8;
const KIND_CODES: Readonly<Record<EntryKind, number>> = { retrospective: 0, activity: 1, commit: 2 };
const KINDS: readonly EntryKind[] = ['retrospective', 'activity', 'commit'];
const LAST_KEY_NUMBER = Number.MAX_SAFE_INTEGER;
const OPEN_BLOCK = 0;
/** A full commit hash, stored as 20 bytes instead of 40 characters. */
const FULL_HASH = /^[0-9a-f]{40}$/;
const FULL_HASH_LENGTH = 40;
const VARINT_SHIFT = 128;
/** A whole number below 2^53 takes at most 8 bytes of 7 bits. */
const MAX_VARINT_BYTES = 8;

/** What ranking and filtering know of one document. */
export interface DocumentMetadata {
  documentLength: number;
  kind: EntryKind;
  /** The user's grade of a retrospective; undefined for activities and commits. */
  grade: Grade | undefined;
  projectId: number;
  agentId: number;
  /** Seconds since the epoch, for recency. */
  seconds: number;
}

/** Document count and total length, for BM25's idf and average document length. */
export interface IndexStatistics {
  documents: number;
  totalLength: number;
}

/** The blocks of one term's postings, in document order, and how many postings they hold. */
export interface PostingList {
  blocks: Uint8Array[];
  count: number;
}

/** The term index as a flush or a rebuild writes it; readers get `TermReadTable`. */
type TermTable = WritableTable<unknown, TermIndexKey>;
type TermReadTable = Table<unknown, TermIndexKey>;

function readNumber(table: TermReadTable, key: TermIndexKey): number {
  const value = table.get(key);
  return typeof value === 'number' ? value : 0;
}

function toBytes(value: unknown): Uint8Array | undefined {
  return value instanceof Uint8Array ? value : undefined;
}

/** A growable byte buffer of variable-length integers. */
class ByteWriter {
  bytes: Uint8Array;
  length = 0;

  constructor(capacity = 64) {
    this.bytes = new Uint8Array(capacity);
  }

  private reserve(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + more));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  varint(value: number): void {
    this.reserve(MAX_VARINT_BYTES);
    let rest = value;
    while (rest >= VARINT_SHIFT) {
      this.bytes[this.length++] = (rest % VARINT_SHIFT) + VARINT_SHIFT;
      rest = Math.floor(rest / VARINT_SHIFT);
    }
    this.bytes[this.length++] = rest;
  }

  /** Appends a string's UTF-8 bytes. */
  text(value: string): void {
    this.reserve(value.length * 3);
    this.length += textEncoder.encodeInto(value, this.bytes.subarray(this.length)).written;
  }

  append(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
  }

  take(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

/** Reads variable-length integers from `bytes`; reading past the end gives 0. */
class ByteReader {
  at = 0;
  constructor(readonly bytes: Uint8Array) {}

  varint(): number {
    let value = 0;
    let scale = 1;
    while (this.at < this.bytes.length) {
      const byte = this.bytes[this.at++] as number;
      value += (byte % VARINT_SHIFT) * scale;
      if (byte < VARINT_SHIFT) return value;
      scale *= VARINT_SHIFT;
    }
    return value;
  }
}

/** A block's posting count (its first number) and where its postings start. */
function blockHeader(bytes: Uint8Array, open: boolean): { count: number; lastDocument: number; closed: number; start: number } {
  const reader = new ByteReader(bytes);
  const closed = open ? reader.varint() : 0;
  const count = reader.varint();
  const lastDocument = open ? reader.varint() : 0;
  return { count, lastDocument, closed, start: reader.at };
}

/**
 * Decodes the postings of one block (from `TermIndexReader.postings`) into `documents`,
 * `frequencies` and `lengths` (each at least as long as the block has bytes); returns how many it
 * decoded.
 */
export function decodePostings(block: Uint8Array, documents: Uint32Array, frequencies: Uint32Array, lengths: Uint32Array): number {
  const header = blockHeader(block, false);
  const count = Math.min(header.count, documents.length, frequencies.length, lengths.length);
  let at = header.start;
  let document = 0;
  // Variable-length integers read inline: this loop runs once per posting of every query term.
  for (let i = 0; i < count; i += 1) {
    let value = 0;
    let scale = 1;
    let byte = VARINT_SHIFT;
    while (byte >= VARINT_SHIFT && at < block.length) {
      byte = block[at++] as number;
      value += (byte & 0x7f) * scale;
      scale *= VARINT_SHIFT;
    }
    document += value;
    documents[i] = document;
    value = 0;
    scale = 1;
    byte = VARINT_SHIFT;
    while (byte >= VARINT_SHIFT && at < block.length) {
      byte = block[at++] as number;
      value += (byte & 0x7f) * scale;
      scale *= VARINT_SHIFT;
    }
    frequencies[i] = value;
    value = 0;
    scale = 1;
    byte = VARINT_SHIFT;
    while (byte >= VARINT_SHIFT && at < block.length) {
      byte = block[at++] as number;
      value += (byte & 0x7f) * scale;
      scale *= VARINT_SHIFT;
    }
    lengths[i] = value;
  }
  return count;
}

/** The posting count of a block read by `TermIndexReader.postings`. */
function postingCount(block: Uint8Array): number {
  return blockHeader(block, false).count;
}

function shapeOf(documentLength: number, kind: EntryKind, grade: Grade | undefined): number {
  const gradeCode = grade === undefined ? 0 : grade + GRADE_OFFSET;
  return (KIND_CODES[kind] * GRADE_CODES + gradeCode) * SHAPE_MULTIPLIER + Math.min(documentLength, MAX_UINT16);
}

/** The document length in a metadata shape word. */
function documentLengthOfShape(shape: number): number {
  return shape % SHAPE_MULTIPLIER;
}

/** The user's grade in a metadata shape word: undefined for ungraded entries. */
export function gradeOfShape(shape: number): Grade | undefined {
  const gradeCode = Math.floor(shape / SHAPE_MULTIPLIER) % GRADE_CODES;
  return gradeCode === 0 ? undefined : ((gradeCode - GRADE_OFFSET) as Grade);
}

/** The entry kind in a metadata shape word. */
export function kindOfShape(shape: number): EntryKind {
  return KINDS[Math.floor(shape / SHAPE_MULTIPLIER / GRADE_CODES)] ?? 'activity';
}

function metadataOf(words: Uint32Array, at: number): DocumentMetadata | undefined {
  const base = at * METADATA_WORDS;
  if (base + METADATA_WORDS > words.length) return undefined;
  const shape = words[base + METADATA_SHAPE] as number;
  return {
    documentLength: documentLengthOfShape(shape),
    kind: kindOfShape(shape),
    grade: gradeOfShape(shape),
    projectId: words[base + METADATA_PROJECT] as number,
    agentId: words[base + METADATA_AGENT] as number,
    seconds: words[base + METADATA_SECONDS] as number,
  };
}

/** Copies stored bytes into an aligned word array (stored buffers may start at any offset). */
function toWords(bytes: Uint8Array): Uint32Array {
  const words = new Uint32Array(Math.floor(bytes.byteLength / 4));
  new Uint8Array(words.buffer).set(bytes.subarray(0, words.length * 4));
  return words;
}

/** The id of `name` in `dictionary`, assigned on first use (inside the caller's write transaction). */
function assignId(table: TermTable, dictionary: Dictionary, name: string): number {
  const known = table.get(['n', dictionary, name]);
  if (typeof known === 'number') return known;
  const id = readNumber(table, ['s', `next:${dictionary}`]) + 1;
  table.putSync(['s', `next:${dictionary}`], id);
  table.putSync(['n', dictionary, name], id);
  table.putSync(['i', dictionary, id], name);
  return id;
}

/** A document's reference as stored: the compact id of its key's first part, then the rest packed (see DocumentRef). */
function packedRef(document: WrittenDocument, idOf: (dictionary: Dictionary, name: string) => number): unknown[] {
  const key = document.key;
  const packed: unknown[] = [idOf(headDictionary(document.kind), key[0])];
  for (let at = 1; at < key.length; at += 1) packed.push(packPart(key[at] as string));
  return packed;
}

/** The dictionary the first part of an entry's key names: agents for journal entries, projects for commits. */
function headDictionary(kind: EntryKind): Dictionary {
  return kind === 'commit' ? 'project' : 'agent';
}

/**
 * A key part as stored: a full commit hash as its 20 bytes, an ISO time (a journal entry's) as its
 * milliseconds, anything else as it is.
 */
function packPart(part: string): string | Uint8Array | number {
  if (part.length === FULL_HASH_LENGTH && FULL_HASH.test(part)) return Uint8Array.from(Buffer.from(part, 'hex'));
  return isoMillis(part) ?? part;
}

function unpackPart(part: unknown): string | undefined {
  if (typeof part === 'string') return part;
  if (typeof part === 'number') return isoText(part);
  return part instanceof Uint8Array ? Buffer.from(part).toString('hex') : undefined;
}

function gradeOfDocument(document: WrittenDocument): Grade | undefined {
  // The user's grade decides: it is the outside judgement of the work (the agent grades itself too).
  return document.kind === 'retrospective' ? document.value.user_grade : undefined;
}

function secondsOf(timestamp: string): number {
  const millis = Date.parse(timestamp);
  return Number.isFinite(millis) && millis > 0 ? Math.floor(millis / 1000) : 0;
}

/** Whether the index was built by this version (an empty index is: it is built from its first document on). */
function indexIsCurrent(table: TermReadTable): boolean {
  if (readNumber(table, ['s', 'nextDocument']) === 0) return true;
  const version = table.get(VERSION_KEY);
  return version === TERM_INDEX_VERSION || version === COMPATIBLE_VERSION;
}

/** Where a flush's postings go: a run merged later (a live flush), or each term's blocks at once (a rebuild). */
export type PostingsTarget = 'run' | 'blocks';

/**
 * Indexes documents the store just wrote (each is offered once: the store indexes only records it
 * added, and a rebuild starts from an empty index). Runs inside that write's transaction: if
 * anything throws, neither the entries nor their postings are written. An index of another
 * version is left alone: the rebuild (reindex.ts) indexes every entry, these included.
 * A rebuild, one transaction that writes every page anew, appends straight to the blocks.
 */
export function indexWrittenDocuments(table: TermTable, documents: readonly WrittenDocument[], target: PostingsTarget = 'run'): void {
  if (!indexIsCurrent(table)) return;
  const firstDocument = readNumber(table, ['s', 'nextDocument']) + 1;
  // An empty index is built by this version from its first document on.
  if (firstDocument === 1) table.putSync(GENERATION_KEY, `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`);
  if (firstDocument === 1 || (documents.length > 0 && table.get(VERSION_KEY) !== TERM_INDEX_VERSION)) table.putSync(VERSION_KEY, TERM_INDEX_VERSION);
  if (documents.length === 0) return;
  /** Per term, the new postings as flat triples: document, term frequency (counted as the terms come), length (set at the document's end). */
  const pending = new Map<string, number[]>();
  let documentCount = readNumber(table, ['s', 'documents']);
  let totalLength = readNumber(table, ['s', 'totalLength']);
  /** Words of the flush that typo correction may lead to. */
  const words = new Set<string>();
  // Most documents of one flush share their project and agent: look each name up once.
  const ids: Record<Dictionary, Map<string, number>> = { project: new Map(), agent: new Map() };
  const idOf = (dictionary: Dictionary, name: string): number => {
    let id = ids[dictionary].get(name);
    if (id === undefined) ids[dictionary].set(name, (id = assignId(table, dictionary, name)));
    return id;
  };
  const metadata = new Uint32Array(documents.length * METADATA_WORDS);
  const refs: unknown[][] = [];

  // One sink for every document (no closure each): it counts the current document's terms and
  // notes the postings it opens, whose length is known only at the document's end.
  let number = 0;
  let length = 0;
  const opened: number[][] = [];
  const sink: TermSink = (term, word) => {
    const postings = pending.get(term);
    if (postings === undefined) {
      const created = [number, 1, 0];
      pending.set(term, created);
      opened.push(created);
    } else if (postings[postings.length - 3] === number) (postings[postings.length - 2] as number) += 1;
    else {
      postings.push(number, 1, 0);
      opened.push(postings);
    }
    // A whole identifier is another spelling of its words, not more text: it is not counted in
    // the document's length, so splitting identifiers does not make a document look longer.
    if (word === undefined) return;
    length += 1;
    if (isFuzzyWord(word)) words.add(word);
  };
  for (let offset = 0; offset < documents.length; offset += 1) {
    const document = documents[offset] as WrittenDocument;
    number = firstDocument + offset;
    length = 0;
    opened.length = 0;
    refs.push(packedRef(document, idOf));
    analyze(searchableText(document), sink);
    documentCount += 1;
    totalLength += length;
    const stored = Math.min(length, MAX_UINT16);
    for (const postings of opened) postings[postings.length - 1] = stored;
    const base = offset * METADATA_WORDS;
    metadata[base + METADATA_SECONDS] = secondsOf(document.value.timestamp);
    metadata[base + METADATA_PROJECT] = idOf('project', document.value.project);
    metadata[base + METADATA_AGENT] = idOf('agent', document.value.agent);
    metadata[base + METADATA_SHAPE] = shapeOf(length, document.kind, gradeOfDocument(document));
  }
  appendMetadata(table, firstDocument, metadata);
  appendRefs(table, firstDocument, refs);
  if (target === 'blocks') for (const [term, postings] of pending) appendPostings(table, term, postings);
  else {
    const runs = writeRun(table, pending);
    // Runs are merged after the flush (`mergeTermRuns`). Should nothing do it, a flush merges a
    // slice itself once more than MAX_RUNS wait: a sweep of about MERGE_SHARE slices empties every
    // run it started with, so a query reads at most about MAX_RUNS + MERGE_SHARE of them.
    if (runs.length / 2 > MAX_RUNS) mergeSlice(table, runs);
    else table.putSync(RUNS_KEY, runs);
  }
  for (const word of words) table.putSync(wordKey(word), null, { noOverwrite: true });
  table.putSync(['s', 'nextDocument'], firstDocument + documents.length - 1);
  table.putSync(['s', 'documents'], documentCount);
  table.putSync(['s', 'totalLength'], totalLength);
}

/** The live runs, oldest first, as flat pairs: run number, terms it still holds. */
function liveRuns(table: TermReadTable): number[] {
  const stored = table.get(RUNS_KEY);
  return Array.isArray(stored) ? stored.filter((value): value is number => typeof value === 'number') : [];
}

/**
 * Orders terms as lmdb orders their keys (UTF-8 bytes, so code points): a run's chunks are found
 * by their last term. JavaScript's `<` compares UTF-16 units, which differs for characters above
 * U+FFFF against those from U+E000.
 */
export function compareTerms(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= SURROGATE_START && y >= SURROGATE_START) {
      x = x >= PRIVATE_USE_START ? x - SURROGATE_SPAN : x + UNITS_ABOVE_SURROGATES;
      y = y >= PRIVATE_USE_START ? y - SURROGATE_SPAN : y + UNITS_ABOVE_SURROGATES;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** One term's postings in a run chunk: its UTF-8 bytes and its block (as decodePostings reads it). */
interface ChunkEntry {
  term: Uint8Array;
  block: Uint8Array;
}

/** The entries of a run chunk, in term order (views into `chunk`). */
function chunkEntries(chunk: Uint8Array): ChunkEntry[] {
  const entries: ChunkEntry[] = [];
  const reader = new ByteReader(chunk);
  while (reader.at < chunk.length) {
    const termLength = reader.varint();
    const term = chunk.subarray(reader.at, reader.at + termLength);
    reader.at += termLength;
    const blockLength = reader.varint();
    entries.push({ term, block: chunk.subarray(reader.at, reader.at + blockLength) });
    reader.at += blockLength;
  }
  return entries;
}

/** The block of the term whose UTF-8 bytes are `wanted` in a run chunk, if it holds it (read in place: a query looks up every run). */
function blockInChunk(chunk: Uint8Array, wanted: Uint8Array): Uint8Array | undefined {
  const reader = new ByteReader(chunk);
  while (reader.at < chunk.length) {
    const termLength = reader.varint();
    const termStart = reader.at;
    reader.at += termLength;
    const blockLength = reader.varint();
    const blockStart = reader.at;
    reader.at += blockLength;
    if (termLength !== wanted.length) continue;
    let same = true;
    for (let i = 0; i < termLength && same; i += 1) same = chunk[termStart + i] === wanted[i];
    if (same) return chunk.slice(blockStart, blockStart + blockLength);
  }
  return undefined;
}

/** Appends one entry to a chunk: the term's length and UTF-8 bytes, the block's length and bytes. */
function writeEntry(out: ByteWriter, term: Uint8Array, block: Uint8Array): void {
  out.varint(term.length);
  out.append(term);
  out.varint(block.length);
  out.append(block);
}

/** A chunk of the given entries, in their order. */
function packEntries(entries: readonly ChunkEntry[]): Uint8Array {
  const chunk = new ByteWriter(CHUNK_BYTES);
  for (const entry of entries) writeEntry(chunk, entry.term, entry.block);
  return chunk.take();
}

/** Writes run chunks: entries appended in term order, put under the last term whenever the next would pass CHUNK_BYTES. */
class ChunkWriter {
  private readonly out = new ByteWriter(CHUNK_BYTES * 2);
  private lastTerm = '';
  private readonly termBytes = new ByteWriter(64);

  constructor(
    private readonly table: TermTable,
    private readonly run: number,
  ) {}

  add(term: string, block: Uint8Array): void {
    this.termBytes.length = 0;
    this.termBytes.text(term);
    const termBytes = this.termBytes.bytes.subarray(0, this.termBytes.length);
    if (this.out.length > 0 && this.out.length + termBytes.length + block.length + 2 * MAX_VARINT_BYTES > CHUNK_BYTES) this.finish();
    writeEntry(this.out, termBytes, block);
    this.lastTerm = term;
  }

  finish(): void {
    if (this.out.length === 0) return;
    this.table.putSync([RUN_PREFIX, this.run, this.lastTerm], this.out.bytes.subarray(0, this.out.length));
    this.out.length = 0;
  }
}

/**
 * Writes a flush's postings (flat triples per term) as a new run: its terms in order, packed into
 * chunks of about CHUNK_BYTES, each under its last term and after every earlier run's. Returns the
 * live runs, this one last.
 */
function writeRun(table: TermTable, pending: ReadonlyMap<string, readonly number[]>): number[] {
  const runs = liveRuns(table);
  if (pending.size === 0) return runs;
  const run = readNumber(table, ['s', 'nextRun']) + 1;
  table.putSync(['s', 'nextRun'], run);
  const terms = [...pending.keys()].sort(compareTerms);
  const chunks = new ChunkWriter(table, run);
  for (const term of terms) {
    const postings = pending.get(term) as readonly number[];
    postingBody.length = 0;
    let last = 0;
    for (let at = 0; at < postings.length; at += 3) {
      const document = postings[at] as number;
      writePosting(document - last, postings[at + 1] as number, postings[at + 2] as number);
      last = document;
    }
    blockOut.length = 0;
    blockOut.varint(postings.length / 3);
    blockOut.append(postingBody.bytes.subarray(0, postingBody.length));
    chunks.add(term, blockOut.bytes.subarray(0, blockOut.length));
  }
  chunks.finish();
  runs.push(run, terms.length);
  return runs;
}

/**
 * One step of the merge a flush leaves (see the layout above), inside the caller's write
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
function mergeSlice(table: TermTable, runs: number[]): void {
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

/** Reused by every merge: one run's postings of a term, decoded. */
let decodedDocuments = new Uint32Array(0);
let decodedFrequencies = new Uint32Array(0);
let decodedLengths = new Uint32Array(0);

/** Decodes a run's block and appends its postings to `target` as flat triples. */
function appendDecoded(block: Uint8Array, target: number[]): void {
  if (decodedDocuments.length < block.length) {
    decodedDocuments = new Uint32Array(block.length);
    decodedFrequencies = new Uint32Array(block.length);
    decodedLengths = new Uint32Array(block.length);
  }
  const count = decodePostings(block, decodedDocuments, decodedFrequencies, decodedLengths);
  for (let i = 0; i < count; i += 1) target.push(decodedDocuments[i] as number, decodedFrequencies[i] as number, decodedLengths[i] as number);
}

/** Writes the metadata of documents `first`.. into their blocks, extending the last block stored. */
function appendMetadata(table: TermTable, first: number, metadata: Uint32Array): void {
  const count = metadata.length / METADATA_WORDS;
  let done = 0;
  while (done < count) {
    const document = first + done;
    const block = Math.floor((document - 1) / DOCUMENTS_PER_BLOCK);
    const slot = (document - 1) % DOCUMENTS_PER_BLOCK;
    const take = Math.min(DOCUMENTS_PER_BLOCK - slot, count - done);
    const words = new Uint32Array((slot + take) * METADATA_WORDS);
    const stored = slot === 0 ? undefined : toBytes(table.get(['m', block]));
    if (stored) words.set(toWords(stored).subarray(0, slot * METADATA_WORDS));
    words.set(metadata.subarray(done * METADATA_WORDS, (done + take) * METADATA_WORDS), slot * METADATA_WORDS);
    table.putSync(['m', block], new Uint8Array(words.buffer));
    done += take;
  }
}

/** Writes the references of documents `first`.. into their blocks, extending the last block stored. */
function appendRefs(table: TermTable, first: number, refs: readonly unknown[][]): void {
  let done = 0;
  while (done < refs.length) {
    const document = first + done;
    const block = Math.floor((document - 1) / REFS_PER_BLOCK);
    const slot = (document - 1) % REFS_PER_BLOCK;
    const take = Math.min(REFS_PER_BLOCK - slot, refs.length - done);
    const stored = slot === 0 ? [] : table.get(['d', block]);
    const kept = Array.isArray(stored) ? stored.slice(0, slot) : [];
    table.putSync(['d', block], [...kept, ...refs.slice(done, done + take)]);
    done += take;
  }
}

/** The word-list key of a word: by first letter and length, so correction reads only near words. */
function wordKey(word: string): TermIndexKey {
  return ['w', word.charAt(0), word.length, word];
}

/** Buffers reused by every append (a flush appends to thousands of terms). */
const postingBody = new ByteWriter(BLOCK_BYTES * 2);
const blockOut = new ByteWriter(BLOCK_BYTES * 2);

/** Appends one posting to `postingBody`: the gap from the document before, the term frequency (capped), the document's length. */
function writePosting(gap: number, frequency: number, length: number): void {
  postingBody.varint(gap);
  postingBody.varint(Math.min(frequency, MAX_UINT16));
  postingBody.varint(length);
}

/** Writes a block: its header numbers, then the postings in `postingBody` (the value is copied as it is put). */
function putBlock(table: TermTable, key: TermIndexKey, header: readonly number[]): void {
  blockOut.length = 0;
  for (const number of header) blockOut.varint(number);
  blockOut.append(postingBody.bytes.subarray(0, postingBody.length));
  table.putSync(key, blockOut.bytes.subarray(0, blockOut.length));
}

/**
 * Appends postings (flat triples of document, term frequency and document length, in document
 * order, after every posting stored) to a term's open block, closing it into a numbered block
 * whenever it passes BLOCK_BYTES.
 */
function appendPostings(table: TermTable, term: string, postings: readonly number[]): void {
  const openKey: TermIndexKey = ['p', term, OPEN_BLOCK];
  const stored = toBytes(table.get(openKey));
  const header = stored ? blockHeader(stored, true) : { closed: 0, count: 0, lastDocument: 0, start: 0 };
  let { closed, count, lastDocument } = header;
  postingBody.length = 0;
  if (stored) postingBody.append(stored.subarray(header.start));
  for (let at = 0; at < postings.length; at += 3) {
    const document = postings[at] as number;
    writePosting(document - lastDocument, postings[at + 1] as number, postings[at + 2] as number);
    lastDocument = document;
    count += 1;
    if (postingBody.length >= BLOCK_BYTES) {
      closed += 1;
      putBlock(table, ['p', term, closed], [count]);
      // The next block starts from document 0 again, so each block decodes on its own.
      postingBody.length = 0;
      count = 0;
      lastDocument = 0;
    }
  }
  putBlock(table, openKey, [closed, count, lastDocument]);
}

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

  /** Whether any document was ever indexed. */
  isEmpty(): boolean {
    return readNumber(this.table, ['s', 'nextDocument']) === 0;
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
    const stored = this.table.get(['d', Math.floor((document - 1) / REFS_PER_BLOCK)]);
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

  /** The name behind a compact id. */
  nameOf(dictionary: Dictionary, id: number): string | undefined {
    const value = this.table.get(['i', dictionary, id]);
    return typeof value === 'string' ? value : undefined;
  }

  /** The compact id of a name, if it was ever indexed. */
  idOf(dictionary: Dictionary, name: string): number | undefined {
    const value = this.table.get(['n', dictionary, name]);
    return typeof value === 'number' ? value : undefined;
  }
}

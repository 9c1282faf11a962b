/**
 * The prior-art term index, kept in the `terms` sub-database and updated inside the same flush
 * transaction that writes the entries, so entries and index never disagree.
 *
 * Key layout (arrays sort element by element):
 *   ['f', term]              -> number      document frequency of `term`
 *   ['p', term, block]       -> Uint8Array  postings of `term`, POSTINGS_PER_BLOCK per block, by document number
 *   ['d', docNumber]         -> DocumentRef which entry a document number stands for
 *   ['r', kind, ...entryKey] -> number      the document number of an entry (indexing is idempotent)
 *   ['n', dictionary, name]  -> number      compact ids for project paths and agent names
 *   ['i', dictionary, id]    -> string      and back
 *   ['s', statistic]         -> number      documents, total length, next ids, the analyzer version
 *   ['w', first, length, word] -> string    a word entries used and its term (for typo correction)
 *
 * A posting carries what ranking and filtering need (term frequency, document length, kind, grade,
 * project, agent, time), so a query reads only the postings of its own terms and then fetches just
 * the few entries it returns. Postings live in fixed-size binary blocks: a term found in 20,000
 * entries is ~160 reads of packed integers, not 20,000 decoded records.
 */
import type { Table, WrittenDocument } from '../store/store.js';
import type { Grade } from '../types.js';
import { searchableText } from './documents.js';
import type { EntryKind } from './documents.js';
import { FUZZY_MAX_EDITS, isFuzzyWord, withinOneEdit } from './fuzzy.js';
import { analyze, termFrequencies } from './tokenizer.js';

/**
 * The version of the analyzer the index was built with. Raise it whenever the terms an entry gives
 * change (tokenizer.ts): an index of another version is rebuilt once (see reindex.ts).
 * 1: lower-cased words of 3+ letters. 2: NFKC, identifier splitting, Porter2 stems, two-letter words.
 */
export const TERM_INDEX_VERSION = 2;
const VERSION_KEY: TermIndexKey = ['s', 'version'];

/** A key of the `terms` sub-database. */
export type TermIndexKey = (string | number)[];

/** Which entry a document number stands for: its kind and its key in that kind's table. */
export type DocumentRef =
  | ['retrospective', string, string]
  | ['activity', string, string, string]
  | ['commit', string, string];

/** Compact-id dictionaries. */
export type Dictionary = 'project' | 'agent';

/** 32-bit words per posting; see `Posting`. */
export const POSTING_WORDS = 6;
/** Postings per stored block: large enough that reads are few, small enough that appends stay cheap. */
export const POSTINGS_PER_BLOCK = 128;
const MAX_UINT16 = 0xffff;
const WORD_MULTIPLIER = 0x10000;
/** Grade codes in a posting: 0 for ungraded entries, else grade + GRADE_OFFSET (always positive). */
const GRADE_OFFSET = 2;
const KIND_CODES: Readonly<Record<EntryKind, number>> = { retrospective: 0, activity: 1, commit: 2 };
const KINDS: readonly EntryKind[] = ['retrospective', 'activity', 'commit'];
const LAST_KEY_NUMBER = Number.MAX_SAFE_INTEGER;

/** Word offsets inside a posting. */
export const POSTING_DOCUMENT = 0;
export const POSTING_COUNTS = 1;
export const POSTING_KIND_GRADE = 2;
export const POSTING_PROJECT = 3;
export const POSTING_AGENT = 4;
export const POSTING_SECONDS = 5;

/** One decoded posting. */
export interface Posting {
  document: number;
  termFrequency: number;
  documentLength: number;
  kind: EntryKind;
  /** The user's grade of a retrospective; undefined for activities and commits. */
  grade: Grade | undefined;
  projectId: number;
  agentId: number;
  /** Seconds since the epoch, for recency. */
  seconds: number;
}

/** The term frequency in a posting's counts word. */
export function termFrequencyOf(counts: number): number {
  return Math.floor(counts / WORD_MULTIPLIER);
}

/** The document length in a posting's counts word. */
export function documentLengthOf(counts: number): number {
  return counts % WORD_MULTIPLIER;
}

/** The grade in a posting's kind/grade word: undefined for ungraded entries. */
export function gradeOf(kindGrade: number): Grade | undefined {
  const code = kindGrade % WORD_MULTIPLIER;
  return code === 0 ? undefined : ((code - GRADE_OFFSET) as Grade);
}

/** The entry kind in a posting's kind/grade word. */
export function kindOf(kindGrade: number): EntryKind {
  return KINDS[Math.floor(kindGrade / WORD_MULTIPLIER)] ?? 'activity';
}

/** Document count and total length, for BM25's idf and average document length. */
export interface IndexStatistics {
  documents: number;
  totalLength: number;
}

type TermTable = Table<unknown, TermIndexKey>;

function readNumber(table: TermTable, key: TermIndexKey): number {
  const value = table.get(key);
  return typeof value === 'number' ? value : 0;
}

function toBytes(value: unknown): Uint8Array | undefined {
  return value instanceof Uint8Array ? value : undefined;
}

/** Copies stored bytes into an aligned word array (stored buffers may start at any offset). */
function toWords(bytes: Uint8Array): Uint32Array {
  const words = new Uint32Array(Math.floor(bytes.byteLength / 4));
  new Uint8Array(words.buffer).set(bytes.subarray(0, words.length * 4));
  return words;
}

function encodePosting(words: Uint32Array, at: number, posting: Posting): void {
  const base = at * POSTING_WORDS;
  words[base] = posting.document;
  words[base + 1] = Math.min(posting.termFrequency, MAX_UINT16) * WORD_MULTIPLIER + Math.min(posting.documentLength, MAX_UINT16);
  words[base + 2] = KIND_CODES[posting.kind] * WORD_MULTIPLIER + (posting.grade === undefined ? 0 : posting.grade + GRADE_OFFSET);
  words[base + 3] = posting.projectId;
  words[base + 4] = posting.agentId;
  words[base + 5] = posting.seconds;
}

/** Decodes posting `at` of a block read by `TermIndexReader.postings`. */
export function decodePosting(words: Uint32Array, at: number): Posting {
  const base = at * POSTING_WORDS;
  const counts = words[base + POSTING_COUNTS] ?? 0;
  const kindGrade = words[base + POSTING_KIND_GRADE] ?? 0;
  return {
    document: words[base + POSTING_DOCUMENT] ?? 0,
    termFrequency: termFrequencyOf(counts),
    documentLength: documentLengthOf(counts),
    kind: kindOf(kindGrade),
    grade: gradeOf(kindGrade),
    projectId: words[base + POSTING_PROJECT] ?? 0,
    agentId: words[base + POSTING_AGENT] ?? 0,
    seconds: words[base + POSTING_SECONDS] ?? 0,
  };
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

function refOf(document: WrittenDocument): DocumentRef {
  switch (document.kind) {
    case 'retrospective':
      return ['retrospective', ...document.key];
    case 'activity':
      return ['activity', ...document.key];
    case 'commit':
      return ['commit', ...document.key];
  }
}

function gradeOfDocument(document: WrittenDocument): Grade | undefined {
  // The user's grade decides: it is the outside judgement of the work (the agent grades itself too).
  return document.kind === 'retrospective' ? document.value.user_grade : undefined;
}

function secondsOf(timestamp: string): number {
  const millis = Date.parse(timestamp);
  return Number.isFinite(millis) && millis > 0 ? Math.floor(millis / 1000) : 0;
}

/**
 * Indexes the documents a flush wrote. Runs inside that flush's transaction: if anything throws,
 * neither the entries nor their postings are written. Documents already indexed are skipped, so
 * re-indexing (after an import, a migration, a rebuild) is safe.
 */
export function indexWrittenDocuments(table: TermTable, documents: readonly WrittenDocument[]): void {
  const pending = new Map<string, Posting[]>();
  let nextDocument = readNumber(table, ['s', 'nextDocument']);
  let documentCount = readNumber(table, ['s', 'documents']);
  let totalLength = readNumber(table, ['s', 'totalLength']);
  const startCount = documentCount;
  // An empty index is built by this analyzer from its first document on.
  if (nextDocument === 0) table.putSync(VERSION_KEY, TERM_INDEX_VERSION);
  /** Words of the flush that typo correction may lead to, with their terms. */
  const words = new Map<string, string>();
  // Most documents of one flush share their project and agent: look each name up once.
  const ids = new Map<string, number>();
  const idOf = (dictionary: Dictionary, name: string): number => {
    const cacheKey = `${dictionary}\u0000${name}`;
    let id = ids.get(cacheKey);
    if (id === undefined) ids.set(cacheKey, (id = assignId(table, dictionary, name)));
    return id;
  };

  for (const document of documents) {
    const ref = refOf(document);
    const reverseKey: TermIndexKey = ['r', ...ref];
    if (table.doesExist(reverseKey)) continue;
    nextDocument += 1;
    table.putSync(['d', nextDocument], ref);
    table.putSync(reverseKey, nextDocument);
    const terms: string[] = [];
    // A whole identifier is another spelling of its words, not more text: it is not counted in
    // the document's length, so splitting identifiers does not make a document look longer.
    let length = 0;
    analyze(searchableText(document), (term, word) => {
      terms.push(term);
      if (word === undefined) return;
      length += 1;
      if (isFuzzyWord(word)) words.set(word, term);
    });
    documentCount += 1;
    totalLength += length;
    if (terms.length === 0) continue;
    const shared = {
      document: nextDocument,
      documentLength: length,
      kind: document.kind,
      grade: gradeOfDocument(document),
      projectId: idOf('project', document.value.project),
      agentId: idOf('agent', document.value.agent),
      seconds: secondsOf(document.value.timestamp),
    };
    for (const [term, termFrequency] of termFrequencies(terms)) {
      const list = pending.get(term) ?? [];
      list.push({ ...shared, termFrequency });
      pending.set(term, list);
    }
  }
  if (documentCount === startCount) return;
  for (const [term, postings] of pending) appendPostings(table, term, postings);
  for (const [word, term] of words) {
    const key = wordKey(word);
    if (!table.doesExist(key)) table.putSync(key, term);
  }
  table.putSync(['s', 'nextDocument'], nextDocument);
  table.putSync(['s', 'documents'], documentCount);
  table.putSync(['s', 'totalLength'], totalLength);
}

/** The word-list key of a word: by first letter and length, so correction reads only near words. */
function wordKey(word: string): TermIndexKey {
  return ['w', word.charAt(0), word.length, word];
}

/** Appends postings (in document order) to a term's last block, starting new blocks as they fill. */
function appendPostings(table: TermTable, term: string, postings: readonly Posting[]): void {
  let frequency = readNumber(table, ['f', term]);
  let index = 0;
  while (index < postings.length) {
    const block = Math.floor(frequency / POSTINGS_PER_BLOCK);
    const used = frequency % POSTINGS_PER_BLOCK;
    const stored = used === 0 ? undefined : toBytes(table.get(['p', term, block]));
    const take = Math.min(POSTINGS_PER_BLOCK - used, postings.length - index);
    const words = new Uint32Array((used + take) * POSTING_WORDS);
    if (stored) words.set(toWords(stored).subarray(0, used * POSTING_WORDS));
    for (let i = 0; i < take; i += 1) encodePosting(words, used + i, postings[index + i] as Posting);
    table.putSync(['p', term, block], new Uint8Array(words.buffer));
    frequency += take;
    index += take;
  }
  table.putSync(['f', term], frequency);
}

/** Read access to the term index for queries. */
export class TermIndexReader {
  constructor(private readonly table: TermTable) {}

  statistics(): IndexStatistics {
    return { documents: readNumber(this.table, ['s', 'documents']), totalLength: readNumber(this.table, ['s', 'totalLength']) };
  }

  /**
   * All postings of `term`, in document order, as blocks of packed words (see the POSTING_*
   * offsets). The count is the term's document frequency as of this read.
   */
  postings(term: string): { blocks: Uint32Array[]; count: number } {
    // Each block is copied as it is read: lmdb may reuse the buffer behind a value on the next read.
    const blocks: Uint32Array[] = [];
    let count = 0;
    for (const { value } of this.table.getRange({ start: ['p', term, 0], end: ['p', term, LAST_KEY_NUMBER] })) {
      const bytes = toBytes(value);
      if (!bytes) continue;
      const block = toWords(bytes);
      blocks.push(block);
      count += Math.floor(block.length / POSTING_WORDS);
    }
    return { blocks, count };
  }

  /** The analyzer version the index was built with; 1 for indexes from before versions were kept. */
  version(): number {
    const stored = this.table.get(VERSION_KEY);
    return typeof stored === 'number' ? stored : 1;
  }

  /** Whether any document was ever indexed. */
  isEmpty(): boolean {
    return readNumber(this.table, ['s', 'nextDocument']) === 0;
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
      for (const { key, value } of this.table.getRange({ start: ['w', first, length], end: ['w', first, length + 1] })) {
        const candidate = key[3];
        if (typeof candidate === 'string' && typeof value === 'string' && withinOneEdit(word, candidate)) terms.add(value);
      }
    }
    return [...terms];
  }

  /** The entry behind a document number. */
  documentRef(document: number): DocumentRef | undefined {
    const value = this.table.get(['d', document]);
    return Array.isArray(value) ? (value as DocumentRef) : undefined;
  }

  /** Whether an entry has been indexed. */
  isIndexed(ref: DocumentRef): boolean {
    return this.table.doesExist(['r', ...ref]);
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

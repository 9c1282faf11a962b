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
 * Who writes and reads which part: codec.ts (the bytes), metadata.ts and refs.ts (per document),
 * postings.ts (a term's blocks), chunks.ts and runs.ts (runs and their merge), writer.ts (a flush),
 * reader.ts (queries).
 */
import type { Table, WritableTable, TermIndexKey } from '../../store/tables.js';

/**
 * The version of the index: of the analyzer that gives an entry's terms (tokenizer.ts) and of the
 * layout above. An index of another version is rebuilt once (see ../reindex.ts); until then it is not
 * read and not written to.
 * 1: lower-cased words of 3+ letters. 2: NFKC, identifier splitting, Porter2 stems, two-letter words.
 * 3: the same terms; packed postings, per-document metadata and compact document references.
 * 4: the same, with runs (an index of version 3 is one without runs: it was read and written as is,
 *    and stamped 4 by its first flush, so that a tracker of version 3 no longer wrote to it).
 * 5: the same layout; an activity that records a bug report carries a grade in its metadata (a
 *    verified report -1, an unverified one 1), so a query tells reported bugs apart without reading
 *    entries. Earlier indexes lack those grades: they are rebuilt.
 */
export const TERM_INDEX_VERSION = 5;
/** The version the index was built with (absent: 1, from before versions were kept). */
export const VERSION_KEY: TermIndexKey = ['s', 'version'];
/** The live runs, oldest first, as flat pairs: run number, terms it still holds. */
export const RUNS_KEY: TermIndexKey = ['s', 'runs'];
/** The term the merge sweep goes on from (absent: from the first). */
export const SWEEP_KEY: TermIndexKey = ['s', 'sweep'];
/** The first part of a run chunk's key. */
export const RUN_PREFIX = 'q';
/** Set anew whenever the index starts from empty (a new file, a rebuild): full metadata blocks never change within one. */
export const GENERATION_KEY: TermIndexKey = ['s', 'generation'];
/** Past a term's last closed block, to end a range over its blocks. */
export const LAST_KEY_NUMBER = Number.MAX_SAFE_INTEGER;
/** The number of a term's open block (its closed blocks are 1..n). */
export const OPEN_BLOCK = 0;

/** A key of the `terms` sub-database. */
export type { TermIndexKey };

/** The `terms` sub-database as the index uses it. */
/** The term index as a flush or a rebuild writes it (inside the store's write door). */
export type TermTable = WritableTable<unknown, TermIndexKey>;
/** The term index as readers see it. */
export type TermReadTable = Table<unknown, TermIndexKey>;

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

/** A number statistic; 0 when it was never written. */
export function readNumber(table: TermReadTable, key: TermIndexKey): number {
  const value = table.get(key);
  return typeof value === 'number' ? value : 0;
}

/** A stored value as bytes, if it is bytes. */
export function toBytes(value: unknown): Uint8Array | undefined {
  return value instanceof Uint8Array ? value : undefined;
}

/** Whether the index was built by this version (an empty index is: it is built from its first document on). */
export function indexIsCurrent(table: TermReadTable): boolean {
  if (readNumber(table, ['s', 'nextDocument']) === 0) return true;
  const version = table.get(VERSION_KEY);
  return version === TERM_INDEX_VERSION;
}

/** The live runs, oldest first, as flat pairs: run number, terms it still holds. */
export function liveRuns(table: TermReadTable): number[] {
  const stored = table.get(RUNS_KEY);
  return Array.isArray(stored) ? stored.filter((value): value is number => typeof value === 'number') : [];
}

/** The word-list key of a word: by first letter and length, so correction reads only near words. */
export function wordKey(word: string): TermIndexKey {
  return ['w', word.charAt(0), word.length, word];
}

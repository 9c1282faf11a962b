/**
 * Indexing a flush: each document written gets the next document number, its metadata and
 * reference, and its terms' postings (into a run, or straight into the blocks for a rebuild);
 * the words typo correction may lead to, and the index statistics.
 */
import type { WrittenDocument } from '../../store/tables.js';
import type { Grade } from '../../types.js';
import { bugReportOf, searchableText } from '../documents.js';
import { isFuzzyWord } from '../fuzzy.js';
import { analyze } from '../tokenizer.js';
import type { TermSink } from '../tokenizer.js';
import { MAX_UINT16 } from './codec.js';
import { GENERATION_KEY, indexIsCurrent, readNumber, RUNS_KEY, TERM_INDEX_VERSION, VERSION_KEY, wordKey } from './layout.js';
import type { Dictionary, TermTable } from './layout.js';
import { appendMetadata, METADATA_AGENT, METADATA_PROJECT, METADATA_SECONDS, METADATA_SHAPE, METADATA_WORDS, shapeOf } from './metadata.js';
import { appendPostings } from './postings.js';
import { appendRefs, assignId, packedRef } from './refs.js';
import { MAX_RUNS, mergeSlice, writeRun } from './runs.js';

/** The grade an unverified bug report is indexed with: neutral, neither a pattern nor a mistake. */
const UNVERIFIED_BUG_GRADE: Grade = 1;
/** And a verified one: bad, a mistake. */
const VERIFIED_BUG_GRADE: Grade = -1;

function gradeOfDocument(document: WrittenDocument): Grade | undefined {
  // The user's grade decides: it is the outside judgement of the work (the agent grades itself too).
  if (document.kind === 'retrospective') return document.value.user_grade;
  if (document.kind === 'commit') return undefined;
  const bug = bugReportOf(document.value);
  return bug === 'verified' ? VERIFIED_BUG_GRADE : bug === 'unverified' ? UNVERIFIED_BUG_GRADE : undefined;
}

function secondsOf(timestamp: string): number {
  const millis = Date.parse(timestamp);
  return Number.isFinite(millis) && millis > 0 ? Math.floor(millis / 1000) : 0;
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

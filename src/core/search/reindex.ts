/**
 * Rebuilds the prior-art term index when it was built by another version of the analyzer or layout (see
 * TERM_INDEX_VERSION): once, at the first plugin start or prior-art command after an upgrade, in
 * ONE transaction (a crash or a second process never sees half an index; a second process that
 * waited for the lock finds the index current and does nothing).
 */
import type { Store, WrittenDocument } from '../store/store.js';
import { TermIndexReader } from './index/reader.js';
import { indexWrittenDocuments } from './index/writer.js';

/**
 * Entries indexed per step (progress is reported between steps). Large, because each step rewrites
 * the last postings block of every term it touches; small enough to keep a step's postings in memory.
 */
export const REINDEX_BATCH = 10_000;

/** How far a rebuild is: entries indexed so far and in all. */
export interface ReindexProgress {
  done: number;
  total: number;
  elapsedMs: number;
}

/** What `rebuildStaleTermIndex` did. */
export interface ReindexResult {
  rebuilt: boolean;
  documents: number;
  durationMs: number;
}

/** Whether the term index was built by this analyzer (an empty index counts as current). */
export function termIndexIsCurrent(store: Store): boolean {
  const reader = new TermIndexReader(store.tables.terms);
  return reader.isCurrent();
}

function* allDocuments(store: Store): Generator<WrittenDocument> {
  const t = store.tables;
  for (const { key, value } of t.retrospectives.getRange()) yield { kind: 'retrospective', key, value };
  for (const { key, value } of t.activities.getRange()) yield { kind: 'activity', key, value };
  for (const { key, value } of t.commits.getRange()) yield { kind: 'commit', key, value };
}

/**
 * Rebuilds the term index from every retrospective, journal entry and commit when it is not
 * current; does nothing (one read) when it is. `onProgress` is called after each batch of
 * `batchSize` entries.
 */
export function rebuildStaleTermIndex(
  store: Store,
  onProgress?: (progress: ReindexProgress) => void,
  batchSize: number = REINDEX_BATCH,
): ReindexResult {
  const started = performance.now();
  if (termIndexIsCurrent(store)) return { rebuilt: false, documents: 0, durationMs: performance.now() - started };
  return store.write((t) => {
    // Checked again under the write lock: another process may have rebuilt it meanwhile.
    if (termIndexIsCurrent(store)) return { rebuilt: false, documents: 0, durationMs: performance.now() - started };
    const total = t.retrospectives.getKeysCount() + t.activities.getKeysCount() + t.commits.getKeysCount();
    store.clearTable('terms');
    let done = 0;
    let batch: WrittenDocument[] = [];
    const flushBatch = () => {
      indexWrittenDocuments(t.terms, batch, 'blocks');
      done += batch.length;
      batch = [];
      onProgress?.({ done, total, elapsedMs: performance.now() - started });
    };
    for (const document of allDocuments(store)) {
      batch.push(document);
      if (batch.length >= batchSize) flushBatch();
    }
    // Also stamps an index left empty (every entry without searchable text) with the version.
    flushBatch();
    return { rebuilt: true, documents: done, durationMs: performance.now() - started };
  });
}

/**
 * The term index as the store's indexer. Every writer opens its store with it (`indexer` in
 * StoreOptions), so entries and their postings are written in the same transaction; the store
 * itself does not import the search code (the plugin loads it just after start, see plugin.ts).
 * Its deferred work, merging the runs flushes write, is `maintain` (Store.maintainIndexes).
 */
import type { DocumentIndexer } from '../store/store.js';
import { mergeTermRuns } from './index/runs.js';
import { indexWrittenDocuments } from './index/writer.js';

export const termIndexer: DocumentIndexer = Object.assign((tables: Parameters<DocumentIndexer>[0], documents: Parameters<DocumentIndexer>[1]) => indexWrittenDocuments(tables.terms, documents), {
  maintain: (tables: Parameters<DocumentIndexer>[0]) => mergeTermRuns(tables.terms),
});

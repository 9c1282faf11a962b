/**
 * The term index as the store's indexer. Every writer opens its store with it (`indexer` in
 * StoreOptions), so entries and their postings are written in the same transaction; the store
 * itself does not import the query code (the plugin loads it just after start, see plugin.ts).
 */
import type { DocumentIndexer } from '../store/store.js';
import { indexWrittenDocuments } from './term-index.js';

export const termIndexer: DocumentIndexer = (tables, documents) => indexWrittenDocuments(tables.terms, documents);

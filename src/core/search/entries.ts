/**
 * Every retrospective, activity and commit across agents and projects, a page at a time: for
 * export and reports. Queries do not use these; they go through the term index.
 */
import type { Table } from '../store/store.js';
import type { CommitKey, JournalKey, RetrospectiveKey } from '../store/mutations.js';
import type { Store } from '../store/store.js';
import type { ActivityEntry, CommitRecord, RetrospectiveEntry } from '../types.js';
import { InputError } from '../validation.js';

/** Entries per page when the caller does not say. */
export const DEFAULT_PAGE_SIZE = 500;
/** The largest page a caller may ask for, so one call never holds a whole database in memory. */
export const MAX_PAGE_SIZE = 10_000;

/** Where to start and how many to return. */
export interface PageRequest<K> {
  limit?: number;
  /** The `next` of the previous page; omit for the first page. */
  after?: K;
}

/** One page of entries in key order, and where the next page starts (absent on the last page). */
export interface Page<V, K> {
  entries: V[];
  next?: K;
}

function pageOf<V, K extends (string | number)[]>(table: Table<V, K>, request: PageRequest<K>): Page<V, K> {
  const limit = request.limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new InputError(`the page size must be a whole number from 1 to ${MAX_PAGE_SIZE}, got ${String(request.limit)}`);
  }
  const entries: V[] = [];
  let lastKey: K | undefined;
  // One extra row tells whether another page follows; the range start is inclusive, so skip `after`.
  const rows = table.getRange({ ...(request.after ? { start: request.after } : {}), limit: limit + 2 });
  let more = false;
  for (const { key, value } of rows) {
    if (request.after && JSON.stringify(key) === JSON.stringify(request.after)) continue;
    if (entries.length === limit) {
      more = true;
      break;
    }
    entries.push(value);
    lastKey = key;
  }
  return more && lastKey ? { entries, next: lastKey } : { entries };
}

/** Retrospectives of every agent, by agent then commit. */
export function getAllRetrospectives(store: Store, request: PageRequest<RetrospectiveKey> = {}): Page<RetrospectiveEntry, RetrospectiveKey> {
  return pageOf(store.tables.retrospectives, request);
}

/** Journal entries of every agent, by agent then time. */
export function getAllActivities(store: Store, request: PageRequest<JournalKey> = {}): Page<ActivityEntry, JournalKey> {
  return pageOf(store.tables.activities, request);
}

/** Commits of every project, by project then hash. */
export function getAllCommits(store: Store, request: PageRequest<CommitKey> = {}): Page<CommitRecord, CommitKey> {
  return pageOf(store.tables.commits, request);
}

/**
 * Whether a commit is stored under a hash or an abbreviation of it (`git commit` prints seven
 * characters): a module of its own, so the history check reads it without the tracking service.
 */
import type { CommitRecord } from '../types.js';
import type { Table } from '../store/tables.js';

/** The fewest characters git abbreviates a hash to (`git commit`'s summary line): what a backfilled commit is kept under. */
export const GIT_ABBREVIATION_LENGTH = 7;

/** Whether a stored commit of the project has a hash starting with `prefix` (one key read, no value decoded). */
export function storedCommitStartsWith(commits: Table<CommitRecord, [string, string]>, project: string, prefix: string): boolean {
  for (const key of commits.getKeys({ start: [project, prefix], limit: 1 })) return key[0] === project && key[1].startsWith(prefix);
  return false;
}

/**
 * What of each stored entry is searchable, shared by the term index and by any reader that must
 * score entries the same way (the relevance test's baseline, the benchmark's full scan).
 */
import type { ActivityEntry, CommitRecord, RetrospectiveEntry } from '../types.js';
import { BUG_REPORT_ENTRY } from '../../contract/records.js';
export type { EntryKind } from '../../contract/answers.js';

/** An entry of one of those kinds, tagged. */
export type SearchableEntry =
  | { kind: 'retrospective'; value: RetrospectiveEntry }
  | { kind: 'activity'; value: ActivityEntry }
  | { kind: 'commit'; value: CommitRecord };

/**
 * The text an entry is searched by: the task and notes of a retrospective; the task, outcome and
 * decisions of an activity; a commit's message. An automatic activity's outcome is generated
 * boilerplate ("no commits; no failures"), so only its task (the user's prompt) is searched: the
 * boilerplate would put the same few words in most documents and match every query about commits.
 * The tool counts in `actions` are left out for the same reason.
 */
export function searchableText(entry: SearchableEntry): string {
  switch (entry.kind) {
    case 'retrospective':
      return [entry.value.task, entry.value.agent_note, entry.value.user_note].join('\n');
    case 'activity':
      return entry.value.automatic
        ? entry.value.task
        : [entry.value.task, entry.value.outcome, entry.value.decisions].join('\n');
    case 'commit':
      return entry.value.message;
  }
}


/** Whether a journal entry was written by a bug report, verified (charged to the agent) or not; undefined for any other entry. */
export function bugReportOf(entry: Pick<ActivityEntry, 'task' | 'outcome' | 'automatic'>): 'verified' | 'unverified' | undefined {
  if (entry.automatic) return undefined;
  const { verified, unverified } = BUG_REPORT_ENTRY;
  if (entry.outcome === verified.outcome && entry.task.startsWith(verified.task)) return 'verified';
  if (entry.outcome === unverified.outcome && entry.task.startsWith(unverified.task)) return 'unverified';
  return undefined;
}

/**
 * The history that reports and recommendations read: every usage record (one per session × agent ×
 * model), optionally narrowed to one project and to work since a moment. The usage records already
 * carry each setup's grades (graded commits, the sum of both grades, the CS change), so one pass
 * over 10,000 sessions answers for 100,000 commits; everything after this read is pure.
 */
import { totalTokens } from '../../contract/counters.js';
import type { StoreAccess } from '../store/access.js';
import { allGrades, gradeEvidence, gradedCommitCount } from '../outcomes/counters.js';
import type { GradeEvidence } from '../outcomes/counters.js';
import type { UsageRecord, UsageSource } from '../types.js';

export interface HistoryFilter {
  /** Absolute project path; only its records are kept. */
  project?: string;
  /**
   * ISO times: only work that started at or after `since` and before `until`. A session's work counts
   * when it began, so grading it later never brings an old session back into a recent window.
   */
  since?: string;
  until?: string;
  /** Only records from this source (records from before sources were told apart are live). */
  source?: UsageSource;
}

export interface History {
  usage: UsageRecord[];
}

function keeps(filter: HistoryFilter, project: string, at: string, source: UsageSource = 'live'): boolean {
  if (filter.project !== undefined && project !== filter.project) return false;
  if (filter.source !== undefined && source !== filter.source) return false;
  if (filter.since !== undefined && at < filter.since) return false;
  if (filter.until !== undefined && at >= filter.until) return false;
  return true;
}

/** Reads the usage records that pass the filter. */
export function loadHistory(store: StoreAccess, filter: HistoryFilter = {}): History {
  const usage: UsageRecord[] = [];
  for (const { value } of store.tables.usage.getRange()) {
    if (keeps(filter, value.project, value.firstAt, value.source)) usage.push(value);
  }
  return { usage };
}

/**
 * The sum of a record's commit grades on the grade scale, scaled to graded commits: the mean of all its
 * grades (user, self, agent-reported) times its graded commits.
 */
export function commitGradeSum(record: UsageRecord, grades: GradeEvidence = gradeEvidence(record)): number {
  const all = allGrades(record, grades);
  return all.commits > 0 ? (all.sum / all.commits) * gradedCommitCount(record, grades) : 0;
}

/** Total tokens of a usage record, all kinds together. */
export { totalTokens };

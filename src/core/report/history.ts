/**
 * The history that reports and recommendations read: every usage record (one per session × agent ×
 * model) and every retrospective (one per graded commit), optionally narrowed to one project and
 * to work since a moment. One pass over each sub-database; everything after this is pure.
 */
import type { Store } from '../store/store.js';
import type { RetrospectiveEntry, UsageRecord } from '../types.js';

export interface HistoryFilter {
  /** Absolute project path; only its records are kept. */
  project?: string;
  /** ISO time; usage records last active before it and grades given before it are left out. */
  since?: string;
}

export interface History {
  usage: UsageRecord[];
  grades: RetrospectiveEntry[];
}

function keeps(filter: HistoryFilter, project: string, at: string): boolean {
  if (filter.project !== undefined && project !== filter.project) return false;
  if (filter.since !== undefined && at < filter.since) return false;
  return true;
}

/** Reads the usage records and retrospectives that pass the filter. */
export function loadHistory(store: Store, filter: HistoryFilter = {}): History {
  const usage: UsageRecord[] = [];
  for (const { value } of store.tables.sessions.getRange()) {
    if (keeps(filter, value.project, value.lastAt)) usage.push(value);
  }
  const grades: RetrospectiveEntry[] = [];
  for (const { value } of store.tables.retrospectives.getRange()) {
    if (keeps(filter, value.project, value.timestamp)) grades.push(value);
  }
  return { usage, grades };
}

/** The mean of a graded commit's two grades (the agent's and the user's), on the grade scale. */
export function commitGrade(entry: RetrospectiveEntry): number {
  return (entry.agent_grade + entry.user_grade) / 2;
}

/** Total tokens of a usage record, all kinds together. */
export function totalTokens(record: UsageRecord): number {
  return record.tokensInput + record.tokensOutput + record.tokensReasoning + record.tokensCacheRead + record.tokensCacheWrite;
}

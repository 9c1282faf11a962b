/**
 * The answer to "how did each setup do?": report rows for a selection of the history, computed once
 * here for every surface (CLI text, `--json`, `--csv`, the HTML page, the MCP `report` tool). A
 * surface renders this answer; it never derives a figure of its own.
 */
import { suspectUserActions } from '../integrity/suspect-actions.js';
import type { SuspectUserAction } from '../integrity/suspect-actions.js';
import { loadHistory } from '../report/history.js';
import type { History, HistoryFilter } from '../report/history.js';
import { buildReport } from '../report/report.js';
import type { ReportGrouping, ReportRow } from '../report/report.js';
import type { TrackingService } from '../tracking/service.js';
import type { UsageSource } from '../types.js';
import { refreshSignals } from './signals.js';

export interface ReportRequest {
  by: ReportGrouping;
  /** Only this project's work (an absolute path). */
  project?: string;
  /** Only work active since this ISO time. */
  since?: string;
  source?: UsageSource;
}

/** What `report --json` prints, field for field. */
export interface ReportAnswer {
  by: ReportGrouping;
  project: string | null;
  since: string | null;
  source: UsageSource | null;
  rows: ReportRow[];
  totals: ReportRow;
  /** User-only records that came a way an agent could drive: shown apart until the user reviews them. */
  suspectUserActions: SuspectUserAction[];
}

function filterOf(request: ReportRequest): HistoryFilter {
  return {
    ...(request.project !== undefined ? { project: request.project } : {}),
    ...(request.since !== undefined ? { since: request.since } : {}),
    ...(request.source !== undefined ? { source: request.source } : {}),
  };
}

/** The report's history, with the git signals of its projects brought up to date first. */
export async function reportHistory(recorder: TrackingService, request: ReportRequest): Promise<History> {
  const filter = filterOf(request);
  const projects = request.project !== undefined ? [request.project] : loadHistory(recorder.store, filter).usage.map((record) => record.project);
  await refreshSignals(recorder, projects);
  return loadHistory(recorder.store, filter);
}

/** The report for `request`, from a history read by `reportHistory`. */
export function reportAnswerFrom(recorder: TrackingService, history: History, request: ReportRequest): ReportAnswer {
  const report = buildReport(history, request.by);
  return {
    by: request.by,
    project: request.project ?? null,
    since: request.since ?? null,
    source: request.source ?? null,
    rows: report.rows,
    totals: report.totals,
    suspectUserActions: suspectUserActions(recorder.store),
  };
}

/** The report for `request`: signals refreshed, then every figure computed here. */
export async function reportAnswer(recorder: TrackingService, request: ReportRequest): Promise<ReportAnswer> {
  return reportAnswerFrom(recorder, await reportHistory(recorder, request), request);
}

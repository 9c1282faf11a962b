/**
 * The answer to "how did each setup do?": report rows for a selection of the history, computed once
 * here for every surface (CLI text, `--json`, `--csv`, the HTML page, the MCP `report` tool). A
 * surface renders this answer; it never derives a figure of its own.
 */
import { suspectUserActions } from '../integrity/suspect-actions.js';
import { loadHistory } from '../report/history.js';
import type { History, HistoryFilter } from '../report/history.js';
import { buildReport } from '../report/report.js';
import type { ReportGrouping } from '../report/report.js';
import type { Store } from '../store/store.js';
import { localTimeZone } from '../report/periods.js';
import type { Period } from '../report/periods.js';
import type { UsageSource } from '../types.js';
import type { ReportAnswer } from '../../contract/answers.js';
import { GIT_SIGNAL_CACHE_PREFIX } from '../../contract/git-signal-cache.js';
import { lacksPrice, loadPriceCatalog } from '../report/recommend-prices.js';
import type { CostEstimator } from '../report/recommend-prices.js';
export type { ReportAnswer } from '../../contract/answers.js';
export type { CostEstimator } from '../report/recommend-prices.js';

export interface ReportRequest {
  by: ReportGrouping;
  /** Only this project's work (an absolute path). */
  project?: string;
  /** Only work that began at or after this ISO time, and before `until`. */
  since?: string;
  until?: string;
  source?: UsageSource;
  /** Rows per calendar period too, in `timeZone` (an IANA name; default: this machine's). */
  period?: Period;
  timeZone?: string;
}

function filterOf(request: ReportRequest): HistoryFilter {
  return {
    ...(request.project !== undefined ? { project: request.project } : {}),
    ...(request.since !== undefined ? { since: request.since } : {}),
    ...(request.until !== undefined ? { until: request.until } : {}),
    ...(request.source !== undefined ? { source: request.source } : {}),
  };
}

/** The first task (the user's prompt) of each session, from the journal's automatic turn entries. */
function sessionTasks(store: Store, sessions: ReadonlySet<string>): Map<string, string> {
  const tasks = new Map<string, { task: string; at: string }>();
  for (const { value } of store.tables.activities.getRange()) {
    if (!value.automatic || value.sessionId === undefined || !sessions.has(value.sessionId) || value.task === '') continue;
    const known = tasks.get(value.sessionId);
    if (!known || value.timestamp < known.at) tasks.set(value.sessionId, { task: value.task, at: value.timestamp });
  }
  return new Map([...tasks].map(([session, { task }]) => [session, task]));
}

/** Past every project path in the meta table's git-signal keys. */
const GIT_SIGNAL_KEYS_END = `${GIT_SIGNAL_CACHE_PREFIX}\uffff`;

/** The projects whose git history was read (they hold git-signal bookkeeping, made there or imported). */
function gitReadProjects(store: Store): Set<string> {
  const projects = new Set<string>();
  for (const key of store.tables.meta.getKeys({ start: GIT_SIGNAL_CACHE_PREFIX, end: GIT_SIGNAL_KEYS_END })) projects.add(String(key).slice(GIT_SIGNAL_CACHE_PREFIX.length));
  return projects;
}

/**
 * The price catalog `recommend` uses, loaded only when the history holds usage OpenCode stored at cost 0
 * while spending tokens (it is about 1 MB of code). Undefined when nothing needs it or it cannot load:
 * such usage is then of unknown cost, never free.
 */
export async function reportPrices(history: History): Promise<CostEstimator | undefined> {
  if (!history.usage.some(lacksPrice)) return undefined;
  return loadPriceCatalog().catch(() => undefined);
}

/** The history a report reads. */
export function reportHistory(store: Store, request: ReportRequest): History {
  return loadHistory(store, filterOf(request));
}

/** The report for `request`, from a history read by `reportHistory`, its usage stored at cost 0 priced by `estimateCost` (`reportPrices`). */
export function reportAnswerFrom(store: Store, history: History, request: ReportRequest, estimateCost?: CostEstimator): ReportAnswer {
  const timeZone = request.period ? (request.timeZone ?? localTimeZone()) : undefined;
  const report = buildReport(history, request.by, {
    ...(request.period ? { period: request.period } : {}),
    ...(timeZone ? { timeZone } : {}),
    ...(estimateCost ? { estimateCost } : {}),
    gitReadProjects: gitReadProjects(store),
  });
  if (request.by === 'session') {
    const tasks = sessionTasks(store, new Set(report.rows.map((row) => row.session ?? '')));
    for (const row of report.rows) row.task = tasks.get(row.session ?? '') ?? null;
  }
  return {
    by: request.by,
    project: request.project ?? null,
    since: request.since ?? null,
    until: request.until ?? null,
    source: request.source ?? null,
    period: request.period ?? null,
    timeZone: timeZone ?? null,
    rows: report.rows,
    totals: report.totals,
    suspectUserActions: suspectUserActions(store),
  };
}

/**
 * The report for `request`: every figure computed here, from the store as it is. Surfaces bring the
 * git signals of the projects up to date first (src/cli/git-signals.ts, or `refreshSignals`).
 */
export async function reportAnswer(store: Store, request: ReportRequest): Promise<ReportAnswer> {
  const history = reportHistory(store, request);
  return reportAnswerFrom(store, history, request, await reportPrices(history));
}

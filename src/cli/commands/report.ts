/**
 * `agent-tracker report [--project PATH] [--since ISO] [--by agent|model|project] [--json|--csv]
 * [--html FILE]`: one row per agent × model (or per agent, per model, per setup and project).
 * `--json` and `--csv` carry the same rows; `--html` writes a self-contained page with charts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadHistory } from '../../core/report/history.js';
import type { HistoryFilter } from '../../core/report/history.js';
import { buildReport, REPORT_GROUPINGS } from '../../core/report/report.js';
import type { ReportGrouping } from '../../core/report/report.js';
import type { Recommendation } from '../../core/report/recommend.js';
import { InputError } from '../../core/validation.js';
import { CliError, loadConfig, parseCommandArgs, withStore } from '../context.js';
import { refreshProjectGitSignals } from '../git-signals.js';
import type { Store } from '../../core/store/store.js';
import type { Output } from '../context.js';
import { writeFileAtomic } from '../../core/fs/atomic-write.js';
import { formatSuspectUserActions, suspectUserActions } from '../../core/integrity/suspect-actions.js';
import type { UsageSource } from '../../core/types.js';

/** Where usage records come from, as `--source` names them. */
const USAGE_SOURCES: readonly UsageSource[] = ['live', 'backfill'];

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** `--since` as a full ISO time in UTC, the form every stored time has. */
export function parseSince(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const time = ISO_DATE.test(value.trim()) ? Date.parse(value.trim()) : Number.NaN;
  if (Number.isNaN(time)) throw new CliError(`--since must be an ISO date or time such as 2025-01-31 or 2025-01-31T12:00:00Z, got "${value}"`);
  return new Date(time).toISOString();
}

function parseGrouping(value: string | undefined): ReportGrouping {
  if (value === undefined) return 'setup';
  if (!(REPORT_GROUPINGS as readonly string[]).includes(value)) {
    throw new CliError(`--by must be one of ${REPORT_GROUPINGS.join(', ')}, got "${value}"`);
  }
  return value as ReportGrouping;
}

/** The recommendation for the report's page; none when the folder is gone and was never profiled. */
async function recommendationForPage(store: Store, project: string): Promise<Recommendation | undefined> {
  const { recommendForProject } = await import('../../core/report/recommend-project.js');
  try {
    return await recommendForProject(store, project);
  } catch (error) {
    if (error instanceof InputError) return undefined;
    throw error;
  }
}

export async function run(args: string[], output: Output): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    args,
    { project: { type: 'string' }, since: { type: 'string' }, by: { type: 'string' }, source: { type: 'string' }, csv: { type: 'boolean', default: false }, html: { type: 'string' } },
    false,
  );
  if (positionals.length > 0) throw new CliError(`takes no positional arguments, got "${positionals[0]}"`);
  if (values.json && values.csv) throw new CliError('choose one of --json and --csv');
  const filter: HistoryFilter = {};
  if (values.project !== undefined) filter.project = path.resolve(values.project);
  const since = parseSince(values.since);
  if (since !== undefined) filter.since = since;
  const by = parseGrouping(values.by);
  if (values.source !== undefined) {
    if (!(USAGE_SOURCES as readonly string[]).includes(values.source)) throw new CliError(`--source must be one of ${USAGE_SOURCES.join(', ')}, got "${values.source}"`);
    filter.source = values.source as UsageSource;
  }
  const htmlFile = values.html === undefined ? undefined : path.resolve(values.html);
  if (htmlFile !== undefined && !fs.existsSync(path.dirname(htmlFile))) throw new CliError(`cannot write ${htmlFile}: its folder does not exist`);

  const config = loadConfig(values.db);
  await refreshProjectGitSignals(config, filter.project ? [filter.project] : undefined);
  const { history, suspect, recommendation } = await withStore(
    config,
    async (store) => ({
      history: loadHistory(store, filter),
      suspect: suspectUserActions(store),
      // The page opens with the recommendation for the project asked for (the current folder by default).
      recommendation: htmlFile === undefined ? undefined : await recommendationForPage(store, filter.project ?? process.cwd()),
    }),
    'read',
  );
  const report = buildReport(history, by);

  // The page, the table and the CSV load only for the output asked for.
  if (htmlFile !== undefined) {
    const [{ renderHtmlReport }, { activityOverTime }] = await Promise.all([import('../../core/report/html.js'), import('../../core/report/activity.js')]);
    const page = renderHtmlReport({
      report: by === 'setup' ? report : buildReport(history, 'setup'),
      activity: activityOverTime(history),
      filter,
      generatedAt: new Date().toISOString(),
      ...(recommendation ? { recommendation } : {}),
    });
    writeFileAtomic(htmlFile, page);
  }
  if (values.json) {
    output.out(JSON.stringify({ by, project: filter.project ?? null, since: filter.since ?? null, source: filter.source ?? null, rows: report.rows, totals: report.totals, suspectUserActions: suspect }, null, 2));
  } else if (values.csv) {
    const { reportToCsv } = await import('../../core/report/table.js');
    output.out(reportToCsv(report.rows));
  } else if (htmlFile !== undefined) {
    output.out(`Wrote the HTML report (${report.rows.length} setups) to ${htmlFile}`);
  } else if (report.rows.length === 0) {
    output.out('No work recorded yet for this selection. Work in OpenCode with the agent-tracker plugin enabled, then look again.');
  } else {
    const { reportToTable } = await import('../../core/report/table.js');
    output.out(reportToTable(report));
  }
  const warning = values.csv || values.json ? '' : formatSuspectUserActions(suspect);
  if (warning) output.out(`\n${warning}`);
}

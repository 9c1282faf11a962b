/**
 * `agent-tracker report [--project PATH] [--since ISO] [--until ISO] [--period day|week|month [--tz ZONE]]
 * [--by setup|agent|model|project|session] [--source live|backfill] [--json|--csv|--wide|--explain] [--html FILE]`:
 * one row per agent × model (or per agent, per model, per setup and project, per session), per period
 * with `--period`. `--json` and `--csv` carry the same rows; the text table shows the main columns in
 * 100 terminal columns (`--wide`: all of them; `--explain`: what each means); `--html` writes a page.
 */
import fs from 'node:fs';
import { plural } from '../../core/report/numbers.js';
import path from 'node:path';
import { reportAnswerFrom, reportHistory, reportPrices } from '../../core/answers/report.js';
import type { ReportAnswer, ReportRequest } from '../../core/answers/report.js';
import type { Store } from '../../core/store/store.js';
import { projectsWithMovedSignals, writeGitSignals } from '../git-signals.js';
import { parseGrouping, parsePeriod, parseSince, parseTimeZone } from '../report-args.js';
import type { Recommendation } from '../../core/report/recommend.js';
import { InputError } from '../../core/validation.js';
import { CliError, loadConfig, parseCommandArgs, refuseDatabaseFile, withStore } from '../context.js';
import type { Output } from '../context.js';
import { writeFileAtomic } from '../../core/fs/atomic-write.js';
import { formatSuspectUserActions } from '../../core/integrity/suspect-actions.js';
import type { UsageSource } from '../../core/types.js';
import { emptyReportText } from '../empty-report.js';

/** Where usage records come from, as `--source` names them. */
const USAGE_SOURCES: readonly UsageSource[] = ['live', 'backfill'];

/** The recommendation for the report's page; none when the folder is gone and was never profiled. */
async function recommendationForPage(store: Store, project: string): Promise<Recommendation | undefined> {
  const { recommendAnswer } = await import('../../core/answers/recommend.js');
  try {
    return await recommendAnswer(store, { project });
  } catch (error) {
    if (error instanceof InputError) return undefined;
    throw error;
  }
}

export async function run(args: string[], output: Output): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    args,
    {
      project: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      period: { type: 'string' },
      tz: { type: 'string' },
      by: { type: 'string' },
      source: { type: 'string' },
      csv: { type: 'boolean', default: false },
      wide: { type: 'boolean', default: false },
      explain: { type: 'boolean', default: false },
      html: { type: 'string' },
    },
    false,
  );
  if (positionals.length > 0) throw new CliError(`takes no positional arguments, got "${positionals[0]}"`);
  if (values.json && values.csv) throw new CliError('choose one of --json and --csv');
  if (values.explain) {
    const other = [values.json && '--json', values.csv && '--csv', values.html !== undefined && '--html'].find(Boolean);
    if (other) throw new CliError(`--explain prints what the table's columns mean, as text: it takes no ${other}`);
    const { reportLegend } = await import('../../core/report/table.js');
    output.out(reportLegend());
    return;
  }
  const since = parseSince(values.since);
  const until = parseSince(values.until, '--until');
  if (since !== undefined && until !== undefined && until <= since) throw new CliError(`--until (${until}) must be after --since (${since})`);
  const period = parsePeriod(values.period);
  const timeZone = parseTimeZone(values.tz);
  if (timeZone !== undefined && period === undefined) throw new CliError('--tz only goes with --period');
  if (values.source !== undefined && !(USAGE_SOURCES as readonly string[]).includes(values.source)) {
    throw new CliError(`--source must be one of ${USAGE_SOURCES.join(', ')}, got "${values.source}"`);
  }
  const request: ReportRequest = {
    by: parseGrouping(values.by),
    ...(values.project !== undefined ? { project: path.resolve(values.project) } : {}),
    ...(since !== undefined ? { since } : {}),
    ...(until !== undefined ? { until } : {}),
    ...(period !== undefined ? { period } : {}),
    ...(timeZone !== undefined ? { timeZone } : {}),
    ...(values.source !== undefined ? { source: values.source as UsageSource } : {}),
  };
  const htmlFile = values.html === undefined ? undefined : path.resolve(values.html);
  if (htmlFile !== undefined && !fs.existsSync(path.dirname(htmlFile))) throw new CliError(`cannot write ${htmlFile}: its folder does not exist`);

  const config = loadConfig(values.db);
  if (htmlFile !== undefined) refuseDatabaseFile(htmlFile, config.databasePath, 'agent-tracker-report.html');
  const answerFrom = async (store: Store): Promise<{ answer: ReportAnswer; page: string | undefined }> => {
    const history = reportHistory(store, request);
    const prices = await reportPrices(history);
    const answer = reportAnswerFrom(store, history, request, prices);
    if (htmlFile === undefined) return { answer, page: undefined };
    // The page opens with the recommendation for the project asked for (the current folder by default).
    const recommendation = await recommendationForPage(store, request.project ?? process.cwd());
    const [{ renderHtmlReport }, { activityOverTime }] = await Promise.all([import('../../core/report/html.js'), import('../../core/report/activity.js')]);
    const setups = request.by === 'setup' ? answer : reportAnswerFrom(store, history, { ...request, by: 'setup' }, prices);
    const page = renderHtmlReport({
      report: { by: setups.by, rows: setups.rows, totals: setups.totals },
      activity: activityOverTime(history),
      filter: {
        ...(request.project ? { project: request.project } : {}),
        ...(request.since ? { since: request.since } : {}),
        ...(request.until ? { until: request.until } : {}),
        ...(request.source ? { source: request.source } : {}),
      },
      generatedAt: new Date().toISOString(),
      emptyText: emptyReportText(request),
      ...(recommendation ? { recommendation } : {}),
    });
    return { answer, page };
  };
  // The git signals are looked at in the store the report then reads (one open, the usual case);
  // only when a project's HEAD moved are they written first and the store opened again.
  const projects = request.project ? [request.project] : undefined;
  let read = await withStore(
    config,
    async (store) => {
      const moved = await projectsWithMovedSignals(store, projects);
      return moved.length > 0 ? { moved } : await answerFrom(store);
    },
    'read',
  );
  if ('moved' in read) {
    await writeGitSignals(config, read.moved);
    read = await withStore(config, answerFrom, 'read');
  }
  const { answer, page } = read;

  if (htmlFile !== undefined && page !== undefined) writeFileAtomic(htmlFile, page);
  if (values.json) {
    output.out(JSON.stringify(answer, null, 2));
  } else if (values.csv) {
    const { reportToCsv } = await import('../../core/report/table.js');
    output.out(reportToCsv(answer.rows));
  } else if (htmlFile !== undefined) {
    output.out(`Wrote the HTML report (${plural(answer.rows.length, 'setup')}) to ${htmlFile}`);
  } else if (answer.rows.length === 0) {
    output.out(emptyReportText(request));
  } else {
    const { reportToTable } = await import('../../core/report/table.js');
    output.out(reportToTable({ by: answer.by, rows: answer.rows, totals: answer.totals }, { wide: values.wide }));
  }
  const warning = values.csv || values.json ? '' : formatSuspectUserActions(answer.suspectUserActions);
  if (warning) output.out(`\n${warning}`);
}

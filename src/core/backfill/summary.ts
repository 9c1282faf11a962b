/**
 * What a backfill run did, and its one-line form: kept apart from the run so a command that only
 * prints a summary (nothing new to import) loads no importer.
 */

/**
 * The counts are what the run added to the database (with `dryRun`, what it would add): a session, a
 * message or a call read again that the database holds already counts nowhere.
 */
export interface BackfillSummary {
  source: string;
  /** Sessions the run added anything to (new ones, or the rest of one recorded live while it ran). */
  sessions: number;
  messages: number;
  toolCalls: number;
  commits: number;
  pushes: number;
  /** Sessions or parts left out, by reason. */
  skipped: Record<string, number>;
  /** The newest session update seen (epoch ms): the watermark of the next incremental import. */
  latestUpdate: number;
  dryRun: boolean;
}

/** The summary as one line: what was imported, then "skipped N: reason" per reason. */
export function summaryLine(summary: BackfillSummary): string {
  const verb = summary.dryRun ? 'Would import' : 'Imported';
  const skipped = Object.entries(summary.skipped).map(([reason, count]) => `skipped ${count}: ${reason}`);
  return [
    `${verb} ${summary.sessions} session(s), ${summary.messages} message(s), ${summary.toolCalls} tool call(s), ${summary.commits} commit(s), ${summary.pushes} push(es) from ${summary.source}`,
    ...skipped,
  ].join('; ');
}

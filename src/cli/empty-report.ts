/**
 * What `report` says when it has no rows: what is actually missing for the selection asked for,
 * and the command that fills it, rather than one sentence for every case.
 */
import fs from 'node:fs';
import type { HistoryFilter } from '../core/report/history.js';

/** The empty report's text for `filter` (a project folder that is gone is named as such). */
export function emptyReportText(filter: HistoryFilter, folderExists: (folder: string) => boolean = fs.existsSync): string {
  if (filter.project !== undefined && !folderExists(filter.project)) {
    return `The folder ${filter.project} does not exist, and no work was recorded for it. Check the path given to --project.`;
  }
  if (filter.source === 'backfill') {
    return `No backfilled sessions${filter.project ? ` for ${filter.project}` : ''}${filter.since ? ` since ${filter.since}` : ''}. Run "agent-tracker backfill" to import OpenCode's past sessions.`;
  }
  if (filter.project !== undefined) {
    return `No work recorded in ${filter.project}${filter.since ? ` since ${filter.since}` : ''}${filter.source ? ` (source ${filter.source})` : ''}. Work there in OpenCode with the agent-tracker plugin enabled, or run "agent-tracker backfill --project ${filter.project}".`;
  }
  if (filter.since !== undefined) {
    return `No work recorded since ${filter.since}${filter.source ? ` (source ${filter.source})` : ''}. Try an earlier --since.`;
  }
  return 'No work recorded yet. Work in OpenCode with the agent-tracker plugin enabled (or run "agent-tracker backfill" to import past sessions), then look again.';
}

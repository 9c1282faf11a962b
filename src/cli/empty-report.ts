/**
 * What `report` says when it has no rows: what is actually missing for the selection asked for,
 * and the command that fills it, rather than one sentence for every case.
 */
import fs from 'node:fs';
import type { HistoryFilter } from '../core/report/history.js';

/** " since X", " before Y", " between X and Y", or nothing: the time window asked for. */
function windowOf(filter: HistoryFilter): string {
  if (filter.since !== undefined && filter.until !== undefined) return ` between ${filter.since} and ${filter.until}`;
  if (filter.since !== undefined) return ` since ${filter.since}`;
  if (filter.until !== undefined) return ` before ${filter.until}`;
  return '';
}

/** How to widen the window that left nothing. */
function widerWindow(filter: HistoryFilter): string {
  if (filter.since !== undefined && filter.until !== undefined) return 'Try a wider window (--since, --until).';
  return filter.since !== undefined ? 'Try an earlier --since.' : 'Try a later --until.';
}

/** The empty report's text for `filter` (a project folder that is gone is named as such). */
export function emptyReportText(filter: HistoryFilter, folderExists: (folder: string) => boolean = fs.existsSync): string {
  if (filter.project !== undefined && !folderExists(filter.project)) {
    return `The folder ${filter.project} does not exist, and no work was recorded for it. Check the path given to --project.`;
  }
  const window = windowOf(filter);
  if (filter.source === 'backfill') {
    return `No backfilled sessions${filter.project ? ` for ${filter.project}` : ''}${window}. Run "agent-tracker backfill" to import OpenCode's past sessions.`;
  }
  const source = filter.source === 'live' ? ' (live-tracked sessions only)' : '';
  if (filter.project !== undefined) {
    return `No work recorded in ${filter.project}${window}${source}. Work there in OpenCode with the agent-tracker plugin enabled, or run "agent-tracker backfill --project ${filter.project}".`;
  }
  if (window !== '') return `No work recorded${window}${source}. ${widerWindow(filter)}`;
  if (source !== '') return 'No live-tracked sessions yet. Work in OpenCode with the agent-tracker plugin enabled, then look again.';
  return 'No work recorded yet. Work in OpenCode with the agent-tracker plugin enabled (or run "agent-tracker backfill" to import past sessions), then look again.';
}

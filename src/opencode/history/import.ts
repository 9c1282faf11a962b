/**
 * The incremental import of OpenCode's history: what the plugin runs in the background and
 * `agent-tracker backfill` runs in full. Nothing new (the store's files unchanged since the last
 * import) is known from two `stat` calls, without opening the store.
 */
import type { BackfillOptions } from '../../core/backfill/run.js';
import type { BackfillSummary } from '../../core/backfill/summary.js';
import { runBackfill } from '../../core/backfill/run.js';
import { readWatermark, WATERMARK_OVERLAP_MS, writeWatermark } from '../../core/backfill/watermark.js';
import type { TrackingService } from '../../core/tracking/service.js';
import { historySignature, openHistory } from './locate.js';

export type ImportOutcome = { upToDate: true } | { upToDate: false; summary: BackfillSummary };

/**
 * Imports what the history store at `location` (OpenCode's data folder) holds beyond the watermark.
 * With `full`, every session is read again (replays of held events add nothing).
 * @throws NoHistoryError, UnknownHistoryLayoutError, or the flush error.
 */
export async function importHistory(
  service: TrackingService,
  location: string,
  options: Omit<BackfillOptions, 'updatedAfter'> & { full?: boolean } = {},
): Promise<ImportOutcome> {
  const signature = historySignature(location);
  const mark = options.full ? undefined : readWatermark(service.store, location);
  if (mark && mark.signature === signature) return { upToDate: true };
  const source = await openHistory(location);
  try {
    const { full: _full, ...rest } = options;
    const query: BackfillOptions = mark ? { ...rest, updatedAfter: mark.updatedAt - WATERMARK_OVERLAP_MS } : rest;
    const summary = await runBackfill(service, source, query);
    // Only an import of everything moves the watermark: a filtered one (--since, --project) may have left sessions out.
    const everything = options.createdSince === undefined && options.directory === undefined && !options.dryRun;
    if (everything) writeWatermark(service.store, location, { updatedAt: summary.latestUpdate, signature, importedAt: new Date().toISOString() });
    return { upToDate: false, summary };
  } finally {
    source.close();
  }
}

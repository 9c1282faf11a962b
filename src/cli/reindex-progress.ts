/** The CLI's progress line while the prior-art index is rebuilt after an upgrade. */
import type { ReindexProgress } from '../core/search/reindex.js';
import type { Output } from './context.js';

/** A rebuild shorter than this shows nothing. */
export const QUIET_REBUILD_MS = 1_000;

/** A progress reporter for `rebuildStaleTermIndex` that writes to stderr once a second has passed. */
export function reindexProgress(output: Output): (progress: ReindexProgress) => void {
  return ({ done, total, elapsedMs }) => {
    if (elapsedMs < QUIET_REBUILD_MS) return;
    const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
    output.err(`agent-tracker: rebuilding the prior-art index for the new search rules: ${done} of ${total} entries (${percent}%)`);
  };
}

/**
 * Rebuilds the prior-art index once after an upgrade changed its search rules or layout: at the first
 * prior-art call of a session, not at plugin start (a large index takes seconds, and a session that
 * never asks for prior art should not wait for it). Until then flushes leave the stale index alone and
 * the rebuild indexes every entry.
 */
import type { Logger } from '../core/logger.js';
import { rebuildStaleTermIndex } from '../core/search/reindex.js';
import type { Store } from '../core/store/store.js';

/** Rebuilds a stale term index (one read when it is current); a failure is logged, never fatal. */
export function upgradeTermIndex(store: Store, logger: Logger): void {
  try {
    const result = rebuildStaleTermIndex(store);
    if (result.rebuilt) {
      logger.info(`agent-tracker: rebuilt the prior-art index for the new search rules (${result.documents} entries, ${Math.round(result.durationMs)} ms)`, { ...result });
    }
  } catch (error) {
    logger.error(
      `agent-tracker: rebuilding the prior-art index failed, tracking goes on: ${(error as Error).message}. ` +
        'Prior-art searches find nothing until `agent-tracker prior-art` or the next prior-art call rebuilds it.',
    );
  }
}

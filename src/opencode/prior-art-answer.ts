/**
 * The `prior-art` tool's answer, computed beside the store: the search reads many index entries and
 * may rebuild a stale index (a write), so in the plugin it runs in the store's worker thread
 * (remote/host.ts), never through per-key calls from OpenCode's main thread.
 */
import type { Logger } from '../core/logger.js';
import type { CrossProjectQuery } from '../core/projects/cross-project-search.js';
import type { Store } from '../core/store/store.js';

/** Answers a prior-art query as markdown for the model. */
export type PriorArtAnswerer = (query: CrossProjectQuery, project: string) => Promise<string>;

/** The answerer that searches `store` in this thread. */
export function localPriorArt(store: Store, logger: Logger): PriorArtAnswerer {
  return async (query, project) => {
    // One after the other: they share modules, and Jest's ESM loader races on parallel imports of them.
    const { formatCrossProjectPriorArt } = await import('../core/projects/cross-project-search.js');
    const { priorArtAnswer } = await import('../core/answers/prior-art.js');
    const { upgradeTermIndex } = await import('./term-index-upgrade.js');
    upgradeTermIndex(store, logger);
    return formatCrossProjectPriorArt(await priorArtAnswer(store, query, project));
  };
}

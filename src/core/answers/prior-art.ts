/**
 * The answer to "what worked and what failed before on work like this?", the same for the CLI, its
 * `--json`, the MCP `prior_art` tool and the `prior-art` agent tool: the project's scope first, then
 * similar projects, then their git history (src/core/projects/cross-project-search.ts).
 */
import { searchPriorArtAcrossProjects } from '../projects/cross-project-search.js';
import type { CrossProjectPriorArt, CrossProjectQuery } from '../projects/cross-project-search.js';
import { rebuildStaleTermIndex } from '../query/reindex.js';
import type { ReindexProgress } from '../query/reindex.js';
import type { Store } from '../store/store.js';

export type PriorArtAnswer = CrossProjectPriorArt;

/** @throws InputError for a bad query (empty text, a bad maximum). */
export async function priorArtAnswer(
  store: Store,
  query: CrossProjectQuery,
  project: string,
  progress?: (progress: ReindexProgress) => void,
): Promise<PriorArtAnswer> {
  // Once after an upgrade changed the search rules; a read when the index is current.
  rebuildStaleTermIndex(store, progress);
  return searchPriorArtAcrossProjects(store, query, project);
}

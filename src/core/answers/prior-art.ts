/**
 * The answer to "what worked and what failed before on work like this?", the same for the CLI, its
 * `--json`, the MCP `prior_art` tool and the `prior-art` agent tool: the project's scope first, then
 * similar projects, then their git history (src/core/projects/cross-project-search.ts). A read: an
 * index left by an earlier version is rebuilt before, in a write of its own (search/reindex.ts).
 */
import { searchPriorArtAcrossProjects } from '../projects/cross-project-search.js';
import type { CrossProjectQuery } from '../projects/cross-project-search.js';
import type { PriorArtAnswer } from '../../contract/answers.js';
import type { Store } from '../store/store.js';

export type { PriorArtAnswer } from '../../contract/answers.js';

/** @throws InputError for a bad query (empty text, a bad maximum). */
export function priorArtAnswer(store: Store, query: CrossProjectQuery, project: string): Promise<PriorArtAnswer> {
  return searchPriorArtAcrossProjects(store, query, project);
}

/**
 * The answer to "what worked and what failed before on work like this?", the same for the CLI, its
 * `--json`, the MCP `prior_art` tool and the `prior-art` agent tool: the project's scope first, then
 * similar projects, then their git history (src/core/projects/cross-project-search.ts). A read: an
 * index left by an earlier version is rebuilt before, in a write of its own (search/reindex.ts).
 */
import { searchPriorArtAcrossProjects } from '../projects/cross-project-search.js';
import type { CrossProjectQuery } from '../projects/cross-project-search.js';
import { projectKey } from '../projects/profiles.js';
import { scopeOfProject } from '../search/scope.js';
import { validatePriorArtQuery } from '../search/service.js';
import type { PriorArtAnswer } from '../../contract/answers.js';
import type { Store } from '../store/store.js';
import { InputError } from '../validation.js';

export type { PriorArtAnswer } from '../../contract/answers.js';

/** Known scopes named in the refusal of an unknown one, at most. */
const SCOPES_NAMED = 8;

/**
 * @throws InputError for a bad query (empty text, a bad maximum), an agent never tracked (other than
 * the caller itself) or a scope no project has: each would otherwise answer as if nothing matched.
 */
export async function priorArtAnswer(store: Store, query: CrossProjectQuery, project: string): Promise<PriorArtAnswer> {
  validatePriorArtQuery({ ...query, scope: query.scope ?? '' });
  if (query.agentId !== undefined && query.agentId !== query.callingAgent && !agentIsKnown(store, query.agentId)) {
    throw new InputError(`no agent named "${query.agentId}" has been tracked yet; check the name with: agent-tracker status`);
  }
  if (query.scope !== undefined) checkScope(store, query.scope.trim());
  return await searchPriorArtAcrossProjects(store, { ...query, project: projectKey(project) }, project);
}

/** An agent with a record, or with an entry in the term index. */
function agentIsKnown(store: Store, agent: string): boolean {
  return store.tables.agents.doesExist(agent) || store.tables.terms.doesExist(['n', 'agent', agent]);
}

/**
 * A scope is a project's classification scope or, for a project without one, its path (scope.ts).
 * Reads the project profiles (one per project) only when a scope is named.
 */
function checkScope(store: Store, scope: string): void {
  if (store.tables.terms.doesExist(['n', 'project', scope]) || store.tables.projects.doesExist(scope)) return;
  const known = new Set<string>();
  for (const { key } of store.tables.projects.getRange()) {
    const named = scopeOfProject(store.tables.projects, key);
    if (named === scope) return;
    if (named !== key) known.add(named);
  }
  const listed = [...known].sort().slice(0, SCOPES_NAMED);
  const choices = [...listed, 'a project path', "no scope (this project's)"].join(', ');
  throw new InputError(`no project has the scope "${scope}"; pass one of: ${choices}`);
}

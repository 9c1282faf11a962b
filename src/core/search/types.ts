/** The prior-art query and its result: what the QueryService, the agent tool and the CLI share. */
export type { PatternMatch, PriorArtResult } from '../../contract/answers.js';

/** Results per category when the query does not say. */
export const DEFAULT_MAX_RESULTS = 5;
/** The most results per category a query may ask for. */
export const MAX_RESULTS_LIMIT = 50;

/** What to search prior art for. */
export interface PriorArtQuery {
  /** The task or feature being planned; its keywords are the query. */
  taskDescription: string;
  /**
   * The scope of the work: a project's scope from its classification (e.g. "CLI", "API") or, for a
   * project not classified yet, the project path itself (see `scopeOfProject`).
   */
  scope: string;
  /** When set, only this agent's entries in `scope` count as scope-local (other agents' work there is not shown). */
  agentId?: string;
  /** The agent asking (the tool's caller): naming itself is never refused, though nothing of it may be recorded yet. */
  callingAgent?: string;
  /** The project the work is in: its entries are never cross-scope patterns, whatever `scope` says. */
  project?: string;
  /** Results per category; default DEFAULT_MAX_RESULTS. */
  maxResults?: number;
  /**
   * When set, the cross-scope pass only considers entries of these projects (for example the
   * projects found similar to this one). Scope-local results and mistakes are not narrowed.
   */
  crossScopeProjects?: readonly string[];
}


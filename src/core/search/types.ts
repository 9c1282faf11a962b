/** The prior-art query and its result: what the QueryService, the agent tool and the CLI share. */
import type { Grade, GradeProvenance } from '../types.js';
import type { EntryKind } from './documents.js';

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
  /** When set, only this agent's entries in `scope` count as scope-local. */
  agentId?: string;
  /** Results per category; default DEFAULT_MAX_RESULTS. */
  maxResults?: number;
  /**
   * When set, the cross-scope pass only considers entries of these projects (for example the
   * projects found similar to this one). Scope-local results and mistakes are not narrowed.
   */
  crossScopeProjects?: readonly string[];
}

/** One past entry that matches the query. */
export interface PatternMatch {
  source: EntryKind;
  task: string;
  notes: string;
  /** The user's grade of a retrospective; activities and commits carry none. */
  grade?: Grade;
  agentId: string;
  scope: string;
  timestamp: string;
  /** Matched keywords / all keywords of the query, 0..1 (the ranking itself is BM25). */
  relevanceScore: number;
  projectPath?: string;
  /** Who gave `grade`, when known; anything but 'user' is shown as self-graded. */
  gradedBy?: GradeProvenance;
}

/** Prior art in three categories, each ranked best first. */
export interface PriorArtResult {
  /** Positively graded (or ungraded, completed) work in the query's scope. */
  positivePatterns: PatternMatch[];
  /** The same from other scopes; searched only when the scope-local pass found fewer than maxResults. */
  crossScopePatterns: PatternMatch[];
  /** Work the user graded bad, from every scope. */
  mistakes: PatternMatch[];
}

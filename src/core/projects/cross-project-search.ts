/**
 * Prior art across projects: the QueryService search, with its cross-scope pass narrowed to the
 * known projects similar to the current one, and the git history of those projects as a fallback
 * when the database has no match at all. Every result names the project it came from
 * (`projectPath` on patterns, on git matches).
 */
import { formatPriorArt } from '../search/format.js';
import { projectName, quoteNote } from '../search/quote.js';
import { QueryService, validatePriorArtQuery, DEFAULT_MAX_RESULTS } from '../search/service.js';
import { scopeOfProject } from '../search/scope.js';
import { prefixKeywords } from '../search/tokenizer.js';
import type { PriorArtQuery } from '../search/types.js';
import type { Store } from '../store/store.js';
import { classifyProject } from './classifier.js';
import { searchGitLog } from './git-log-search.js';
import type { GitLogSearchOptions } from './git-log-search.js';
import { getProject, projectKey } from './profiles.js';
import { findSimilarProjects } from './similarity.js';
import type { CrossProjectPriorArt } from '../../contract/answers.js';
export type { CrossProjectPriorArt } from '../../contract/answers.js';

/** The query without the parts this search fills in; `scope` defaults to the project's scope. */
export type CrossProjectQuery = Omit<PriorArtQuery, 'crossScopeProjects' | 'scope'> & { scope?: string };

export interface CrossProjectOptions {
  gitLog?: GitLogSearchOptions;
}

/**
 * Searches prior art for work in `projectPath`. The project's stored profile is used, or it is
 * classified on the fly (and not stored: searching is a read). The cross-scope pass is narrowed to
 * similar projects once any are known. A bad query throws InputError
 * before anything is read from disk.
 */
export async function searchPriorArtAcrossProjects(
  store: Store,
  query: CrossProjectQuery,
  projectPath: string,
  options: CrossProjectOptions = {},
): Promise<CrossProjectPriorArt> {
  const project = projectKey(projectPath);
  const scope = query.scope ?? scopeOfProject(store.tables.projects, project);
  const valid = validatePriorArtQuery({ ...query, scope });
  // A project that cannot be classified (gone, not a folder) just has no similar projects.
  const profile = getProject(store, project) ?? (await classifyProject(project).catch(() => undefined));
  const similar = profile ? findSimilarProjects(store, profile) : [];
  const similarPaths = similar.map(({ profile: other }) => other.path);

  // With no similar project known yet, the cross-scope pass keeps searching every project.
  const result = new QueryService(store).searchPriorArt(similarPaths.length > 0 ? { ...valid, crossScopeProjects: similarPaths } : valid);
  const similarProjects = similar.map(({ profile: other, score }) => ({ path: other.path, score }));
  const found = result.positivePatterns.length + result.crossScopePatterns.length + result.mistakes.length;
  if (found > 0) return { ...result, similarProjects, gitLogMatches: [] };

  const keywords = prefixKeywords(valid.taskDescription);
  const gitLogMatches = await searchGitLog(similarPaths, keywords, valid.maxResults ?? DEFAULT_MAX_RESULTS, options.gitLog);
  return { ...result, similarProjects, gitLogMatches };
}

/** The three prior-art sections, then the git-history matches when the fallback found any. */
export function formatCrossProjectPriorArt(result: CrossProjectPriorArt): string {
  const text = formatPriorArt(result);
  if (result.gitLogMatches.length === 0) return text;
  const lines = result.gitLogMatches.map(
    (match) =>
      `- commit ${match.commitHash.slice(0, 7)} in project ${projectName(match.projectPath)}, relevance ${match.relevanceScore.toFixed(2)}\n` +
      `  > message: ${quoteNote(match.message)}`,
  );
  return `${text}\n\n### Prior Art: From Git History of Similar Projects\n\n${lines.join('\n')}`;
}

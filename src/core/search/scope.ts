/**
 * What "scope" means for prior art: the domain of the project an entry was made in, as its
 * classification states it (e.g. "CLI", "API", "CMS"). A project not classified yet (or whose scope
 * could not be determined) is its own scope, named by its path: the best we know about it is that
 * work in the same project is alike. The agent name is not a scope: one agent (`build`) works in
 * every project, so it would make "scope-local" mean "everything".
 */
import type { Table } from '../store/store.js';
import type { ProjectProfile } from '../types.js';

const UNDETERMINED_SCOPES: ReadonlySet<string> = new Set(['', 'unknown']);

/** The scope of work done in `projectPath`. Reads the project's stored profile, if any. */
export function scopeOfProject(projects: Table<ProjectProfile, string>, projectPath: string): string {
  const profile = projects.get(projectPath);
  const scope = typeof profile?.scope === 'string' ? profile.scope.trim() : '';
  return UNDETERMINED_SCOPES.has(scope.toLowerCase()) ? projectPath : scope;
}

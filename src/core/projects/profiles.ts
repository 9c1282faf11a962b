/**
 * Project profiles in the `projects` sub-database, keyed by absolute path.
 *
 * A profile is written in its own small transaction (store.putRecords) rather than through the TrackingService
 * buffer: it is written rarely (once per project, again only when it changed), never on a hook's
 * path (classification is async and runs after the hook returned), the CLI has no buffer, and the
 * caller shows the stored profile right away, so it must be durable and readable at once.
 */
import path from 'node:path';
import type { StoreAccess } from '../store/access.js';
import type { ProjectProfile } from '../types.js';

/** The key of a project: its absolute path, normalized, without a trailing separator. */
export function projectKey(projectPath: string): string {
  return path.resolve(projectPath);
}

/** The stored profile of a project, if it has one. */
export function getProject(store: StoreAccess, projectPath: string): ProjectProfile | undefined {
  return store.tables.projects.get(projectKey(projectPath));
}

/** Stores (or replaces) a profile under its path, durably, in one transaction. */
export function putProject(store: StoreAccess, profile: ProjectProfile): void {
  const stored: ProjectProfile = { ...profile, path: projectKey(profile.path), dependencies: [...profile.dependencies] };
  store.putRecords([{ table: 'projects', key: stored.path, value: stored }]);
}

/** Every stored profile in path order, at most `limit` of them. */
export function getAllProjects(store: StoreAccess, limit?: number): ProjectProfile[] {
  return [...store.tables.projects.getRange(limit === undefined ? {} : { limit })].map((entry) => entry.value);
}

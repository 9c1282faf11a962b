/**
 * Registers a project: classifies it and stores the profile. Idempotent: a project whose
 * classification (AGENTS.md hash, language, framework, scope, dependencies, manifest) is unchanged
 * keeps its stored profile untouched; a changed AGENTS.md or manifest replaces it.
 */
import type { StoreAccess } from '../store/access.js';
import type { ProjectProfile } from '../types.js';
import { classifyProject } from './classifier.js';
import type { ClassifyOptions } from './classifier.js';
import { getProject, putProject } from './profiles.js';

export type InitStatus = 'created' | 'updated' | 'unchanged';

export interface InitResult {
  status: InitStatus;
  profile: ProjectProfile;
}

/** Whether two profiles classify the project alike (the time of classification aside). */
function sameClassification(a: ProjectProfile, b: ProjectProfile): boolean {
  return (
    a.agentsmdHash === b.agentsmdHash &&
    a.language === b.language &&
    a.framework === b.framework &&
    a.scope === b.scope &&
    a.manifestType === b.manifestType &&
    a.dependencies.length === b.dependencies.length &&
    a.dependencies.every((name, index) => name === b.dependencies[index])
  );
}

/** Classifies the project and stores its profile when it is new or changed. */
export async function initProject(store: StoreAccess, projectPath: string, options: ClassifyOptions = {}): Promise<InitResult> {
  const profile = await classifyProject(projectPath, options);
  const stored = getProject(store, profile.path);
  if (stored && sameClassification(stored, profile)) return { status: 'unchanged', profile: stored };
  putProject(store, profile);
  return { status: stored ? 'updated' : 'created', profile };
}

/** Classifies and stores the project only when it has no profile yet; returns the new profile. */
export async function profileIfMissing(store: StoreAccess, projectPath: string, options: ClassifyOptions = {}): Promise<ProjectProfile | undefined> {
  if (getProject(store, projectPath)) return undefined;
  return (await initProject(store, projectPath, options)).profile;
}

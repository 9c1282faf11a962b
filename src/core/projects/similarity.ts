/**
 * How alike two projects are, from 0 to 1: same language, same framework, same scope, and the
 * share of dependencies they have in common. "unknown" never counts as a match.
 */
import type { StoreAccess } from '../store/access.js';
import { UNKNOWN } from '../types.js';
import type { ProjectProfile } from '../types.js';
import { getAllProjects, projectKey } from './profiles.js';

export const SIMILARITY_WEIGHTS = {
  language: 0.4,
  framework: 0.3,
  scope: 0.2,
  /** Scaled by shared / max(dependencies of either). */
  dependencies: 0.1,
} as const;

/** Projects scoring at least this are "similar". */
export const SIMILARITY_THRESHOLD = 0.3;

/** Scores are rounded to this many decimals so 0.4 + 0.3 + 0.2 + 0.1 is exactly 1. */
const SCORE_DECIMALS = 6;

function sameKnown(a: string, b: string): boolean {
  const left = a.trim().toLowerCase();
  return left !== '' && left !== UNKNOWN && left === b.trim().toLowerCase();
}

function sharedDependencyShare(a: readonly string[], b: readonly string[]): number {
  const larger = Math.max(a.length, b.length);
  if (larger === 0) return 0;
  const left = new Set(a.map((name) => name.toLowerCase()));
  const shared = new Set(b.map((name) => name.toLowerCase()).filter((name) => left.has(name))).size;
  return shared / larger;
}

/** The similarity of two profiles, 0.0 to 1.0. */
export function scoreSimilarity(a: ProjectProfile, b: ProjectProfile): number {
  const w = SIMILARITY_WEIGHTS;
  const total =
    (sameKnown(a.language, b.language) ? w.language : 0) +
    (sameKnown(a.framework, b.framework) ? w.framework : 0) +
    (sameKnown(a.scope, b.scope) ? w.scope : 0) +
    w.dependencies * sharedDependencyShare(a.dependencies, b.dependencies);
  const factor = 10 ** SCORE_DECIMALS;
  return Math.min(1, Math.round(total * factor) / factor);
}

export interface SimilarProject {
  profile: ProjectProfile;
  score: number;
}

export interface FindSimilarOptions {
  /** Defaults to SIMILARITY_THRESHOLD. */
  threshold?: number;
  limit?: number;
}

/**
 * The stored projects similar to `profile` (itself excluded), most similar first. Reads every
 * profile: there is one per project folder, a small table next to the journals.
 */
export function findSimilarProjects(store: StoreAccess, profile: ProjectProfile, options: FindSimilarOptions = {}): SimilarProject[] {
  const threshold = options.threshold ?? SIMILARITY_THRESHOLD;
  const self = projectKey(profile.path);
  const similar: SimilarProject[] = [];
  for (const other of getAllProjects(store)) {
    if (other.path === self) continue;
    const score = scoreSimilarity(profile, other);
    if (score >= threshold) similar.push({ profile: other, score });
  }
  similar.sort((x, y) => y.score - x.score || x.profile.path.localeCompare(y.profile.path));
  return options.limit === undefined ? similar : similar.slice(0, options.limit);
}

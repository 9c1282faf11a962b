/**
 * The recommendation for a project folder, wired to the store: classify the target (or fall back
 * to its stored profile when the folder is gone), read all history and every stored profile, and
 * rank setups with the project similarity score.
 */
import { classifyProject } from '../projects/classifier.js';
import { getAllProjects, getProject, projectKey } from '../projects/profiles.js';
import { scoreSimilarity } from '../projects/similarity.js';
import type { StoreAccess } from '../store/access.js';
import { UNKNOWN } from '../types.js';
import type { ProjectProfile } from '../types.js';
import { loadHistory } from './history.js';
import { recommendSetups } from './recommend.js';
import { loadPriceCatalog } from './recommend-prices.js';
import { backtestRecommendations } from './recommend-backtest.js';
import type { Backtest } from './recommend-backtest.js';
import type { Preference, Recommendation } from './recommend.js';

/** Whether a profile says nothing of its project: no language, framework, scope or dependency known. */
function knowsNothing(profile: ProjectProfile): boolean {
  return profile.language === UNKNOWN && profile.framework === UNKNOWN && profile.scope === UNKNOWN && profile.dependencies.length === 0;
}

/**
 * The target's profile: classified now, else the stored one (the folder is gone, or it says nothing
 * of itself now while the stored profile does: imported from another machine, or made before its
 * manifest moved). @throws InputError when neither exists.
 */
export async function targetProfile(store: StoreAccess, projectPath: string): Promise<ProjectProfile> {
  const key = projectKey(projectPath);
  let classified: ProjectProfile;
  try {
    classified = await classifyProject(key);
  } catch (error) {
    const stored = getProject(store, key);
    if (stored) return stored;
    throw error;
  }
  if (!knowsNothing(classified)) return classified;
  const stored = getProject(store, key);
  return stored && !knowsNothing(stored) ? stored : classified;
}

/** Recommends a model per role for the project at `projectPath`. */
export async function recommendForProject(store: StoreAccess, projectPath: string, prefer?: Preference): Promise<Recommendation> {
  const target = await targetProfile(store, projectPath);
  const profiles = new Map(getAllProjects(store).map((profile) => [profile.path, profile]));
  // Without the catalog (a damaged install) usage stored at cost 0 stays of unknown cost, never free.
  const estimateCost = await loadPriceCatalog().catch(() => undefined);
  return recommendSetups({ target, history: loadHistory(store), profiles, similarity: scoreSimilarity, ...(estimateCost ? { estimateCost } : {}), ...(prefer ? { prefer } : {}) });
}

/** Replays the whole history in time order: would following recommend have gone better? */
export async function backtestForStore(store: StoreAccess, prefer?: Preference): Promise<Backtest> {
  const profiles = new Map(getAllProjects(store).map((profile) => [profile.path, profile]));
  const estimateCost = await loadPriceCatalog().catch(() => undefined);
  return backtestRecommendations({ history: loadHistory(store), profiles, similarity: scoreSimilarity, ...(estimateCost ? { estimateCost } : {}), ...(prefer ? { prefer } : {}) });
}

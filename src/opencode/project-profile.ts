/**
 * Profiles the plugin's project in the background the first time a session starts there, when
 * the database has no profile for it yet (a profile it has is found with one key read, before the
 * classifier loads). Scheduled after the hook returns, so session start never
 * waits for file reads; failures are logged, never thrown.
 */
import type { Logger } from '../core/logger.js';
import { getProject } from '../core/projects/profiles.js';
import { StoreNotWritableError } from '../core/store/store-errors.js';
import { storeOpening } from '../core/store/access.js';
import type { StoreAccess } from '../core/store/access.js';
import type { ProjectProfile } from '../core/types.js';

/** Projects already being profiled or profiled by this process, per database. */
const started = new Set<string>();

export interface BackgroundProfilerOptions {
  store: StoreAccess;
  project: string;
  logger: Logger;
}

/** Returns a trigger that profiles the project once per process, after the current hook returns. */
export function backgroundProfiler(options: BackgroundProfilerOptions): () => void {
  const { store, project, logger } = options;
  const key = `${store.path}\u0000${project}`;
  const profile = async (): Promise<ProjectProfile | undefined> => {
    await storeOpening(store);
    // Profiled before (the usual case): one key read, and the classifier never loads.
    if (getProject(store, project)) return undefined;
    // Loaded here, not at plugin start: classification pulls in the manifest parsers.
    const { profileIfMissing } = await import('../core/projects/init-project.js');
    return profileIfMissing(store, project);
  };
  return () => {
    if (started.has(key)) return;
    started.add(key);
    setImmediate(() => {
      profile()
        .then((registered) => {
          if (registered) logger.info(`agent-tracker: registered project ${registered.path} (${registered.language}, ${registered.framework})`);
        })
        .catch((error: unknown) => {
          started.delete(key); // a later session may try again
          // A store not open for writing was reported to the user once, when that was found out.
          if (error instanceof StoreNotWritableError) return;
          logger.warn(`agent-tracker: could not classify project ${project}: ${(error as Error).message}`);
        });
    });
  };
}

/**
 * Brings the project's git signals (commits later reverted or followed by a fix) up to date in the
 * background when a session starts: after the hook returns, one run at a time; the next flush writes
 * what it found. A project without a tracked commit has none to look for: then neither git nor the
 * signal modules load (one key seek). Failures are logged, never thrown.
 */
import type { Logger } from '../core/logger.js';
import type { TrackingService } from '../core/tracking/service.js';
import { storeOpening } from '../core/store/access.js';
import type { StoreAccess } from '../core/store/access.js';

/** Returns a trigger that refreshes the project's git signals off the hook's path. */
export function backgroundGitSignals(service: TrackingService<StoreAccess>, project: string, logger: Logger): () => void {
  let running = false;
  const refresh = async (): Promise<void> => {
    // A session's first sign starts the store: its open is waited for, or the record would read empty.
    await storeOpening(service.store);
    if (!service.hasTrackedCommits(project)) return;
    // Loaded here, not at plugin start.
    const { refreshGitSignals } = await import('../core/outcomes/git-outcomes.js');
    await refreshGitSignals(service, project);
  };
  return () => {
    if (running) return;
    running = true;
    setImmediate(() => {
      refresh()
        .catch((error: unknown) => logger.warn(`agent-tracker: could not read git signals of ${project}: ${(error as Error).message}`))
        .finally(() => {
          running = false;
        });
    });
  };
}

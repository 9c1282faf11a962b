/**
 * Brings the git signals (reverts, follow-up fixes) of projects up to date before a command reads
 * them, so `report` and `recommend` never answer from signals as old as the last session start.
 * Once per new HEAD per project; a folder that is gone or no repository simply has none.
 */
import type { TrackerConfig } from '../core/config.js';
import { silentLogger } from '../core/logger.js';
import type { Store } from '../core/store/store.js';
import { TrackingService } from '../core/tracking/service.js';

/** Refreshes each project's git signals and writes them in one flush. */
export async function refreshProjectGitSignals(store: Store, config: TrackerConfig, projects: Iterable<string>): Promise<void> {
  const { refreshGitSignals } = await import('../core/outcomes/git-outcomes.js');
  const service = new TrackingService({ store, config, logger: silentLogger, project: process.cwd() });
  for (const project of new Set(projects)) await refreshGitSignals(service, project);
  const outcome = service.flush('git signals');
  if (!outcome.ok) throw outcome.error;
}

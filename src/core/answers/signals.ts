/**
 * Before a question about outcomes is answered, the git signals (reverts, follow-up fixes) of the
 * projects it covers are brought up to date, whichever surface asks: the CLI, the MCP server, the
 * agent tools or the HTML page. Once per new HEAD per project; a folder that is gone has none.
 */
import type { TrackingService } from '../tracking/service.js';
import type { StoreAccess } from '../store/access.js';

/** Refreshes each project's git signals through `recorder` and writes them in one flush. */
export async function refreshSignals(recorder: TrackingService<StoreAccess>, projects: Iterable<string>): Promise<void> {
  const { refreshGitSignalsOf } = await import('../outcomes/git-outcomes.js');
  await refreshGitSignalsOf(recorder, projects);
  const outcome = recorder.flush('git signals');
  if (!outcome.ok) throw outcome.error;
}

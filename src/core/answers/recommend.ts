/**
 * The answer to "which model should each agent use on this project?", the same for `recommend`, its
 * `--json`, the MCP `recommend` tool, the `recommend-setup` agent tool and the HTML page. Every
 * surface brings the git signals up to date first: the CLI and MCP server before they open the
 * database to read (src/cli/git-signals.ts), a process that already records through the recorder
 * (the plugin) with `refreshedRecommendAnswer`.
 */
import { loadHistory } from '../report/history.js';
import { recommendForProject, targetProfile } from '../report/recommend-project.js';
import type { Preference } from '../report/recommend.js';
import type { RecommendAnswer } from '../../contract/answers.js';
import type { StoreAccess } from '../store/access.js';
import type { TrackingService } from '../tracking/service.js';
import { refreshSignals } from './signals.js';

export interface RecommendRequest {
  /** The project folder (absolute). */
  project: string;
  prefer?: Preference;
}

export type { RecommendAnswer } from '../../contract/answers.js';

/** @throws InputError when the project can be neither classified nor found among the stored profiles. */
export function recommendAnswer(store: StoreAccess, request: RecommendRequest): Promise<RecommendAnswer> {
  return recommendForProject(store, request.project, request.prefer);
}

/**
 * The answer after the recorder brought every project's git signals up to date.
 * @throws InputError as `recommendAnswer`, before anything is written.
 */
export async function refreshedRecommendAnswer(recorder: TrackingService<StoreAccess>, request: RecommendRequest): Promise<RecommendAnswer> {
  await targetProfile(recorder.store, request.project);
  await refreshSignals(recorder, loadHistory(recorder.store).usage.map((record) => record.project));
  return recommendAnswer(recorder.store, request);
}

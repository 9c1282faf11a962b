/**
 * The answer to "which model should each agent use on this project?", the same for `recommend`, its
 * `--json`, the MCP `recommend` tool, the `recommend-setup` agent tool and the HTML page: the git
 * signals of every project in the history are brought up to date first, then the ranking runs.
 */
import { loadHistory } from '../report/history.js';
import { recommendForProject, targetProfile } from '../report/recommend-project.js';
import type { Preference, Recommendation } from '../report/recommend.js';
import type { TrackingService } from '../tracking/service.js';
import { refreshSignals } from './signals.js';

export interface RecommendRequest {
  /** The project folder (absolute). */
  project: string;
  prefer?: Preference;
}

export type RecommendAnswer = Recommendation;

/** @throws InputError when the project can be neither classified nor found among the stored profiles (then nothing is written). */
export async function recommendAnswer(recorder: TrackingService, request: RecommendRequest): Promise<RecommendAnswer> {
  // The target first: a project that cannot be answered for is refused before anything is refreshed.
  await targetProfile(recorder.store, request.project);
  await refreshSignals(recorder, loadHistory(recorder.store).usage.map((record) => record.project));
  return recommendForProject(recorder.store, request.project, request.prefer);
}

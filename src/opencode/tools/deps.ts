/** What every agent tool may use. */
import type { Logger } from '../../core/logger.js';
import type { TrackingService } from '../../core/tracking/service.js';
import type { StoreAccess } from '../../core/store/access.js';
import type { AgentStatus } from '../../core/types.js';
import type { PriorArtAnswerer } from '../prior-art-answer.js';

export interface ToolContextDeps {
  service: TrackingService<StoreAccess>;
  logger: Logger;
  /** The project folder, for resolving HEAD and attributing records. */
  project: string;
  /** Renders an agent's status for the model (the player sheet), with the models it worked with when known. */
  renderStatus: (status: AgentStatus, models?: readonly string[]) => string;
  /** The prior-art search, run where the store is (the plugin's worker thread). */
  priorArt: PriorArtAnswerer;
}

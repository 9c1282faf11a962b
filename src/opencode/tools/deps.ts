/** What every agent tool may use. */
import type { Logger } from '../../core/logger.js';
import type { TrackingService } from '../../core/tracking/service.js';
import type { AgentStatus } from '../../core/types.js';

export interface ToolContextDeps {
  service: TrackingService;
  logger: Logger;
  /** The project folder, for resolving HEAD and attributing records. */
  project: string;
  /** Renders an agent's status for the model (the player sheet). */
  renderStatus: (status: AgentStatus) => string;
}

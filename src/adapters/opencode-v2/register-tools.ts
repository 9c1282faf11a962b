/** Registers the tracker's agent tools with OpenCode 2 (`ctx.tool.transform`), with the same status text as version 1. */
import type { Logger } from '../../core/logger.js';
import type { StoreAccess } from '../../core/store/access.js';
import type { TrackingService } from '../../core/tracking/service.js';
import type { AgentStatus } from '../../core/types.js';
import { createTools } from '../../opencode/tools/index.js';
import type { PriorArtAnswerer } from '../../opencode/prior-art-answer.js';
import type { V2Context, V2Registration } from './host-types.js';
import { asV2Tool } from './tools.js';

/** A plain status for the model: the sheet renderer of version 1 draws on the TUI's toast machinery. */
function plainStatus(status: AgentStatus): string {
  return JSON.stringify(status, null, 2);
}

export async function registerTools(
  ctx: V2Context,
  service: TrackingService<StoreAccess>,
  logger: Logger,
  project: string,
  priorArt: PriorArtAnswerer,
): Promise<{ names: string[]; registration: V2Registration }> {
  const definitions = createTools({ service, logger, project, renderStatus: plainStatus, priorArt });
  const names = Object.keys(definitions);
  const registration = await ctx.tool.transform((editor) => {
    for (const [name, definition] of Object.entries(definitions)) editor.add(asV2Tool(name, definition, project));
  });
  return { names, registration };
}

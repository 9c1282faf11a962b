/**
 * All agent tools, by name. Each group lives in its own file; this is the one list of names, so
 * the tracker's own tools earn no XP and are never refused for a halted agent.
 */
import type { ToolDefinition } from '@opencode-ai/plugin';
import type { ToolContextDeps } from './deps.js';
import { priorArtTools } from './prior-art.js';
import { projectTools } from './projects.js';
import { recommendTools } from './recommend.js';
import { stateTools } from './state.js';

export type { ToolContextDeps } from './deps.js';

export function createTools(deps: ToolContextDeps): Record<string, ToolDefinition> {
  return {
    ...stateTools(deps),
    ...priorArtTools(deps),
    ...projectTools(deps),
    ...recommendTools(deps),
  };
}

/** The names of the tracker's own tools; every group's tool names belong here. */
export const TOOL_NAMES: readonly string[] = [
  'agent-status',
  'grade-commit',
  'report-bug',
  'log-activity',
  'prior-art',
  'recommend-setup',
  'init-project',
];

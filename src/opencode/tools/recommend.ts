/**
 * The `recommend-setup` tool: which agent × model setup has done best on projects like this one,
 * from the recorded history. Read-only; plain markdown for the model.
 */
import path from 'node:path';
import { tool } from '@opencode-ai/plugin/tool';
import type { ToolDefinition } from '@opencode-ai/plugin';
import { formatRecommendation } from '../../core/report/recommend-text.js';
import type { ToolContextDeps } from './deps.js';

const z = tool.schema;

export function recommendTools(deps: ToolContextDeps): Record<string, ToolDefinition> {
  return {
    'recommend-setup': tool({
      description:
        'Recommend the agent and model setup for a project from the tracked history: setups ranked by grades, bugs per commit, ' +
        'tool failures and cost, on projects like this one, with the number of commits behind each score.',
      args: { project: z.string().optional().describe('Project folder; defaults to the current project') },
      async execute(args) {
        const project = path.resolve(deps.project, args.project?.trim() || '.');
        // What this session recorded so far counts too.
        deps.service.flush('recommend-setup');
        // Loaded on first use, not at plugin start: classification pulls in the manifest parsers.
        const { recommendForProject } = await import('../../core/report/recommend-project.js');
        return formatRecommendation(await recommendForProject(deps.service.store, project));
      },
    }),
  };
}

/**
 * The `recommend-setup` tool: for each agent (role), which model has done best on projects like this
 * one, from the recorded history — the same answer as `agent-tracker recommend`. Read-only: it never
 * applies the answer to any config (only the user's `recommend --apply` does). Plain markdown for the model.
 */
import path from 'node:path';
import type { ToolDefinition } from '@opencode-ai/plugin';
import { defineTool } from './define.js';
import type { ToolContextDeps } from './deps.js';

export function recommendTools(deps: ToolContextDeps): Record<string, ToolDefinition> {
  return {
    'recommend-setup': defineTool({
      description:
        'Recommend a model per agent (role) for a project from the tracked history, on projects like this one: the user\'s grades ' +
        'first, then reverts, follow-up fixes, undo, tests, bugs and tool failures, then self-grades; each pick with an 80% interval, ' +
        'its runner-up, how sure it is, cost per accepted commit, and setups worth trying next. Shows the answer; never changes any config.',
      args: (a) => ({
        project: a.optionalText('Project folder; defaults to the current project'),
        prefer: a.optionalChoice(['quality', 'balanced', 'cheap'], 'Trade outcome against cost per accepted commit; default balanced'),
      }),
      async execute(args) {
        const project = path.resolve(deps.project, args.project?.trim() || '.');
        // What this session recorded so far counts too.
        deps.service.flush('recommend-setup');
        // Loaded on first use, not at plugin start: classification pulls in the manifest parsers.
        const [{ refreshedRecommendAnswer }, { formatRecommendation }] = await Promise.all([
          import('../../core/answers/recommend.js'),
          import('../../core/report/recommend-text.js'),
        ]);
        // The same answer as `agent-tracker recommend`: git signals refreshed first, then the ranking.
        return formatRecommendation(await refreshedRecommendAnswer(deps.service, { project, ...(args.prefer ? { prefer: args.prefer } : {}) }));
      },
    }),
  };
}

/**
 * The `prior-art` tool: what worked and what failed before on work like the task being planned.
 * The planning skill tells agents to call it while brainstorming and planning.
 */
import type { ToolDefinition } from '@opencode-ai/plugin';
// The limits only: the search itself loads on first use.
import { DEFAULT_MAX_RESULTS, MAX_RESULTS_LIMIT } from '../../core/search/types.js';
import { defineTool } from './define.js';
import type { ToolContextDeps } from './deps.js';

export function priorArtTools(deps: ToolContextDeps): Record<string, ToolDefinition> {
  return {
    'prior-art': defineTool({
      description:
        'Search the tracked history of all projects for prior art on a task. Call it at the start of brainstorming or ' +
        'planning a feature, fix or refactor, before choosing an approach, with a one-line description of the task. ' +
        "Returns markdown: positive patterns from this project's scope (work the user graded good or excellent, " +
        'journal entries, commits), cross-scope patterns from other projects when this scope has few, and mistakes to ' +
        'avoid (work graded bad and reported bugs, from any project). Build on what worked; say in the plan how you avoid the mistakes.',
      args: (a) => ({
        task: a.text('The task or feature being planned, in a sentence: its keywords are the query'),
        scope: a.optionalText("Scope to search first; defaults to this project's scope"),
        agent: a.optionalText("Only count this agent's work as scope-local"),
        maxResults: a.optionalNumber(`Results per section, 1 to ${MAX_RESULTS_LIMIT}; default ${DEFAULT_MAX_RESULTS}`),
      }),
      async execute(args, context) {
        const query = {
          taskDescription: args.task,
          callingAgent: context.agent,
          ...(args.scope?.trim() ? { scope: args.scope.trim() } : {}),
          ...(args.agent?.trim() ? { agentId: args.agent.trim() } : {}),
          ...(args.maxResults === undefined ? {} : { maxResults: args.maxResults }),
        };
        // Where the store is: in the plugin, its worker thread (an index left by an earlier version is rebuilt there, once).
        return deps.priorArt(query, deps.project);
      },
    }),
  };
}

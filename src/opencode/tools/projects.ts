/**
 * The project tool: `init-project` classifies the current project (AGENTS.md and manifests),
 * stores its profile for cross-project learning, and names the known projects most like it.
 */
import type { ToolDefinition } from '@opencode-ai/plugin';
import { defineTool } from './define.js';
import type { ToolContextDeps } from './deps.js';

/** How many similar projects the tool names. */
const SIMILAR_SHOWN = 5;

export function projectTools(deps: ToolContextDeps): Record<string, ToolDefinition> {
  return {
    'init-project': defineTool({
      description:
        'Register the current project for cross-project learning: classify its language, framework, scope and ' +
        'dependencies from AGENTS.md and its manifest, store the profile, and list similar known projects. ' +
        'Safe to run again; it updates the profile when AGENTS.md or the manifest changed.',
      args: () => ({}),
      async execute() {
        const store = deps.service.store;
        // Loaded on first use, not at plugin start: classification pulls in the manifest parsers.
        const [{ initProject }, { describeProfile }, { findSimilarProjects }] = await Promise.all([
          import('../../core/projects/init-project.js'),
          import('../../core/projects/describe.js'),
          import('../../core/projects/similarity.js'),
        ]);
        const { status, profile } = await initProject(store, deps.project);
        return describeProfile(profile, status, findSimilarProjects(store, profile, { limit: SIMILAR_SHOWN }));
      },
    }),
  };
}

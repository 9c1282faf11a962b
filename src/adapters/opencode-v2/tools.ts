/**
 * The tracker's agent tools on OpenCode 2: the same definitions version 1 registers (src/opencode/tools),
 * handed to the host through `ctx.tool.transform`. Their input is the zod object of the version-1
 * arguments (zod is a Standard Schema, which `Tool.Info.input` accepts); their text becomes the result.
 */
import type { ToolContext, ToolDefinition } from '@opencode-ai/plugin/tool';
import { object } from 'zod/mini';
import type { V2ToolInfo, V2ToolResult } from './host-types.js';

/** What a version-1 tool returns: its text, or an object carrying `output` text. */
function asResult(value: unknown): V2ToolResult {
  if (typeof value === 'string') return { content: value };
  if (typeof value === 'object' && value !== null && typeof (value as { output?: unknown }).output === 'string') return { content: (value as { output: string }).output };
  return { content: String(value) };
}

/** The version-1 tool `definition`, named `name`, as an OpenCode 2 tool; `project` stands for the directories. */
export function asV2Tool(name: string, definition: ToolDefinition, project: string): V2ToolInfo {
  let input: unknown;
  return {
    name,
    description: definition.description,
    get input(): unknown {
      input ??= object(definition.args);
      return input;
    },
    execute: async (args, context) => {
      const v1Context: ToolContext = {
        sessionID: context.sessionID,
        messageID: context.messageID,
        agent: context.agent,
        directory: project,
        worktree: project,
        abort: context.signal ?? new AbortController().signal,
        metadata: () => undefined,
        ask: () => Promise.resolve(),
      };
      return asResult(await definition.execute(args as Parameters<ToolDefinition['execute']>[0], v1Context));
    },
  };
}

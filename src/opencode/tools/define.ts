/**
 * `defineTool`: the plugin's tool definitions, with argument schemas built on first read.
 *
 * OpenCode takes the `tool` map when the plugin starts but reads each tool's `args` only when it first
 * lists the tools (observed with opencode 1.18.33: at the first prompt or tool listing, not at instance
 * start). zod, which the schemas are made of, is about a third of the plugin's import time, so it is
 * loaded then, once per process, instead of on every start. The host reads `args` synchronously, hence
 * `require` (zod ships a CommonJS build; Bun and Node both load it). The host only checks that each
 * value is a zod schema (`"_zod" in value`) and wraps them with its own zod, so which copy built them
 * does not matter.
 */
import { createRequire } from 'node:module';
import type { ToolContext, ToolDefinition, ToolResult } from '@opencode-ai/plugin/tool';
import type { z as Zod } from 'zod';

/** The zod namespace tool schemas are written with (what `tool.schema` is in `@opencode-ai/plugin`). */
export type SchemaBuilder = typeof Zod;

let zod: SchemaBuilder | undefined;

function loadZod(): SchemaBuilder {
  zod ??= (createRequire(import.meta.url)('zod') as { z: SchemaBuilder }).z;
  return zod;
}

/** Like `tool()` from `@opencode-ai/plugin`, with `args` given as a function of zod, called on the first read of `args`. */
export function defineTool<Args extends Zod.ZodRawShape>(spec: {
  description: string;
  args: (z: SchemaBuilder) => Args;
  execute(args: Zod.infer<Zod.ZodObject<Args>>, context: ToolContext): Promise<ToolResult>;
}): ToolDefinition {
  let args: Args | undefined;
  return {
    description: spec.description,
    get args(): Args {
      args ??= spec.args(loadZod());
      return args;
    },
    execute: spec.execute,
  } as ToolDefinition;
}

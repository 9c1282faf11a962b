/**
 * OpenCode 2's hooks, translated into the same TrackingService calls version 1's hooks make
 * (src/opencode/hooks.ts): never decides. Tool calls are keyed by the host's message id and call id.
 * Every handler fails open (logged, never a failed tool call) except a deliberate refusal and the
 * output masking, which fails closed.
 */
import { bashGitEffects, checkToolCall, EDITING_TOOLS, guarded, onceStoreOpen } from '../../opencode/hooks.js';
import type { HookContext } from '../../opencode/hooks.js';
import { exitCode, isDict, promptText, str, toolCallKey } from './events.js';
import type { V2ModelRequest, V2Prompt, V2ToolAfter, V2ToolBefore } from './host-types.js';
import { maskToolResult } from './mask-result.js';

/** Request kinds that are not an agent's work (version 1: the `title` agent). */
const NOT_WORK: ReadonlySet<string> = new Set(['title', 'compaction']);

/** The same context as version 1's hooks (the `/grade` command comes through the tool transform here). */
export type V2HookContext = Omit<HookContext, 'onGradeCommand'>;

export interface V2Handlers {
  'execute.before': (input: V2ToolBefore) => Promise<void>;
  'execute.after': (input: V2ToolAfter) => Promise<void>;
  'model.request': (input: V2ModelRequest) => Promise<void>;
  prompt: (input: V2Prompt) => Promise<void>;
}

function stringInput(input: unknown, name: string): string | undefined {
  return isDict(input) ? str(input[name]) : undefined;
}

export function createV2Handlers(ctx: V2HookContext): V2Handlers {
  const { service, logger } = ctx;
  const gitEffects = bashGitEffects(ctx);

  const trackToolCall = guarded(logger, 'execute.after', (input: V2ToolAfter) => {
    const key = toolCallKey(input.messageID, input.id);
    // A completed bash call without an exit code in its metadata exited 0; a failed one says so in the error's metadata.
    const exit = input.status === 'completed' ? (exitCode(input.result.metadata) ?? (input.tool === 'bash' ? 0 : undefined)) : exitCode(input.error.metadata);
    const ok = input.status === 'completed' && (exit === undefined || exit === 0);
    const command = input.tool === 'bash' ? stringInput(input.input, 'command') : undefined;
    service.recordToolCall(input.sessionID, key, input.tool, ok, command === undefined ? {} : { command });
    if (input.tool === 'bash') service.recordShellCommand(input.sessionID, command ?? '', exit, { eventId: key });
    const file = EDITING_TOOLS.has(input.tool) ? stringInput(input.input, 'filePath') : undefined;
    if (file) service.noteFileEdited(input.sessionID, file);
    if (ctx.editsTrackerFiles?.(input.tool, input.input)) service.noteTrackerFileEdit(input.sessionID);
    return gitEffects.after(key, input.sessionID, command, ok, key);
  });

  return {
    // The same checks as version 1's, failing closed, once the store's open has ended.
    'execute.before': guarded(logger, 'execute.before', (input: V2ToolBefore) =>
      onceStoreOpen(service.store, () => {
        if (ctx.ownTools.has(input.tool)) return undefined;
        checkToolCall(ctx, input.sessionID, input.tool, input.input);
        const command = input.tool === 'bash' ? stringInput(input.input, 'command') : undefined;
        return gitEffects.before(toolCallKey(input.messageID, input.id), command);
      }),
    ),

    // Masking first and outside the guard: it fails closed on its own, tracking fails open.
    'execute.after': (input: V2ToolAfter) => {
      const masking = input.status === 'completed' && ctx.maskOutput ? maskToolResult(input.result, ctx.maskOutput) : undefined;
      return masking ? masking.then(() => trackToolCall(input)) : trackToolCall(input);
    },

    'model.request': guarded(logger, 'model.request', (input: V2ModelRequest) => {
      if (NOT_WORK.has(input.kind)) return;
      const provider = input.model?.providerID;
      const id = input.model?.id;
      if (!provider || !id) return;
      service.noteModelRequest(input.sessionID, input.agent, `${provider}/${id}`);
    }),

    prompt: guarded(logger, 'prompt', (input: V2Prompt) => {
      const text = promptText(input.prompt);
      if (text) service.noteTurnTask(input.sessionID, text, input.messageID);
    }),
  };
}

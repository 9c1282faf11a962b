/**
 * The part of OpenCode 2's plugin contract this adapter uses, written here from the published types
 * (anomalyco/opencode packages/plugin/src/promise/plugin.ts, tool.ts, session.ts, event.ts,
 * registration.ts, command.ts; packages/schema/src/session-event.ts, tool.ts, event.ts). No import of
 * the version-2 plugin package: the same module must load under version 1, where it is absent.
 * Everything a hook hands over is narrowed where it is read; these types say what is expected.
 */

/** `Registration`: what every hook registration resolves to. */
export interface V2Registration {
  readonly dispose: () => Promise<void>;
}

/** `Model.Ref`: which model a request goes to. */
export interface V2ModelRef {
  readonly id: string;
  readonly providerID: string;
  readonly variant?: string;
}

/** `Tool.Content`: a piece of a tool's result. */
export type V2ToolContent = { type: 'text'; text: string } | { type: 'file'; uri: string; mime: string; name?: string };

/** `Tool.Result`: what a tool returns; `content` may be a string, a list of parts, or missing. */
export interface V2ToolResult {
  output?: unknown;
  content?: string | readonly V2ToolContent[];
  metadata?: Readonly<Record<string, unknown>>;
}

interface V2ToolCallBase {
  tool: string;
  readonly sessionID: string;
  readonly agent: string;
  readonly messageID: string;
  readonly id: string;
}

/** `execute.before`: the call's input may be rewritten; a throw refuses the call. */
export interface V2ToolBefore extends V2ToolCallBase {
  input: unknown;
}

/** `execute.after`: `completed` carries the (rewritable) result, `error` the error. */
export type V2ToolAfter = V2ToolCallBase & { readonly input: unknown } & (
    | { readonly status: 'completed'; result: V2ToolResult }
    | { readonly status: 'error'; error: { message?: string; metadata?: Readonly<Record<string, unknown>> } }
  );

/** `SessionRequestKind`: only `primary` and `generate` requests are an agent's work. */
export type V2RequestKind = 'primary' | 'compaction' | 'title' | 'generate';

/** `SessionModelRequest`. */
export interface V2ModelRequest {
  readonly sessionID: string;
  readonly agent: string;
  readonly model: V2ModelRef;
  readonly kind: V2RequestKind;
}

/** `SessionPrompt`: the user's prompt as it enters the session. */
export interface V2Prompt {
  readonly sessionID: string;
  readonly messageID: string;
  prompt: unknown;
}

/** The hook registrations used here (`ctx.tool.hook`, `ctx.session.hook`). */
export interface V2ToolDomain {
  readonly hook: {
    (name: 'execute.before', callback: (input: V2ToolBefore) => Promise<void> | void): Promise<V2Registration>;
    (name: 'execute.after', callback: (input: V2ToolAfter) => Promise<void> | void): Promise<V2Registration>;
  };
  readonly transform: (callback: (editor: V2ToolEditor) => void) => Promise<V2Registration>;
}

export interface V2SessionDomain {
  readonly hook: {
    (name: 'model.request', callback: (input: V2ModelRequest) => Promise<void> | void): Promise<V2Registration>;
    (name: 'prompt', callback: (input: V2Prompt) => Promise<void> | void): Promise<V2Registration>;
  };
}

/** `Tool.Info` in the Promise flavour: `input` may be any Standard Schema (zod is one). */
export interface V2ToolInfo {
  readonly name: string;
  readonly description: string;
  readonly input: unknown;
  readonly execute: (input: unknown, context: { readonly sessionID: string; readonly agent: string; readonly messageID: string; readonly id: string; readonly signal?: AbortSignal }) => Promise<V2ToolResult>;
}

export interface V2ToolEditor {
  add(tool: V2ToolInfo): void;
}

/** `CommandInvocation` and `CommandDefinition`. */
export interface V2CommandInvocation {
  readonly sessionID: string;
  readonly messageID: string;
  readonly prompt: unknown;
}

export interface V2CommandDefinition {
  readonly name: string;
  readonly description?: string;
  readonly execute: (input: V2CommandInvocation) => Promise<void>;
}

export interface V2CommandDomain {
  readonly transform: (callback: (editor: { add(definition: V2CommandDefinition): void }) => void) => Promise<V2Registration>;
}

/** `Event.Payload`: every event is `{ id, type, data }`; session events carry `data.sessionID`. */
export interface V2Event {
  readonly id: string;
  readonly type: string;
  readonly data: unknown;
}

export interface V2EventDomain {
  readonly subscribe: () => AsyncIterable<V2Event>;
}

/** The setup context (`Context` in plugin.ts), as far as this adapter reads it. */
export interface V2Context {
  readonly options?: unknown;
  readonly tool: V2ToolDomain;
  readonly session: V2SessionDomain;
  readonly command?: V2CommandDomain;
  readonly event: V2EventDomain;
}

/** `Cleanup`: what `setup` may return; the host calls it when the plugin is unloaded. */
export type V2Cleanup = () => Promise<void> | void;

/**
 * A version-2 OpenCode host, simulated: what OpenCode 2 does to a plugin, as its published types
 * describe it (no version-2 binary can run here). It calls `setup(ctx)` with a context whose domains
 * follow these sources, read with the search tools in anomalyco/opencode:
 *   packages/plugin/src/promise/plugin.ts        @ 0ef9ef4be011358f55c5a01e78d55beb033f4746 (Context, Plugin, Cleanup)
 *   packages/plugin/src/promise/tool.ts          @ 196e46122874caa1df7d28dab7a64f6fddf0730a (ToolHooks, ToolDomain, ToolEditor)
 *   packages/plugin/src/promise/session.ts       @ 03545fd3bb099af708c5f1146c42c10c7f24c359 (SessionHooks, SessionModelRequest, SessionPrompt)
 *   packages/plugin/src/promise/event.ts         @ 31ee1d62fe1b1e1bc2a525dc6659da4fb77239a1 (EventDomain.subscribe)
 *   packages/plugin/src/promise/registration.ts  @ baf3a6591a154eba7164fd50c8105c6f5b003658 (Registration, Hooks, Transform)
 *   packages/plugin/src/promise/command.ts       @ 35952d997ef061a98b8a6e7cbe3f6eb157dc18ae (CommandDefinition, CommandInvocation)
 *   packages/schema/src/session-event.ts         @ 03130971e20a847d77cd70e13faabca0de4f512d (session.step.*, session.tool.*, session.execution.*)
 *   packages/schema/src/event.ts                 @ 162a75f99cc10925fe2922b86940b72a49dbb60b (the { id, type, created, data } payload)
 *   packages/schema/src/tool.ts                  @ 0f131b3e39f217d2a22efec1f6aa63a6c0767c97 (Tool.Result, Tool.Content, Tool.Error)
 * Semantics taken from them: hooks run in registration order and are awaited; a throw from
 * `execute.before` refuses the call (the model sees an error); `execute.after` comes with `status:
 * "completed"` and a rewritable `result`, or `"error"`; `model.request` carries `kind` (title requests
 * too); events are published to subscribers and not awaited by the host; `setup` may return a cleanup
 * the host calls when it unloads the plugin. Tools really run (bash in the session's folder, read from disk).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

type Callback = (input: never) => Promise<void> | void;

export interface SimToolResult {
  output?: unknown;
  content?: string | { type: 'text'; text: string }[];
  metadata?: Record<string, unknown>;
}

export interface SimEvent {
  id: string;
  type: string;
  created: number;
  data: Record<string, unknown>;
}

export interface SimTool {
  name: string;
  description: string;
  input: unknown;
  execute: (input: unknown, context: { sessionID: string; agent: string; messageID: string; id: string; signal: AbortSignal }) => Promise<SimToolResult>;
}

export interface SimCommand {
  name: string;
  execute: (input: { sessionID: string; messageID: string; prompt: { text: string }; delivery: string }) => Promise<unknown>;
}

/** One step of the scripted model: tool calls, or a final text. */
export type SimStep = { tools: { tool: string; input: Record<string, unknown> }[] } | { text: string };

/** What one tool call came to, as the model would see it. */
export interface SimCallOutcome {
  tool: string;
  status: 'completed' | 'error';
  text: string;
}

/** Usage the host reports for every step (as `session.step.ended`). */
export interface SimUsage {
  input: number;
  output: number;
  cost: number;
}

const MAX_EVENTS_QUEUED = 10_000;

/** An event stream for one subscriber: bounded, ended by the host or by the subscriber's `return()`. */
class Subscription implements AsyncIterator<SimEvent> {
  private readonly queue: SimEvent[] = [];
  private waiting: ((result: IteratorResult<SimEvent>) => void) | undefined;
  ended = false;

  push(event: SimEvent): void {
    if (this.ended) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: event, done: false });
    } else if (this.queue.length < MAX_EVENTS_QUEUED) this.queue.push(event);
  }

  get idle(): boolean {
    return this.queue.length === 0;
  }

  next(): Promise<IteratorResult<SimEvent>> {
    const event = this.queue.shift();
    if (event) return Promise.resolve({ value: event, done: false });
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<SimEvent>> {
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  end(): void {
    this.ended = true;
    this.queue.length = 0;
    const resolve = this.waiting;
    this.waiting = undefined;
    resolve?.({ value: undefined, done: true });
  }
}

let counter = 0;
const nextId = (prefix: string): string => `${prefix}_${Date.now().toString(36)}${(counter += 1).toString().padStart(6, '0')}`;

export class V2Host {
  private readonly hooks = new Map<string, Callback[]>();
  private readonly subscriptions: Subscription[] = [];
  readonly tools = new Map<string, SimTool>();
  readonly commands = new Map<string, SimCommand>();
  readonly events: SimEvent[] = [];
  private cleanup: (() => Promise<void> | void) | undefined;

  constructor(
    private readonly directory: string,
    private readonly options: Record<string, unknown> = {},
  ) {}

  private register(name: string, callback: Callback): Promise<{ dispose: () => Promise<void> }> {
    const list = this.hooks.get(name) ?? [];
    list.push(callback);
    this.hooks.set(name, list);
    return Promise.resolve({
      dispose: () => {
        const at = list.indexOf(callback);
        if (at >= 0) list.splice(at, 1);
        return Promise.resolve();
      },
    });
  }

  private async run(name: string, input: unknown): Promise<void> {
    for (const callback of [...(this.hooks.get(name) ?? [])]) await (callback as (value: unknown) => Promise<void> | void)(input);
  }

  /** The setup context: `Context` of plugin.ts, with the domains a tracker uses. */
  context(): Record<string, unknown> {
    return {
      options: this.options,
      tool: {
        hook: (name: string, callback: Callback) => this.register(`tool:${name}`, callback),
        transform: (callback: (editor: { add(tool: SimTool): void }) => void) => {
          callback({ add: (tool) => this.tools.set(tool.name, tool) });
          return Promise.resolve({ dispose: () => Promise.resolve() });
        },
      },
      session: { hook: (name: string, callback: Callback) => this.register(`session:${name}`, callback) },
      command: {
        transform: (callback: (editor: { add(definition: SimCommand): void }) => void) => {
          callback({ add: (definition) => this.commands.set(definition.name, definition) });
          return Promise.resolve({ dispose: () => Promise.resolve() });
        },
      },
      event: {
        subscribe: () => {
          const subscription = new Subscription();
          this.subscriptions.push(subscription);
          return { [Symbol.asyncIterator]: () => subscription };
        },
      },
    };
  }

  /** Loads the plugin: `setup(ctx)`, keeping the cleanup it returns. */
  async load(plugin: { id: string; setup: (ctx: never) => unknown }): Promise<void> {
    if (typeof plugin.id !== 'string' || typeof plugin.setup !== 'function') throw new Error('Plugin must export a default definition with an id and an effect or setup function');
    const returned = await plugin.setup(this.context() as never);
    this.cleanup = typeof returned === 'function' ? (returned as () => Promise<void> | void) : undefined;
  }

  /** Publishes an event to every subscriber (not awaited, as the host does), then lets them read it. */
  async publish(type: string, data: Record<string, unknown>): Promise<void> {
    const event: SimEvent = { id: nextId('evt'), type, created: Date.now(), data };
    this.events.push(event);
    for (const subscription of this.subscriptions) subscription.push(event);
    for (let turn = 0; turn < 50 && this.subscriptions.some((s) => !s.idle); turn += 1) await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** Runs a tool the way the host does: the plugin's own tools, `bash`, or `read`. */
  private async execute(tool: string, input: Record<string, unknown>, context: { sessionID: string; agent: string; messageID: string; id: string }): Promise<SimToolResult> {
    const own = this.tools.get(tool);
    if (own) return own.execute(input, { ...context, signal: new AbortController().signal });
    if (tool === 'bash') {
      try {
        const output = execFileSync('bash', ['-c', String(input.command)], { cwd: this.directory, encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
        return { content: output || '(no output)', metadata: { exit: 0, output } };
      } catch (error) {
        const failed = error as { status?: number; stdout?: string };
        return { content: failed.stdout || '(no output)', metadata: { exit: failed.status ?? 1, output: failed.stdout ?? '' } };
      }
    }
    if (tool === 'read') return { content: fs.readFileSync(path.resolve(this.directory, String(input.filePath)), 'utf8') };
    throw new Error(`unknown tool ${tool}`);
  }

  /** One tool call: `execute.before` (a throw refuses it), the tool, `execute.after`, and its events. */
  private async callTool(sessionID: string, agent: string, messageID: string, tool: string, input: Record<string, unknown>): Promise<SimCallOutcome> {
    const id = nextId('call');
    const base = { sessionID, assistantMessageID: messageID, callID: id };
    await this.publish('session.tool.input.started', { ...base, name: tool });
    const before = { tool, sessionID, agent, messageID, id, input: structuredClone(input) };
    let result: SimToolResult;
    try {
      await this.run('tool:execute.before', before);
      await this.publish('session.tool.called', { ...base, input: before.input, executed: true });
      result = await this.execute(before.tool, before.input as Record<string, unknown>, { sessionID, agent, messageID, id });
    } catch (error) {
      const message = (error as Error).message;
      await this.run('tool:execute.after', { tool, sessionID, agent, messageID, id, input: before.input, status: 'error', error: { message } });
      await this.publish('session.tool.failed', { ...base, error: { type: 'unknown', message }, executed: true });
      return { tool, status: 'error', text: message };
    }
    const after = { tool, sessionID, agent, messageID, id, input: before.input, status: 'completed' as const, result };
    await this.run('tool:execute.after', after);
    const text = typeof after.result.content === 'string' ? after.result.content : (after.result.content ?? []).map((part) => part.text).join('\n');
    await this.publish('session.tool.success', { ...base, content: [{ type: 'text', text }], executed: true });
    return { tool, status: 'completed', text };
  }

  /**
   * One user turn: the prompt, a title request (not work), then per step a model request, the step's
   * tool calls and its usage; the turn ends with `session.execution.succeeded`.
   */
  async turn(options: { sessionID: string; agent: string; model: { providerID: string; id: string }; prompt: string; steps: SimStep[]; usage: SimUsage }): Promise<SimCallOutcome[]> {
    const { sessionID, agent, model } = options;
    const outcomes: SimCallOutcome[] = [];
    await this.run('session:prompt', { sessionID, messageID: nextId('msg'), prompt: { text: options.prompt }, delivery: 'immediate' });
    await this.publish('session.execution.started', { sessionID });
    await this.run('session:model.request', { sessionID, agent: 'title', model, kind: 'title', headers: {} });
    for (const step of options.steps) {
      const messageID = nextId('msg');
      await this.run('session:model.request', { sessionID, agent, model, kind: 'primary', headers: {} });
      await this.publish('session.step.started', { sessionID, assistantMessageID: messageID, agent, model });
      if ('tools' in step) for (const call of step.tools) outcomes.push(await this.callTool(sessionID, agent, messageID, call.tool, call.input));
      const tokens = { input: options.usage.input, output: options.usage.output, reasoning: 0, cache: { read: 0, write: 0 } };
      await this.publish('session.step.ended', { sessionID, assistantMessageID: messageID, finish: 'tool' in step ? 'tool-calls' : 'stop', cost: options.usage.cost, tokens });
    }
    await this.publish('session.execution.succeeded', { sessionID });
    return outcomes;
  }

  /** A slash command the plugin defined (`/grade`), run as the user types it. */
  async command(sessionID: string, name: string, text: string): Promise<void> {
    const command = this.commands.get(name);
    if (!command) throw new Error(`no command ${name}`);
    await command.execute({ sessionID, messageID: nextId('msg'), prompt: { text }, delivery: 'immediate' });
  }

  /** Unloads the plugin: ends the event streams and calls the cleanup `setup` returned. */
  async dispose(): Promise<void> {
    for (const subscription of this.subscriptions) subscription.end();
    await this.cleanup?.();
    this.cleanup = undefined;
  }
}

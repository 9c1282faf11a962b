/**
 * Narrowing of OpenCode 2's `{ type, data }` events into what the recorder needs. Each reader checks
 * the shape it needs and returns undefined otherwise: a newer host never makes the adapter throw.
 */
import type { TokenCounts } from '../../core/types.js';

import { count as num, isDict, str } from '../../core/narrow.js';

/** Event types that end a turn: the session's execution finished, one way or another. */
export const TURN_END_EVENTS: ReadonlySet<string> = new Set(['session.execution.succeeded', 'session.execution.failed', 'session.execution.interrupted']);

/** `Model.Ref` as `providerID/modelID`, undefined when it does not name both. */
export function modelName(value: unknown): string | undefined {
  if (!isDict(value)) return undefined;
  const id = str(value.id);
  const provider = str(value.providerID);
  return id && provider ? `${provider}/${id}` : undefined;
}

/** `TokenUsage.Info` as the tracker's counts; missing fields count 0. */
export function tokenCounts(value: unknown): TokenCounts {
  const tokens = isDict(value) ? value : {};
  const cache = isDict(tokens.cache) ? tokens.cache : {};
  return { input: num(tokens.input), output: num(tokens.output), reasoning: num(tokens.reasoning), cacheRead: num(cache.read), cacheWrite: num(cache.write) };
}

/** The session an event is about (`data.sessionID`). */
export function eventSession(data: unknown): string | undefined {
  return isDict(data) ? str(data.sessionID) : undefined;
}

export interface StepStarted {
  sessionId: string;
  messageId: string;
  agent: string;
  model: string;
}

/** `session.step.started`: which agent and model answer in the assistant message. */
export function stepStarted(data: unknown): StepStarted | undefined {
  if (!isDict(data)) return undefined;
  const sessionId = str(data.sessionID);
  const messageId = str(data.assistantMessageID);
  const agent = str(data.agent);
  const model = modelName(data.model);
  return sessionId && messageId && agent && model ? { sessionId, messageId, agent, model } : undefined;
}

export interface StepUsage {
  sessionId: string;
  messageId: string;
  tokens: TokenCounts;
  cost: number;
}

/** `session.step.ended` (and `session.step.failed` when it carries usage): tokens and cost of one step. */
export function stepUsage(data: unknown): StepUsage | undefined {
  if (!isDict(data) || !isDict(data.tokens)) return undefined;
  const sessionId = str(data.sessionID);
  const messageId = str(data.assistantMessageID);
  return sessionId && messageId ? { sessionId, messageId, tokens: tokenCounts(data.tokens), cost: num(data.cost) } : undefined;
}

export interface FailedTool {
  sessionId: string;
  messageId: string;
  callId: string;
}

/** `session.tool.failed`: a tool call that failed (the `execute.after` hook usually said so first). */
export function failedTool(data: unknown): FailedTool | undefined {
  if (!isDict(data)) return undefined;
  const sessionId = str(data.sessionID);
  const messageId = str(data.assistantMessageID);
  const callId = str(data.callID);
  return sessionId && messageId && callId ? { sessionId, messageId, callId } : undefined;
}

/** The tracker's key for a tool call: the host's message id and call id, unique even when a provider restarts its call ids. */
export function toolCallKey(messageId: string, callId: string): string {
  return `${messageId}/${callId}`;
}

/** The text of a `PromptInput.Prompt` (its `text` field), or of a plain string. */
export function promptText(prompt: unknown): string {
  if (typeof prompt === 'string') return prompt;
  return isDict(prompt) && typeof prompt.text === 'string' ? prompt.text : '';
}

/** A `Tool.Result`'s text: its `content` as a string or its text parts joined; '' when it has none. */
export function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.flatMap((part: unknown) => (isDict(part) && part.type === 'text' && typeof part.text === 'string' ? [part.text] : [])).join('\n');
}

/** A bash call's exit code, from its result metadata (`exit`), when the host gives one. */
export function exitCode(metadata: unknown): number | undefined {
  return isDict(metadata) && typeof metadata.exit === 'number' && Number.isFinite(metadata.exit) ? metadata.exit : undefined;
}

export { isDict, str };

/**
 * Translates OpenCode 2's typed `session_message` rows into the host-agnostic history shape. Only
 * `assistant` rows are work (agent, model, tokens, cost, tool calls); the other types (`user`,
 * `shell` run by the user, `agent-switched`, `model-switched`, `idle`, ...) carry nothing the records
 * need. Tool calls are keyed `messageID/callID`, as the version-2 adapter keys them live, so a session
 * recorded live and backfilled counts once.
 */
import { outputCanShowCommits } from '../../core/backfill/bash-facts.js';
import type { HostMessage, HostToolCall } from '../../core/backfill/history.js';
import { toolCallKey } from '../../adapters/opencode-v2/events.js';
import { isDict, num, str, tokenCounts } from './parse.js';

/** A tool call's text: its content parts' text (a failed call may have none). */
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content || undefined;
  if (!Array.isArray(content)) return undefined;
  const text = content.flatMap((part: unknown) => (isDict(part) && part.type === 'text' && typeof part.text === 'string' ? [part.text] : [])).join('\n');
  return text || undefined;
}

/** One `{ type: "tool" }` entry of an assistant row's content; undefined for text and reasoning. */
export function parseV2Tool(messageId: string, entry: unknown): HostToolCall | undefined {
  if (!isDict(entry) || entry.type !== 'tool') return undefined;
  const state = isDict(entry.state) ? entry.state : {};
  const input = isDict(state.input) ? state.input : {};
  const metadata = isDict(state.metadata) ? state.metadata : {};
  const time = isDict(entry.time) ? entry.time : {};
  const callId = str(entry.id);
  const command = str(input.command);
  const canCommit = outputCanShowCommits(command);
  const output = canCommit ? (contentText(state.content) ?? str(metadata.output)) : undefined;
  const exit = num(metadata.exit);
  const endedAt = num(time.completed) ?? num(time.ran) ?? num(time.created);
  const startedAt = canCommit ? (num(time.ran) ?? num(time.created)) : undefined;
  return {
    callId: callId ? toolCallKey(messageId, callId) : '',
    tool: str(entry.name) ?? '',
    status: str(state.status) ?? '',
    ...(command ? { command } : {}),
    ...(output ? { output } : {}),
    ...(exit !== undefined ? { exit } : {}),
    ...(endedAt !== undefined ? { endedAt } : {}),
    ...(startedAt !== undefined ? { startedAt } : {}),
  };
}

/** An `assistant` row (`data` parsed) as a HostMessage; undefined for every other row type. */
export function parseV2Message(id: string, type: unknown, data: unknown, rowCreatedAt?: number): HostMessage | undefined {
  if (type !== 'assistant' || !isDict(data)) return undefined;
  const model = isDict(data.model) ? data.model : {};
  const provider = str(model.providerID);
  const modelId = str(model.id);
  const agent = str(data.agent);
  const time = isDict(data.time) ? data.time : {};
  const completedAt = num(time.completed);
  const tools = Array.isArray(data.content) ? data.content.flatMap((entry: unknown) => parseV2Tool(id, entry) ?? []) : [];
  return {
    id,
    role: 'assistant',
    ...(agent ? { agent } : {}),
    ...(provider && modelId ? { model: `${provider}/${modelId}` } : {}),
    tokens: tokenCounts(data.tokens),
    cost: num(data.cost) ?? 0,
    createdAt: num(time.created) ?? rowCreatedAt ?? 0,
    ...(completedAt !== undefined ? { completedAt } : {}),
    tools,
  };
}

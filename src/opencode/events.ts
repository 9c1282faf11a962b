/**
 * Narrowing of the host's bus events. Events arrive as `{ type, properties }`, several of them not
 * in the published union, so each reader checks the shape it needs and returns undefined otherwise.
 */
import type { TokenCounts } from '../core/types.js';

import { count as num, isDict, str } from '../core/narrow.js';
import type { Dict } from '../core/narrow.js';

export interface BusEvent {
  type: string;
  properties: Dict;
}

/** The event as a BusEvent: itself when it has that shape (no copy per event), else with empty properties. */
export function asBusEvent(value: unknown): BusEvent | undefined {
  if (!isDict(value) || typeof value.type !== 'string') return undefined;
  return isDict(value.properties) ? (value as unknown as BusEvent) : { type: value.type, properties: {} };
}

/** `command.executed`: the name of the slash command that ran. */
export function commandNameOf(event: BusEvent): string | undefined {
  return str(event.properties.name);
}

/** The session an event is about: `properties.sessionID` or `properties.info.id` for session events. */
export function sessionIdOf(event: BusEvent): string | undefined {
  const info = event.properties.info;
  return str(event.properties.sessionID) ?? (event.type.startsWith('session.') && isDict(info) ? str(info.id) : undefined);
}

export interface SessionInfo {
  id: string;
  parentId?: string;
  directory?: string;
}

/** `session.created|updated|deleted`: the session's id, parent (subagents) and directory. */
export function sessionInfo(event: BusEvent): SessionInfo | undefined {
  const info = event.properties.info;
  if (!isDict(info)) return undefined;
  const id = str(info.id);
  if (!id) return undefined;
  const parentId = str(info.parentID);
  const directory = str(info.directory);
  return { id, ...(parentId ? { parentId } : {}), ...(directory ? { directory } : {}) };
}

export interface AssistantUsage {
  sessionId: string;
  messageId: string;
  agent: string;
  model: string;
  tokens: TokenCounts;
  cost: number;
}

/** `message.updated` for an assistant message: who answered, with which model, at what cost. */
export function assistantUsage(event: BusEvent): AssistantUsage | undefined {
  const info = event.properties.info;
  if (!isDict(info) || info.role !== 'assistant') return undefined;
  const sessionId = str(info.sessionID);
  const messageId = str(info.id);
  const agent = str(info.agent) ?? str(info.mode);
  const modelId = str(info.modelID);
  if (!sessionId || !messageId || !agent || !modelId) return undefined;
  const providerId = str(info.providerID);
  const tokens = isDict(info.tokens) ? info.tokens : {};
  const cache = isDict(tokens.cache) ? tokens.cache : {};
  return {
    sessionId,
    messageId,
    agent,
    model: providerId ? `${providerId}/${modelId}` : modelId,
    tokens: {
      input: num(tokens.input),
      output: num(tokens.output),
      reasoning: num(tokens.reasoning),
      cacheRead: num(cache.read),
      cacheWrite: num(cache.write),
    },
    cost: num(info.cost),
  };
}

/** A tool part of `message.part.updated`: the host's own id of the call (`partId`), the provider's, and its state. */
export interface ToolPart {
  sessionId: string;
  partId: string;
  callId: string;
  tool: string;
  status: string;
}

/** `message.part.updated` with a tool part (any state). */
export function toolPartOf(event: BusEvent): ToolPart | undefined {
  const part = event.properties.part;
  if (!isDict(part) || part.type !== 'tool') return undefined;
  const state = part.state;
  const sessionId = str(part.sessionID);
  const partId = str(part.id);
  const callId = str(part.callID);
  const tool = str(part.tool);
  const status = isDict(state) ? str(state.status) : undefined;
  return sessionId && partId && callId && tool && status ? { sessionId, partId, callId, tool, status } : undefined;
}

/** `file.edited`: the file's path. */
export function editedFile(event: BusEvent): string | undefined {
  return str(event.properties.file);
}

/**
 * Translates OpenCode's stored session, message and part records (the same JSON in the SQLite
 * `data` columns and in the older `storage/` files) into the host-agnostic history shape. Narrows
 * every field: a record from a newer or broken OpenCode yields undefined, never a throw.
 */
import type { HostMessage, HostToolCall } from '../../core/backfill/history.js';

type Dict = Record<string, unknown>;

function isDict(value: unknown): value is Dict {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function dict(value: unknown): Dict {
  return isDict(value) ? value : {};
}

/** A message record (`data` plus the row's id and creation time); undefined when it is not one. */
export function parseMessage(id: string, data: unknown, rowCreatedAt?: number): (HostMessage & { root?: string }) | undefined {
  if (!isDict(data)) return undefined;
  const role = data.role;
  if (role !== 'user' && role !== 'assistant') return undefined;
  const tokens = dict(data.tokens);
  const cache = dict(tokens.cache);
  const time = dict(data.time);
  const provider = str(data.providerID);
  const modelId = str(data.modelID);
  const completedAt = num(time.completed);
  const agent = str(data.agent) ?? str(data.mode);
  const root = str(dict(data.path).root);
  return {
    id,
    role,
    ...(agent ? { agent } : {}),
    ...(provider && modelId ? { model: `${provider}/${modelId}` } : {}),
    tokens: {
      input: num(tokens.input) ?? 0,
      output: num(tokens.output) ?? 0,
      reasoning: num(tokens.reasoning) ?? 0,
      cacheRead: num(cache.read) ?? 0,
      cacheWrite: num(cache.write) ?? 0,
    },
    cost: num(data.cost) ?? 0,
    createdAt: num(time.created) ?? rowCreatedAt ?? 0,
    ...(completedAt !== undefined ? { completedAt } : {}),
    ...(root && root !== '/' ? { root } : {}),
    tools: [],
  };
}

/**
 * A tool part; undefined for every other kind of part (text, step-start, step-finish, patch, ...).
 * Its id is OpenCode's own part id (the row's `id`, else the record's), never the provider's call id,
 * which some providers restart in every response; the provider's is kept to find what older versions
 * recorded under it.
 */
export function parseToolPart(data: unknown, partId?: string): HostToolCall | undefined {
  if (!isDict(data) || data.type !== 'tool') return undefined;
  const state = dict(data.state);
  const input = dict(state.input);
  const metadata = dict(state.metadata);
  const time = dict(state.time);
  const command = str(input.command);
  const output = str(state.output) ?? str(metadata.output);
  const exit = num(metadata.exit);
  const endedAt = num(time.end) ?? num(time.start);
  const providerCallId = str(data.callID);
  return {
    callId: partId ?? str(data.id) ?? providerCallId ?? '',
    ...(providerCallId ? { providerCallId } : {}),
    tool: str(data.tool) ?? '',
    status: str(state.status) ?? '',
    ...(command ? { command } : {}),
    ...(output ? { output } : {}),
    ...(exit !== undefined ? { exit } : {}),
    ...(endedAt !== undefined ? { endedAt } : {}),
  };
}

/** The folder a session worked in: its assistant messages' project root, else the session's directory. */
export function sessionFolder(directory: string, messages: readonly (HostMessage & { root?: string })[]): string {
  for (const message of messages) if (message.root) return message.root;
  return directory;
}

export { isDict, num, str };

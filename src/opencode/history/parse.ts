/**
 * Translates OpenCode's stored session, message and part records (the same JSON in the SQLite
 * `data` columns and in the older `storage/` files) into the host-agnostic history shape. Narrows
 * every field: a record from a newer or broken OpenCode yields undefined, never a throw.
 */
import { COMMITTING_WORDS, outputCanShowCommits } from '../../core/backfill/bash-facts.js';
import type { HistoryQuery, HostMessage, HostSession, HostToolCall } from '../../core/backfill/history.js';
import type { TokenCounts } from '../../core/types.js';
import { EDITING_TOOLS } from '../editing-tools.js';

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

/** A `data` column's JSON; undefined for text that is none (a row written half), or no text. */
export function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A message's `tokens` object (`{input, output, reasoning, cache: {read, write}}`, both layouts); a missing count is 0. */
export function tokenCounts(value: unknown): TokenCounts {
  const tokens = dict(value);
  const cache = dict(tokens.cache);
  return {
    input: num(tokens.input) ?? 0,
    output: num(tokens.output) ?? 0,
    reasoning: num(tokens.reasoning) ?? 0,
    cacheRead: num(cache.read) ?? 0,
    cacheWrite: num(cache.write) ?? 0,
  };
}

/** A message record (`data` plus the row's id and creation time); undefined when it is not one. */
export function parseMessage(id: string, data: unknown, rowCreatedAt?: number): (HostMessage & { root?: string }) | undefined {
  if (!isDict(data)) return undefined;
  const role = data.role;
  if (role !== 'user' && role !== 'assistant') return undefined;
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
    tokens: tokenCounts(data.tokens),
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
  const canCommit = outputCanShowCommits(command);
  const output = canCommit ? (str(state.output) ?? str(metadata.output)) : undefined;
  const exit = num(metadata.exit);
  const endedAt = num(time.end) ?? num(time.start);
  const startedAt = canCommit ? num(time.start) : undefined;
  const providerCallId = str(data.callID);
  const tool = str(data.tool) ?? '';
  const editedFile = EDITING_TOOLS.has(tool) ? str(input.filePath) : undefined;
  return {
    callId: partId ?? str(data.id) ?? providerCallId ?? '',
    ...(providerCallId ? { providerCallId } : {}),
    tool,
    status: str(state.status) ?? '',
    ...(command ? { command } : {}),
    ...(editedFile ? { editedFile } : {}),
    ...(output ? { output } : {}),
    ...(exit !== undefined ? { exit } : {}),
    ...(endedAt !== undefined ? { endedAt } : {}),
    ...(startedAt !== undefined ? { startedAt } : {}),
  };
}

/** The text of a text part the user wrote (not one the host added: `synthetic`); undefined for any other part. */
export function parseUserText(data: unknown): string | undefined {
  if (!isDict(data) || data.type !== 'text' || data.synthetic === true) return undefined;
  return str(data.text);
}

/** Adds a text part's text to a user message's prompt, as the live hook joins a prompt's parts. */
export function addPromptText(message: HostMessage | undefined, text: string | undefined): void {
  if (!message || message.role !== 'user' || text === undefined) return;
  message.prompt = message.prompt === undefined ? text : `${message.prompt} ${text}`;
}

/** What parseToolPart and parseUserText read of a part, as JSON paths, in the order `toolPartOfColumns` takes them. */
const TOOL_PART_PATHS = ['$.type', '$.id', '$.callID', '$.tool', '$.state.status', '$.state.input.command', '$.state.metadata.exit', '$.state.time.start', '$.state.time.end', '$.state.input.filePath', '$.text', '$.synthetic'];

/**
 * How the native readers (bun:sqlite, node:sqlite) take a session's tool parts:
 * `SELECT ${TOOL_PART_COLUMNS} FROM part WHERE … AND ${TOOL_PART_FILTER}`, then `toolPartOfColumns`.
 * - The filter leaves text, steps and patches (two parts in three) in SQLite; every reader uses it.
 * - Of a tool part only what parseToolPart reads leaves SQLite (`fields`). A part's output (a file
 *   read, a test run's log) and its metadata (an edit's whole file before and after) are most of a
 *   store's bytes: it is taken (`outputs`) only when the command says `commit`, `revert` or
 *   `cherry-pick` (outputCanShowCommits).
 * - `json_valid` first: json_extract stops the whole query at text that is no JSON (a row written
 *   half), where this reader skips the row. SQLite parses each `data` once for all of them (its JSON
 *   cache, 3.45 on).
 * - Not for sql.js: SQLite's JSON parser compiled to WebAssembly is slower than handing V8 the whole
 *   text for `JSON.parse` (docs/PERFORMANCE.md, nineteenth pass), so sql.js reads `data` whole.
 */
export const TOOL_PART_COLUMNS =
  `message_id, id, CASE WHEN json_valid(data) THEN json_extract(data, ${TOOL_PART_PATHS.map((path) => `'${path}'`).join(', ')}) END AS fields, ` +
  `CASE WHEN json_valid(data) AND (${COMMITTING_WORDS.map((word) => `instr(json_extract(data, '$.state.input.command'), '${word}') > 0`).join(' OR ')}) ` +
  `THEN json_extract(data, '$.state.output', '$.state.metadata.output') END AS outputs`;
export const TOOL_PART_FILTER = `instr(data, '"tool"') > 0`;

/** The session rows a HistoryQuery selects (before its `directory` filter), in every SQLite layout; its parameters: sessionFilterParams. */
export const SESSION_FILTER = 'time_updated > ? AND time_created >= ? AND time_created < ?';

/** SESSION_FILTER's parameters for `query`. */
export function sessionFilterParams(query: HistoryQuery): [number, number, number] {
  return [query.updatedAfter ?? -1, query.createdSince ?? 0, query.createdBefore ?? Number.MAX_SAFE_INTEGER];
}

/**
 * The parts a reader takes of one session (`?` is the session id): its tool parts, and every part of
 * its user messages (their text is the prompt that opens a turn). The model's own text parts stay in
 * SQLite. OpenCode writes `data` with JSON.stringify (no spaces), so a user message says `"role":"user"`.
 */
export const SESSION_PARTS_FILTER = `(${TOOL_PART_FILTER} OR message_id IN (SELECT id FROM message WHERE session_id = ? AND instr(data, '"role":"user"') > 0))`;
/** SESSION_PARTS_FILTER for a pass over the sessions from `?` on, in session id order. */
export const PASS_PARTS_FILTER = `(${TOOL_PART_FILTER} OR message_id IN (SELECT id FROM message WHERE session_id >= ? AND instr(data, '"role":"user"') > 0))`;

/**
 * A tool part from the two JSON columns of TOOL_PART_COLUMNS: the record parseToolPart reads, with
 * only the fields it reads (so it decides as it does on the whole record).
 */
export function toolPartOfColumns(fields: unknown, outputs: unknown, partId?: string): HostToolCall | undefined {
  const values = parseJson(fields);
  if (!Array.isArray(values)) return undefined;
  const [type, id, callID, tool, status, command, exit, start, end, filePath] = values as unknown[];
  const [output, metadataOutput] = (parseJson(outputs) as unknown[] | undefined) ?? [];
  return parseToolPart({ type, id, callID, tool, state: { status, input: { command, filePath }, output, metadata: { exit, output: metadataOutput }, time: { start, end } } }, partId);
}

/** A user's text from the columns of TOOL_PART_COLUMNS, as parseUserText reads it from the whole record. */
export function userTextOfColumns(fields: unknown): string | undefined {
  const values = parseJson(fields);
  if (!Array.isArray(values)) return undefined;
  const [type, , , , , , , , , , text, synthetic] = values as unknown[];
  // json_extract gives JSON true as 1.
  return parseUserText({ type, text, synthetic: synthetic === true || synthetic === 1 });
}

/** The folder a session worked in: its assistant messages' project root, else the session's directory. */
export function sessionFolder(directory: string, messages: readonly (HostMessage & { root?: string })[]): string {
  for (const message of messages) if (message.root) return message.root;
  return directory;
}

/** A session from its table row (`parent_id`, `title`, `time_created`, `time_updated`, both layouts) and its messages. */
export function sessionOfRow(id: string, head: Dict, directory: string, messages: (HostMessage & { root?: string })[]): HostSession {
  const parentId = str(head.parent_id);
  const createdAt = num(head.time_created) ?? 0;
  return {
    id,
    ...(parentId ? { parentId } : {}),
    directory: sessionFolder(directory, messages),
    title: str(head.title) ?? '',
    createdAt,
    updatedAt: num(head.time_updated) ?? createdAt,
    messages,
  };
}

export { isDict, num, str };

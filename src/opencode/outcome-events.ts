/** Narrowing of the bus events behind outcome signals: a session's revert point, an executed slash command. */
import type { BusEvent } from './events.js';

function isDict(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `session.updated`: the message the session is reverted to (OpenCode undo), or undefined when the
 * session is not reverted (`info.revert` absent or null).
 */
export function revertPoint(event: BusEvent): string | undefined {
  const info = event.properties.info;
  if (!isDict(info) || !isDict(info.revert)) return undefined;
  const messageId = info.revert.messageID;
  return typeof messageId === 'string' && messageId !== '' ? messageId : undefined;
}

/** `command.executed`: the slash command's name and its arguments text. */
export function executedCommand(event: BusEvent): { name: string; arguments: string } | undefined {
  const { name, arguments: args } = event.properties;
  if (typeof name !== 'string') return undefined;
  return { name, arguments: typeof args === 'string' ? args : '' };
}

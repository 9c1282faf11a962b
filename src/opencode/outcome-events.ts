/** Narrowing of the bus events behind outcome signals: a session's revert point. */
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

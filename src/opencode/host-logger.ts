/**
 * A Logger that writes to OpenCode's log through the SDK client. Fire and forget: logging never
 * delays or breaks a hook. Routine status never goes to stderr (the TUI shows stderr as errors).
 */
import type { PluginInput } from '@opencode-ai/plugin';
import type { Logger } from '../core/logger.js';

type Level = 'debug' | 'info' | 'warn' | 'error';

export function hostLogger(client: PluginInput['client'] | undefined): Logger {
  const send = (level: Level, message: string, extra?: Record<string, unknown>): void => {
    try {
      const pending = client?.app?.log({ body: { service: 'agent-tracker', level, message, ...(extra ? { extra } : {}) } });
      if (pending && typeof pending.catch === 'function') pending.catch(() => undefined);
    } catch {
      // The log is best effort: a host without it must not lose the session.
    }
  };
  return {
    info: (message, extra) => send('info', message, extra),
    warn: (message, extra) => send('warn', message, extra),
    error: (message, extra) => send('error', message, extra),
  };
}

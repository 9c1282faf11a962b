/**
 * Reads OpenCode 2's event stream into TrackingService calls: the agent and model of each step, its
 * tokens and cost, tool failures the hooks did not see, turn ends and deletions. Everything a handler
 * records happens synchronously (the host does not wait for a plugin's reading of its events).
 */
import type { Logger } from '../../core/logger.js';
import type { StoreAccess } from '../../core/store/access.js';
import type { TrackingService } from '../../core/tracking/service.js';
import { eventSession, failedTool, isDict, stepStarted, stepUsage, str, toolCallKey, TURN_END_EVENTS } from './events.js';
import type { V2Event, V2EventDomain } from './host-types.js';

/** Steps whose usage has not arrived yet, at most this many (a step that never ends is not kept forever). */
const MAX_OPEN_STEPS = 1000;

export interface EventReader {
  /** Handles one event; never throws. */
  handle(event: V2Event): void;
}

export function createEventReader(service: TrackingService<StoreAccess>, logger: Logger): EventReader {
  /** Agent and model of each assistant message, from its `session.step.started`. */
  const steps = new Map<string, { agent: string; model: string }>();
  /** Tool names by call key, from `session.tool.input.started` (a failure event does not name its tool). */
  const toolNames = new Map<string, string>();
  const remember = <V>(map: Map<string, V>, key: string, value: V): void => {
    if (map.size >= MAX_OPEN_STEPS) map.delete(map.keys().next().value as string);
    map.set(key, value);
  };

  const handle = (event: V2Event): void => {
    const data = event.data;
    switch (event.type) {
      case 'session.step.started': {
        const step = stepStarted(data);
        if (!step) return;
        service.noteSession(step.sessionId, {});
        remember(steps, step.messageId, { agent: step.agent, model: step.model });
        return;
      }
      case 'session.step.ended':
      case 'session.step.failed': {
        const usage = stepUsage(data);
        const setup = usage ? steps.get(usage.messageId) : undefined;
        if (!usage || !setup) return;
        service.recordAssistantMessage(usage.sessionId, usage.messageId, setup, usage.tokens, usage.cost);
        return;
      }
      case 'session.tool.input.started': {
        if (!isDict(data)) return;
        const messageId = str(data.assistantMessageID);
        const callId = str(data.callID);
        const name = str(data.name);
        if (messageId && callId && name) remember(toolNames, toolCallKey(messageId, callId), name);
        return;
      }
      case 'session.tool.failed': {
        const failed = failedTool(data);
        if (!failed) return;
        const key = toolCallKey(failed.messageId, failed.callId);
        const tool = toolNames.get(key);
        if (tool) service.recordToolCall(failed.sessionId, key, tool, false);
        return;
      }
      case 'session.deleted':
        service.flush('session deleted');
        return;
      default: {
        if (!TURN_END_EVENTS.has(event.type)) return;
        const sessionId = eventSession(data);
        if (sessionId) service.endTurn(sessionId);
      }
    }
  };

  return {
    handle: (event) => {
      try {
        handle(event);
      } catch (error) {
        logger.error(`agent-tracker: event ${event.type} failed: ${(error as Error).message}`);
      }
    },
  };
}

/**
 * Reads `events.subscribe()` until `stop()`; a failing stream is logged and ends the reading, never
 * the session. `stop` asks the stream to end and ignores whatever still arrives.
 */
export function readEvents(events: V2EventDomain, reader: EventReader, logger: Logger): { stop: () => void } {
  let iterator: AsyncIterator<V2Event> | undefined;
  let stopped = false;
  void (async () => {
    iterator = events.subscribe()[Symbol.asyncIterator]();
    while (!stopped) {
      const next = await iterator.next();
      if (next.done || stopped) return;
      reader.handle(next.value);
    }
  })().catch((error: unknown) => logger.error(`agent-tracker: the event stream stopped: ${(error as Error).message}`));
  return {
    // Not awaited: a host's pending `next()` may hold `return()` back, and dispose must not hang on it.
    stop: () => {
      stopped = true;
      iterator?.return?.(undefined)?.catch(() => undefined);
    },
  };
}

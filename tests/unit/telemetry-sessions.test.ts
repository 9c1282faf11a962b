/**
 * `agent_tracker.sessions` against `report`, on a temporary store with tracking services and the
 * exporter shipping to a loopback OTLP receiver: a session counts once for each setup (agent × model)
 * it worked with, and a session that another OpenCode process continues (a restart) is not counted
 * again, by that process or by a later one.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { reportAnswer } from '../../src/core/answers/report.js';
import { silentLogger } from '../../src/core/logger.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { startTelemetry } from '../../src/adapters/telemetry/start.js';
import { startOtlpReceiver, total } from '../helpers/otlp-receiver.js';
import type { MetricPoint } from '../helpers/otlp-receiver.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

jest.setTimeout(30_000);

const PROJECT = '/p/shop';
const TOKENS = { input: 100, output: 10, reasoning: 0, cacheRead: 0, cacheWrite: 0 };

let tracker: TempTracker | undefined;
afterEach(() => {
  tracker?.dispose();
  tracker = undefined;
});

/** One OpenCode process: its own tracking service and exporter on the shared store, until `work` is done. */
async function openCodeProcess(t: TempTracker, startsAt: string, work: (service: TrackingService, settle: () => Promise<void>) => Promise<void> | void): Promise<MetricPoint[]> {
  const receiver = await startOtlpReceiver({ lifetimeMs: 30_000 });
  try {
    let clock = Date.parse(startsAt);
    const service = new TrackingService({ store: t.store, config: t.config, logger: silentLogger, project: PROJECT, now: () => new Date((clock += 1_000)) });
    const telemetry = startTelemetry({ option: { endpoint: receiver.url, protocol: 'http/json', exportIntervalMs: 60_000 }, logger: silentLogger, store: t.store, service, env: {} });
    // Lets the exporter finish loading, so later turns go to it directly instead of waiting for it.
    const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 100));
    await work(service, settle);
    await telemetry?.shutdown();
    return receiver.metrics();
  } finally {
    await receiver.close();
  }
}

/** One turn of `agent` on `model`: tool calls (ids and outcomes) and one assistant message, then the turn's flush. */
function turn(service: TrackingService, sessionId: string, model: string, calls: [string, boolean][], messageId: string): void {
  service.noteSession(sessionId, { project: PROJECT });
  service.noteModelRequest(sessionId, 'build', model);
  for (const [callId, ok] of calls) service.recordToolCall(sessionId, callId, 'bash', ok);
  service.recordAssistantMessage(sessionId, messageId, { agent: 'build', model }, TOKENS, 0.01);
  expect(service.endTurn(sessionId).ok).toBe(true);
}

const sessionsOf = (points: MetricPoint[], model: string) => total(points, 'agent_tracker.sessions', { 'gen_ai.request.model': model });

/** The report's sessions per model of the `build` agent. */
async function reportedSessions(t: TempTracker): Promise<Record<string, number>> {
  return Object.fromEntries((await reportAnswer(t.store, { by: 'setup' })).rows.map((row) => [row.model, row.sessions]));
}

describe('agent_tracker.sessions', () => {
  it('counts a session once for each setup it worked with, as the report does', async () => {
    tracker = tempTracker();
    const t = tracker;
    const points = await openCodeProcess(t, '2025-06-01T10:00:00Z', async (service, settle) => {
      turn(service, 's1', 'm/one', [['c1', true], ['c2', false]], 'msg1');
      await settle();
      turn(service, 's1', 'm/two', [['c3', true]], 'msg2');
      // Back on the first model: the same session and setup, not a new one.
      turn(service, 's1', 'm/one', [['c4', true]], 'msg3');
      turn(service, 's2', 'm/one', [['d1', true]], 'msg4');
    });
    // m/one: s1 and s2; m/two: s1.
    expect({ one: sessionsOf(points, 'one'), two: sessionsOf(points, 'two') }).toEqual({ one: 2, two: 1 });
    expect(await reportedSessions(t)).toEqual({ 'm/one': 2, 'm/two': 1 });
    expect(total(points, 'agent_tracker.tool.calls')).toBe(5);
  });

  it('does not count a session again when another process continues it after a restart', async () => {
    tracker = tempTracker();
    const t = tracker;
    const first = await openCodeProcess(t, '2025-06-01T10:00:00Z', (service) => {
      turn(service, 's1', 'm/one', [['c1', true]], 'msg1');
      turn(service, 's2', 'm/one', [['d1', true]], 'msg2');
    });
    // The restart: the same session ids go on, in a new process with its own exporter.
    const second = await openCodeProcess(t, '2025-06-01T11:00:00Z', async (service, settle) => {
      turn(service, 's1', 'm/one', [['c2', true]], 'msg3');
      await settle();
      turn(service, 's2', 'm/one', [['d2', false]], 'msg4');
      // A setup s1 had not worked with before: a session for m/two.
      turn(service, 's1', 'm/two', [['c3', true]], 'msg5');
      turn(service, 's3', 'm/one', [['e1', true]], 'msg6');
    });
    // First process: s1 and s2 on m/one. Second: s3 on m/one and s1 on m/two; s1 and s2 on m/one were counted already.
    expect({ one: sessionsOf(first, 'one'), two: sessionsOf(first, 'two') }).toEqual({ one: 2, two: 0 });
    expect({ one: sessionsOf(second, 'one'), two: sessionsOf(second, 'two') }).toEqual({ one: 1, two: 1 });
    // A team's dashboard sums the processes: 3 sessions on m/one (s1, s2, s3), 1 on m/two (s1), as the report says.
    expect(await reportedSessions(t)).toEqual({ 'm/one': 3, 'm/two': 1 });
    expect(total(first, 'agent_tracker.tool.calls') + total(second, 'agent_tracker.tool.calls')).toBe(6);
  });

  it('counts a session first recorded before the exporter loaded once, however many flushes it took', async () => {
    tracker = tempTracker();
    const t = tracker;
    const points = await openCodeProcess(t, '2025-06-01T10:00:00Z', (service) => {
      // All recorded at once, before the exporter has loaded: the flushes wait and are sent together.
      turn(service, 's1', 'm/one', [['c1', true]], 'msg1');
      turn(service, 's1', 'm/one', [['c2', true]], 'msg2');
      turn(service, 's1', 'm/two', [['c3', true]], 'msg3');
    });
    expect({ one: sessionsOf(points, 'one'), two: sessionsOf(points, 'two') }).toEqual({ one: 1, two: 1 });
    expect(await reportedSessions(t)).toEqual({ 'm/one': 1, 'm/two': 1 });
  });
});

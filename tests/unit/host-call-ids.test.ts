/**
 * Tool calls are counted under the host's own id of the call (OpenCode's tool part id), never under
 * the provider's call id, which some providers restart in every response (`call_0`, `call_1`, …).
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { createHooks } from '../../src/opencode/hooks.js';
import { recordingLogger, tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker;
afterEach(() => t?.dispose());

type Hooks = ReturnType<typeof createHooks>;

/** What the host publishes for a tool part in a state. */
function partEvent(partId: string, callId: string, status: string, tool = 'bash') {
  return { event: { id: `evt_${partId}_${status}`, type: 'message.part.updated', properties: { part: { id: partId, sessionID: 's1', messageID: `msg_${partId}`, type: 'tool', callID: callId, tool, state: { status } } } } };
}

/** One call as the host runs it: pending and running events, the hooks, then its final state. */
async function runCall(hooks: Hooks, partId: string, callId: string, exit: number): Promise<void> {
  await hooks.event?.(partEvent(partId, callId, 'pending') as never);
  await hooks.event?.(partEvent(partId, callId, 'running') as never);
  await hooks['tool.execute.before']?.({ tool: 'bash', sessionID: 's1', callID: callId }, { args: { command: 'ls' } });
  await hooks['tool.execute.after']?.({ tool: 'bash', sessionID: 's1', callID: callId, args: { command: 'ls' } }, { title: 'ls', output: '', metadata: { exit } });
  await hooks.event?.(partEvent(partId, callId, 'completed') as never);
}

function usage() {
  return t.store.tables.usage.get(['s1', 'build', 'fake/model']);
}

describe('host call ids', () => {
  it('counts every call of a provider that restarts its call ids in each response, failures included', async () => {
    t = tempTracker();
    const hooks = createHooks({ service: t.service, logger: recordingLogger(t.logged), directory: t.dir, ownTools: new Set() });
    t.service.noteModelRequest('s1', 'build', 'fake/model');
    // Three responses, each calling `call_0`; the second one fails (non-zero exit).
    await runCall(hooks, 'prt_1', 'call_0', 0);
    await runCall(hooks, 'prt_2', 'call_0', 1);
    await runCall(hooks, 'prt_3', 'call_0', 0);
    // A fourth `call_0` throws: the host reports it only as an error state.
    await hooks.event?.(partEvent('prt_4', 'call_0', 'running') as never);
    await hooks.event?.(partEvent('prt_4', 'call_0', 'error') as never);
    t.service.flush('test');
    expect(usage()).toMatchObject({ toolCalls: 4, toolFailures: 2 });
    // The same turn again (a double idle, a replayed event): nothing counts twice.
    await hooks.event?.(partEvent('prt_4', 'call_0', 'error') as never);
    t.service.flush('test');
    expect(usage()).toMatchObject({ toolCalls: 4, toolFailures: 2 });
  });

  it('a backfill of the same calls, keyed by part id, adds nothing; one recorded under the old call-id key counts once too', () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/model');
    t.service.recordToolCall('s1', 'prt_1', 'bash', true);
    // Recorded by an older version, under the provider's call id.
    t.service.recordToolCall('s1', 'call_7', 'bash', true);
    t.service.flush('live');
    const replayed = t.another();
    replayed.noteModelRequest('s1', 'build', 'fake/model');
    const at = '2025-01-01T00:00:00.000Z';
    replayed.recordToolCall('s1', 'prt_1', 'bash', true, { at, legacyEventId: 'call_1' });
    replayed.recordToolCall('s1', 'prt_9', 'bash', true, { at, legacyEventId: 'call_7' });
    replayed.recordToolCall('s1', 'prt_10', 'bash', true, { at, legacyEventId: 'call_8' });
    replayed.flush('backfill');
    expect(usage()).toMatchObject({ toolCalls: 3 });
  });
});

/**
 * Delivers a fixture session (tests/helpers/opencode-history.ts) to the real OpenCode hooks as the host
 * does while it runs, so a test can compare live tracking with a backfill of the same session.
 */
import type { createHooks } from '../../src/opencode/hooks.js';
import type { FixtureMessage, FixtureSession } from './opencode-history.js';

type Hooks = ReturnType<typeof createHooks>;

/** The part id the fixture store gives a tool call (tests/helpers/opencode-history.ts). */
export function partId(message: FixtureMessage, index: number): string {
  return `${message.id}-p${index + 1}`;
}

/**
 * The user's message (`chat.message`), each model request (`chat.params`), each answer
 * (`message.updated`), each tool call (its part's pending and running events, the tool hooks, its final
 * state), and `session.idle` at the end of each turn; `from`/`to` deliver a slice of the messages.
 */
export async function trackLive(hooks: Hooks, fixture: FixtureSession, options: { from?: number; to?: number } = {}): Promise<void> {
  const messages = fixture.messages.slice(options.from ?? 0, options.to);
  const sessionID = fixture.id;
  const idle = () => hooks.event?.({ event: { id: 'evt_idle', type: 'session.idle', properties: { sessionID } } } as never);
  let open = false;
  for (const message of messages) {
    if (message.role === 'user') {
      if (open) await idle();
      open = true;
      const parts = [
        ...(message.text === undefined ? [] : [{ type: 'text', text: message.text }]),
        ...(message.syntheticText === undefined ? [] : [{ type: 'text', text: message.syntheticText, synthetic: true }]),
      ];
      await hooks['chat.message']?.({ sessionID } as never, { message: { id: message.id, sessionID }, parts } as never);
      continue;
    }
    await hooks['chat.params']?.({ sessionID, agent: message.agent, model: { providerID: message.providerID, id: message.modelID } } as never, {} as never);
    for (const [index, tool] of (message.tools ?? []).entries()) {
      const part = (status: string) => ({ event: { id: `evt_${index}`, type: 'message.part.updated', properties: { part: { id: partId(message, index), sessionID, messageID: message.id, type: 'tool', callID: tool.callId, tool: tool.tool, state: { status } } } } });
      await hooks.event?.(part('pending') as never);
      await hooks.event?.(part('running') as never);
      const args = tool.command ? { command: tool.command } : { filePath: tool.filePath };
      await hooks['tool.execute.before']?.({ tool: tool.tool, sessionID, callID: tool.callId }, { args });
      await hooks['tool.execute.after']?.({ tool: tool.tool, sessionID, callID: tool.callId, args }, { title: '', output: tool.output ?? '', metadata: tool.exit === undefined ? {} : { exit: tool.exit } });
      await hooks.event?.(part('completed') as never);
    }
    const info = { id: message.id, sessionID, role: 'assistant', agent: message.agent, mode: message.agent, providerID: message.providerID, modelID: message.modelID, tokens: message.tokens, cost: message.cost, time: { created: message.created, completed: message.created + 500 } };
    await hooks.event?.({ event: { id: `evt_${message.id}`, type: 'message.updated', properties: { info } } } as never);
  }
  if (open) await idle();
}

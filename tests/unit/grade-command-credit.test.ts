/**
 * The user's `/grade` runs as a slash command in the agent's session (OpenCode publishes
 * `command.executed` for it). It judges the agent's work: it must not count as the agent's use of a
 * command, nor earn it the slash-command XP. Another slash command still does.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { createHooks } from '../../src/opencode/hooks.js';
import { recordingLogger, tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker | undefined;
afterEach(() => {
  t?.dispose();
  t = undefined;
});

/** The bus event OpenCode 1.18 publishes after a slash command ran (HOST-FACTS: `command.executed {name, sessionID, arguments, messageID}`). */
function commandExecuted(name: string, messageID: string) {
  return { event: { id: `evt_${messageID}`, type: 'command.executed', properties: { name, sessionID: 's1', arguments: '5 good work', messageID } } };
}

describe('slash commands in a session', () => {
  it('gives no command count and no XP for the user\'s /grade, and the slash-command XP for another command', async () => {
    t = tempTracker();
    const hooks = createHooks({ service: t.service, logger: recordingLogger(t.logged), directory: t.dir, ownTools: new Set() });
    t.service.noteModelRequest('s1', 'docs', 'fake/beta');
    const xpBefore = t.service.getAgentStatus('docs').xp;

    await hooks.event?.(commandExecuted('grade', 'msg_1') as never);
    t.service.flush('test');
    expect(t.store.tables.usage.get(['s1', 'docs', 'fake/beta'])?.commands ?? 0).toBe(0);
    expect(t.service.getAgentStatus('docs').xp).toBe(xpBefore);

    await hooks.event?.(commandExecuted('review', 'msg_2') as never);
    t.service.flush('test');
    expect(t.store.tables.usage.get(['s1', 'docs', 'fake/beta'])?.commands).toBe(1);
    expect(t.service.getAgentStatus('docs').xp).toBe(xpBefore + t.config.rules.xpPerCommand);
  });
});

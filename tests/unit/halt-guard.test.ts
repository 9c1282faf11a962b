/**
 * The before/after tool hooks as the host calls them (arguments in the before-hook's OUTPUT):
 * a halted agent is refused, or warned with `haltBlocksTools: false`; the tracker's own tools stay
 * available; guards refuse with their reason.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { createHooks, RefusalError } from '../../src/opencode/hooks.js';
import { envFileGuard } from '../../src/opencode/guards/env-guard.js';
import { recordingLogger, tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker;
afterEach(() => t?.dispose());

const OWN_TOOLS = new Set(['report-bug', 'agent-status']);

function hooksFor(options: Record<string, unknown> = {}) {
  t = tempTracker(options);
  const hooks = createHooks({ service: t.service, logger: recordingLogger(t.logged), directory: t.dir, ownTools: OWN_TOOLS, guards: [envFileGuard] });
  t.service.noteModelRequest('s1', 'build', 'fake/model');
  return hooks;
}

function haltBuild(): void {
  const { sp } = t.service.getAgentStatus('build');
  for (let i = 0; i < sp; i += 1) t.service.reportBug({ agent: 'build', sessionId: 's1', description: `bug ${i}` });
}

async function before(hooks: ReturnType<typeof createHooks>, tool: string, args: Record<string, unknown>): Promise<void> {
  await hooks['tool.execute.before']?.({ tool, sessionID: 's1', callID: `${tool}-${Math.random()}` }, { args });
}

async function after(hooks: ReturnType<typeof createHooks>, tool: string, args: Record<string, unknown>) {
  const output = { title: tool, output: 'done', metadata: { exit: 0 } };
  await hooks['tool.execute.after']?.({ tool, sessionID: 's1', callID: `${tool}-${Math.random()}`, args }, output);
  return output;
}

describe('the halt guard', () => {
  it('lets a working agent use its tools', async () => {
    const hooks = hooksFor();
    await expect(before(hooks, 'bash', { command: 'ls' })).resolves.toBeUndefined();
  });

  it('refuses a halted agent\'s tool calls with a message naming agent-tracker revive', async () => {
    const hooks = hooksFor();
    haltBuild();
    const refusal = before(hooks, 'bash', { command: 'ls' });
    await expect(refusal).rejects.toBeInstanceOf(RefusalError);
    await expect(before(hooks, 'read', { filePath: 'a.ts' })).rejects.toThrow(/halted.*agent-tracker revive build/);
  });

  it('keeps the tracker\'s own tools available to a halted agent', async () => {
    const hooks = hooksFor();
    haltBuild();
    await expect(before(hooks, 'agent-status', {})).resolves.toBeUndefined();
    await expect(before(hooks, 'report-bug', { description: 'x' })).resolves.toBeUndefined();
  });

  it('only warns with haltBlocksTools: false, in the log and in the tool output', async () => {
    const hooks = hooksFor({ haltBlocksTools: false });
    haltBuild();
    await expect(before(hooks, 'bash', { command: 'ls' })).resolves.toBeUndefined();
    expect(t.logged).toContainEqual({ level: 'warn', message: expect.stringContaining('agent-tracker revive build') });
    const output = await after(hooks, 'bash', { command: 'ls' });
    expect(output.output).toMatch(/^done\n\n\[agent-tracker warning\] Agent "build" is halted/);
    expect(t.service.getAgentStatus('build').xp).toBe(0);
  });

  it('adds no warning to the output of a working agent', async () => {
    const hooks = hooksFor({ haltBlocksTools: false });
    expect((await after(hooks, 'bash', { command: 'ls' })).output).toBe('done');
  });
});

describe('guards in the before hook', () => {
  it('refuses with the guard\'s reason, reading the arguments from the hook output', async () => {
    const hooks = hooksFor();
    await expect(before(hooks, 'bash', { command: 'cat .env' })).rejects.toThrow(/agent-tracker refused bash: "\.env"/);
    await expect(before(hooks, 'bash', { command: 'cat .env.example' })).resolves.toBeUndefined();
  });

  it('fails closed: a guard or a rewriter that throws refuses the call with one line instead of letting it run', async () => {
    t = tempTracker();
    t.service.noteModelRequest('s1', 'build', 'fake/model');
    const broken = (what: string) => () => {
      throw new Error(`${what} broke`);
    };
    for (const context of [{ guards: [broken('guard')] }, { argumentRewriters: [broken('rewriter')] }]) {
      const hooks = createHooks({ service: t.service, logger: recordingLogger(t.logged), directory: t.dir, ownTools: OWN_TOOLS, ...context });
      const refusal = before(hooks, 'bash', { command: 'ls' });
      await expect(refusal).rejects.toBeInstanceOf(RefusalError);
      await expect(refusal).rejects.toThrow(/could not check this tool call \((guard|rewriter) broke\), so it was refused/);
      // The tracker's own tools are never checked, so they stay available.
      await expect(before(hooks, 'agent-status', {})).resolves.toBeUndefined();
    }
  });
});

/**
 * One `opencode serve` process working in two projects: OpenCode starts one plugin instance per
 * project directory in the same process, and both share the plugin's one database thread. Disposing
 * one project's instance (`POST /instance/dispose?directory=…`) must not take the database from the
 * other: its next turn is still recorded, under its own project. The real `opencode` binary, driven
 * by the loopback fake model.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { UsageRecord } from '../../src/core/types.js';
import { bash, say, scriptByPrompt, startFakeModel } from '../helpers/fake-model.js';
import type { FakeModel } from '../helpers/fake-model.js';
import { storedUsageRecords } from '../helpers/usage-record.js';
import { makeRepo, makeSandbox, removeSandbox, writeGlobalConfig } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';
import { startServe } from '../helpers/serve.js';

jest.setTimeout(400_000);

function usageRecords(sandbox: Sandbox): UsageRecord[] {
  return storedUsageRecords(sandbox.dbPath);
}

/** The tool calls and turns recorded for one session, over every setup it used. */
function recorded(records: UsageRecord[], sessionId: string): { toolCalls: number; turns: number; projects: string[] } {
  const mine = records.filter((record) => record.sessionId === sessionId);
  return {
    toolCalls: mine.reduce((sum, record) => sum + record.toolCalls, 0),
    turns: mine.reduce((sum, record) => sum + (record.turns ?? 0), 0),
    projects: [...new Set(mine.map((record) => record.project))],
  };
}

describe('two projects in one opencode serve', () => {
  let sandbox: Sandbox;
  let model: FakeModel;
  let alpha: string;
  let beta: string;
  const sessions: { alpha?: string; beta?: string } = {};
  let stderr = '';

  beforeAll(async () => {
    sandbox = makeSandbox('agent-tracker-serve-two-');
    model = await startFakeModel(
      scriptByPrompt({
        'ALPHA-TURN': [bash('echo alpha > alpha.txt'), say('Wrote alpha.')],
        'BETA-FIRST': [bash('echo one > one.txt'), say('Wrote one.')],
        'BETA-SECOND': [bash('echo two > two.txt'), bash('echo three > three.txt'), say('Wrote two and three.')],
      }),
      { maxRequests: 200, lifetimeMs: 380_000 },
    );
    writeGlobalConfig(sandbox, { modelUrl: model.url });
    alpha = makeRepo(sandbox, 'alpha');
    beta = makeRepo(sandbox, 'beta');
    const served = await startServe(sandbox, alpha, { lifetimeMs: 300_000 });
    const at = (directory: string): string => `directory=${encodeURIComponent(directory)}`;
    try {
      sessions.alpha = (await served.request<{ id: string }>('POST', `/session?${at(alpha)}`, {})).id;
      sessions.beta = (await served.request<{ id: string }>('POST', `/session?${at(beta)}`, {})).id;
      await served.request('POST', `/session/${sessions.alpha}/message?${at(alpha)}`, { parts: [{ type: 'text', text: 'ALPHA-TURN: write alpha' }] });
      await served.request('POST', `/session/${sessions.beta}/message?${at(beta)}`, { parts: [{ type: 'text', text: 'BETA-FIRST: write one' }] });
      // Alpha's instance goes away (its plugin's dispose runs); beta's goes on in the same process.
      await served.request('POST', `/instance/dispose?${at(alpha)}`);
      await served.request('POST', `/session/${sessions.beta}/message?${at(beta)}`, { parts: [{ type: 'text', text: 'BETA-SECOND: write two and three' }] });
      await served.request('POST', `/instance/dispose?${at(beta)}`);
    } finally {
      stderr = served.stderr();
      await served.kill();
    }
  });

  afterAll(async () => {
    await model?.close();
    if (sandbox) removeSandbox(sandbox);
  });

  it('records each project under its own name', () => {
    const records = usageRecords(sandbox);
    expect(recorded(records, sessions.alpha ?? '')).toMatchObject({ toolCalls: 1, turns: 1, projects: [alpha] });
    expect(recorded(records, sessions.beta ?? '').projects).toEqual([beta]);
  });

  it('keeps recording the other project after one project\'s instance is disposed', () => {
    // Beta's second turn came after alpha's dispose: three bash calls in two turns, all of them kept.
    expect(recorded(usageRecords(sandbox), sessions.beta ?? '')).toMatchObject({ toolCalls: 3, turns: 2 });
    expect(stderr).not.toMatch(/agent-tracker.*(closed|out of use|failed)/i);
  });
});

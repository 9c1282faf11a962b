/**
 * The write buffer on its own: what collapses into one mutation and what stays apart, the age that
 * triggers a safety flush, and that nothing a caller handed in is changed behind its back.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { WriteBuffer } from '../../src/core/tracking/write-buffer.js';
import type { AgentMutationOp, SessionInit, SessionKey } from '../../src/core/store/mutations.js';

const SESSION: SessionKey = ['s1', 'build', 'fake/model'];
const INIT: SessionInit = { sessionId: 's1', agent: 'build', model: 'fake/model', project: '/p', firstAt: '2026-01-01T00:00:00.000Z' };

/** The ops of an agent's buffered mutation: what the flush will apply. */
function pendingOps(buffer: WriteBuffer, agent: string): AgentMutationOp[] | undefined {
  const mutation = buffer.mutations().find((m) => m.table === 'agents' && m.key === agent);
  return mutation?.table === 'agents' ? mutation.ops : undefined;
}

describe('WriteBuffer', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('merges adjacent XP awards and adjacent commit counts, keeping their order against other ops', () => {
    const buffer = new WriteBuffer();
    const grade: AgentMutationOp = { kind: 'grade', delta: 4 };
    const steps: AgentMutationOp[] = [
      { kind: 'xp', amount: 1 },
      { kind: 'xp', amount: 2 },
      { kind: 'commits', amount: 1 },
      { kind: 'commits', amount: 1 },
      { kind: 'xp', amount: 5 },
      { kind: 'bug' },
      { kind: 'xp', amount: 1 },
      grade,
      { kind: 'revive' },
      { kind: 'revive' },
    ];
    for (const op of steps) buffer.addAgentOp('build', op);
    // The status sees every op as recorded; the flush applies the merged ones.
    expect(buffer.agentOps('build')).toEqual(steps);
    expect(pendingOps(buffer, 'build')).toEqual([
      { kind: 'xp', amount: 3 },
      { kind: 'commits', amount: 2 },
      { kind: 'xp', amount: 5 },
      { kind: 'bug' },
      { kind: 'xp', amount: 1 },
      { kind: 'grade', delta: 4 },
      { kind: 'revive' },
      { kind: 'revive' },
    ]);
    // A grade op (which may carry its retrospective) is kept as given.
    expect(pendingOps(buffer, 'build')?.[5]).toBe(grade);
    expect(buffer.size).toBe(1);
    expect(buffer.agentOps('plan')).toEqual([]);
  });

  it('never changes the op objects a caller handed in when it merges later awards into them', () => {
    const buffer = new WriteBuffer();
    const first = { kind: 'xp' as const, amount: 1 };
    buffer.addAgentOp('build', first);
    buffer.addAgentOp('build', { kind: 'xp', amount: 2 });
    buffer.addAgentOp('build', { kind: 'bug' });
    const afterBug = { kind: 'commits' as const, amount: 1 };
    buffer.addAgentOp('build', afterBug);
    buffer.addAgentOp('build', { kind: 'commits', amount: 4 });
    expect(first.amount).toBe(1);
    expect(afterBug.amount).toBe(1);
    expect(pendingOps(buffer, 'build')).toEqual([{ kind: 'xp', amount: 3 }, { kind: 'bug' }, { kind: 'commits', amount: 5 }]);
  });

  it('adds counter deltas of one session key together and keeps the latest time', () => {
    const buffer = new WriteBuffer();
    const deltas = { toolCalls: 1 };
    buffer.addCounters(SESSION, INIT, deltas, '2026-01-01T00:00:02.000Z');
    buffer.addCounters(SESSION, INIT, { toolCalls: 2, toolFailures: 1 }, '2026-01-01T00:00:05.000Z');
    buffer.addCounters(SESSION, INIT, { cost: 0.25 }, '2026-01-01T00:00:03.000Z');
    buffer.addCounters(['s1', 'build', 'other/model'], { ...INIT, model: 'other/model' }, { toolCalls: 7 }, '2026-01-01T00:00:01.000Z');
    expect(buffer.has('usage', SESSION)).toBe(true);
    expect(buffer.has('usage', ['s2', 'build', 'fake/model'])).toBe(false);
    expect(buffer.size).toBe(2);
    const [first, second] = buffer.mutations();
    expect(first).toEqual({ table: 'usage', key: SESSION, init: INIT, counters: { toolCalls: 3, toolFailures: 1, cost: 0.25 }, lastAt: '2026-01-01T00:00:05.000Z' });
    expect(second).toMatchObject({ counters: { toolCalls: 7 }, lastAt: '2026-01-01T00:00:01.000Z' });
    expect(deltas).toEqual({ toolCalls: 1 });
  });

  it('keeps one record per table and key, the last put winning', () => {
    const buffer = new WriteBuffer();
    const profile = (language: string) => ({ path: '/p', language, framework: 'none', scope: 'x', dependencies: [], manifestType: 'none', classifiedAt: '', agentsmdHash: '' });
    buffer.put({ table: 'projects', key: '/p', value: profile('go') });
    buffer.put({ table: 'projects', key: '/p', value: profile('rust') });
    buffer.put({ table: 'projects', key: '/q', value: profile('go') });
    expect(buffer.size).toBe(2);
    expect(buffer.has('projects', '/p')).toBe(true);
    expect(buffer.has('agents', '/p')).toBe(false);
    expect(buffer.mutations()[0]).toMatchObject({ value: { language: 'rust' } });
  });

  it('measures its age from the first mutation since it was last empty', () => {
    jest.useFakeTimers({ now: 10_000 });
    const buffer = new WriteBuffer();
    expect(buffer.ageMs(50_000)).toBe(0);
    buffer.addAgentOp('build', { kind: 'xp', amount: 1 });
    jest.setSystemTime(12_000);
    buffer.addCounters(SESSION, INIT, { toolCalls: 1 }, 'x');
    buffer.put({ table: 'projects', key: '/p', value: { path: '/p', language: 'go', framework: 'none', scope: 'x', dependencies: [], manifestType: 'none', classifiedAt: '', agentsmdHash: '' } });
    expect(buffer.ageMs(15_000)).toBe(5_000);
    buffer.clear();
    expect(buffer.size).toBe(0);
    expect(buffer.ageMs(15_000)).toBe(0);
    jest.setSystemTime(20_000);
    buffer.addCounters(SESSION, INIT, { toolCalls: 1 }, 'y');
    expect(buffer.ageMs(21_000)).toBe(1_000);
  });

  it('keeps one replayable event per host id: the larger totals, the later time, the first report\'s ops once', () => {
    jest.useFakeTimers({ now: 1_000 });
    const buffer = new WriteBuffer();
    const session = { key: SESSION, init: INIT, at: '2026-01-01T00:00:02.000Z' };
    const totals = { messages: 1, tokensOutput: 10 };
    buffer.putReplay({ table: 'events', key: ['s1', 'message:m1'], totals, session, agentOps: [{ agent: 'build', ops: [{ kind: 'xp', amount: 1 }] }] });
    jest.setSystemTime(5_000);
    // The same message again, further streamed; then an older copy of it.
    buffer.putReplay({ table: 'events', key: ['s1', 'message:m1'], totals: { messages: 1, tokensOutput: 40 }, session: { ...session, at: '2026-01-01T00:00:09.000Z' }, agentOps: [{ agent: 'build', ops: [{ kind: 'xp', amount: 1 }] }] });
    buffer.putReplay({ table: 'events', key: ['s1', 'message:m1'], totals: { messages: 1, tokensOutput: 5, cost: 0.5 }, session: { ...session, at: '2026-01-01T00:00:01.000Z' }, agentOps: [] });
    buffer.putReplay({ table: 'events', key: ['s1', 'message:m2'], totals: { messages: 1 }, session, agentOps: [{ agent: 'plan', ops: [{ kind: 'xp', amount: 2 }] }] });
    expect(buffer.size).toBe(2);
    expect(buffer.mutations()[0]).toMatchObject({ key: ['s1', 'message:m1'], totals: { messages: 1, tokensOutput: 40, cost: 0.5 }, session: { at: '2026-01-01T00:00:09.000Z' } });
    // The caller's totals object is left as it was handed in.
    expect(totals).toEqual({ messages: 1, tokensOutput: 10 });
    expect(buffer.agentOps('build')).toEqual([{ kind: 'xp', amount: 1 }]);
    expect(buffer.agentOps('plan')).toEqual([{ kind: 'xp', amount: 2 }]);
    expect(buffer.ageMs(6_000)).toBe(5_000);
    buffer.clear();
    expect(buffer.agentOps('build')).toEqual([]);
  });
});

/**
 * The `status` answer: each agent's sheet beside its work, from a temporary store filled through the
 * tracking service as the plugin fills it. Expected figures are counted from the sessions recorded here.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { statusAnswer } from '../../src/core/answers/status.js';
import { silentLogger } from '../../src/core/logger.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker | undefined;
afterEach(() => {
  t?.dispose();
  t = undefined;
});

interface Work {
  agent: string;
  model: string;
  calls?: boolean[];
  pushes?: number;
  commits?: number;
}

/** One session of `work.agent` on `work.model` at `at`: its tool calls (true: ok), pushes and commits. */
function session(tracker: TempTracker, id: string, at: string, work: Work): void {
  const clock = new Date(at);
  const service = new TrackingService({ store: tracker.store, config: tracker.config, logger: silentLogger, project: '/p/app', now: () => clock });
  service.noteSession(id, { project: '/p/app' });
  service.noteModelRequest(id, work.agent, work.model);
  (work.calls ?? []).forEach((ok, index) => service.recordToolCall(id, `prt_${id}_${index}`, 'bash', ok));
  for (let push = 0; push < (work.pushes ?? 0); push += 1) service.recordPush(id, { eventId: `push_${id}_${push}` });
  for (let commit = 0; commit < (work.commits ?? 0); commit += 1) {
    const hash = `${id}${commit}`.padEnd(40, 'a').replace(/[^0-9a-f]/g, 'b');
    service.recordCommits(id, [{ hash, parents: ['f'.repeat(40)], message: `change ${commit} of ${id}`, files: ['a.txt'], insertions: 1, deletions: 0, timestamp: at }], { eventId: `commit_${id}_${commit}` });
  }
  expect(service.endTurn(id).ok).toBe(true);
}

const T = (day: number): string => `2025-03-${String(day).padStart(2, '0')}T10:00:00.000Z`;

describe('status answer', () => {
  it("gives every agent its sheet and its work: sessions, tool calls and failures, pushes, commits, models by sessions", () => {
    t = tempTracker();
    session(t, 's1', T(1), { agent: 'build', model: 'fake/b', calls: [true, false], pushes: 1, commits: 1 });
    session(t, 's2', T(2), { agent: 'build', model: 'fake/a', calls: [true] });
    session(t, 's3', T(3), { agent: 'build', model: 'fake/b', calls: [false, false, true] });
    session(t, 's4', T(4), { agent: 'build', model: 'fake/c', calls: [true] });
    session(t, 's5', T(5), { agent: 'plan', model: 'fake/a', calls: [true] });
    const answer = statusAnswer(t.store, t.config.rules);
    const byId = new Map(answer.agents.map((agent) => [agent.id, agent]));
    expect([...byId.keys()].sort()).toEqual(['build', 'plan']);
    const build = byId.get('build');
    expect(build && { sessions: build.sessions, toolCalls: build.toolCalls, toolFailures: build.toolFailures, pushes: build.pushes, commits: build.commits, models: build.models }).toEqual({
      sessions: 4,
      toolCalls: 7,
      toolFailures: 3,
      pushes: 1,
      commits: 1,
      // fake/b has two sessions; fake/a and fake/c one each, in name order.
      models: ['fake/b', 'fake/a', 'fake/c'],
    });
    const plan = byId.get('plan');
    expect(plan && { sessions: plan.sessions, toolCalls: plan.toolCalls, toolFailures: plan.toolFailures, pushes: plan.pushes, commits: plan.commits, models: plan.models }).toEqual({
      sessions: 1,
      toolCalls: 1,
      toolFailures: 0,
      pushes: 0,
      commits: 0,
      models: ['fake/a'],
    });
  });

  it('gives an agent that worked without earning anything yet a fresh sheet beside its work, as report shows it', () => {
    t = tempTracker();
    // asker's only tool call failed: it earned nothing, so it has no agent record, but its session is in the report.
    session(t, 's1', T(1), { agent: 'build', model: 'fake/a', calls: [true] });
    session(t, 's2', T(2), { agent: 'asker', model: 'fake/c', calls: [false] });
    expect(t.store.tables.agents.doesExist('asker')).toBe(false);
    expect(statusAnswer(t.store, t.config.rules).agents.map((agent) => agent.id)).toEqual(['asker', 'build']);
    const [asker] = statusAnswer(t.store, t.config.rules, 'asker').agents;
    // A new agent starts at SP 1, XP 0, CS 60 (README).
    expect(asker).toMatchObject({ id: 'asker', sp: 1, xp: 0, cs: 60, bugs: 0, halted: false, sessions: 1, toolCalls: 1, toolFailures: 1, models: ['fake/c'], createdAt: T(2) });
    expect(statusAnswer(t.store, t.config.rules, 'nobody').agents).toEqual([]);
  });

  it('lists stored sheets as stored and fresh ones in name order, a fresh one dated by its first and last records', () => {
    t = tempTracker();
    // zeta and build earn XP (a successful call each); asker only fails, twice, on two days.
    session(t, 's1', T(1), { agent: 'zeta', model: 'fake/a', calls: [true] });
    session(t, 's2', T(3), { agent: 'asker', model: 'fake/c', calls: [false] });
    session(t, 's3', T(2), { agent: 'build', model: 'fake/a', calls: [true, true] });
    session(t, 's4', T(5), { agent: 'asker', model: 'fake/c', calls: [false] });
    const answer = statusAnswer(t.store, t.config.rules);
    expect(answer.agents.map((agent) => agent.id)).toEqual(['asker', 'build', 'zeta']);
    // The stored sheets, not fresh ones: build earned 2 XP, zeta 1 (one per successful call).
    expect(answer.agents.map((agent) => agent.xp)).toEqual([0, 2, 1]);
    const asker = answer.agents[0];
    expect(asker && [asker.createdAt, asker.updatedAt, asker.sessions]).toEqual([T(3), t.store.tables.usage.get(['s4', 'asker', 'fake/c'])?.lastAt, 2]);
  });

  it('carries the sheet of the agent record: the figures stored, its tier and label, and its credited commits', () => {
    t = tempTracker();
    session(t, 's1', T(1), { agent: 'build', model: 'fake/a', commits: 2 });
    const stored = t.store.tables.agents.get('build');
    const [build] = statusAnswer(t.store, t.config.rules, 'build').agents;
    expect(stored).toBeDefined();
    expect(build).toMatchObject({ id: 'build', sp: stored?.sp, xp: stored?.xp, cs: stored?.cs, creditedCommits: stored?.commits, commits: 2 });
    expect(typeof build?.tier).toBe('string');
    expect(typeof build?.csLabel).toBe('string');
  });

  it('gives an agent known only by its record (imported, no session here) no work at all', () => {
    t = tempTracker();
    t.store.applyBatch([{ table: 'agents', key: 'imported', ops: [{ kind: 'commits', amount: 2 }] }], t.config.rules, T(1));
    const [agent] = statusAnswer(t.store, t.config.rules, 'imported').agents;
    expect(agent && { commits: agent.commits, creditedCommits: agent.creditedCommits, sessions: agent.sessions, toolCalls: agent.toolCalls, toolFailures: agent.toolFailures, pushes: agent.pushes, models: agent.models }).toEqual({
      commits: 0,
      creditedCommits: 2,
      sessions: 0,
      toolCalls: 0,
      toolFailures: 0,
      pushes: 0,
      models: [],
    });
  });

  it('answers for one agent only when named, and for none when the name is unknown', () => {
    t = tempTracker();
    session(t, 's1', T(1), { agent: 'build', model: 'fake/a', calls: [true] });
    session(t, 's2', T(2), { agent: 'plan', model: 'fake/b', calls: [true] });
    expect(statusAnswer(t.store, t.config.rules, 'plan').agents.map((agent) => [agent.id, agent.models])).toEqual([['plan', ['fake/b']]]);
    expect(statusAnswer(t.store, t.config.rules, 'nobody').agents).toEqual([]);
    expect(statusAnswer(t.store, t.config.rules).agents.map((agent) => agent.id).sort()).toEqual(['build', 'plan']);
  });
});

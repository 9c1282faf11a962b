/**
 * Replayed history earns nothing a recorded session already earned: a copy of OpenCode's store
 * with fresh session ids (or every id fresh), backfilled after the original or after live
 * tracking, leaves every agent's XP, SP, CS and commit counts as they were. Fixture stores in
 * OpenCode's SQLite layout, a temporary LMDB.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { COPY_OF_RECORDED, LIVE_SPAN_SLACK_MS } from '../../src/core/backfill/replay-ledger.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { importHistory } from '../../src/opencode/history/import.js';
import { writeSqliteHistory } from '../helpers/opencode-history.js';
import type { FixtureMessage, FixtureSession } from '../helpers/opencode-history.js';
import { repoWithCommits } from '../helpers/printed-commits.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { recordingLogger, tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

// Real git and real processes on a shared machine: seconds each, more under load.
jest.setTimeout(60_000);

const tempDir = useTempDirs('agent-tracker-replay-credit-');
let tracker: TempTracker | undefined;
afterEach(() => {
  tracker?.dispose();
  tracker = undefined;
});

const T0 = Date.UTC(2025, 3, 1, 9, 0, 0);
const tokens = (input: number, output: number) => ({ input, output, reasoning: 0, cache: { read: 0, write: 0 } });
/** Levels far apart, so XP earned stays XP (a level-up would spend it). */
const NO_LEVEL_UPS = { rules: { xpPerLevelFactor: 1_000_000 } };

/** The project's repository (made once per folder): "first" and "second", made while ses_one's calls ran; what git printed for each. */
const repos = new Map<string, { printed: string[]; full: string[] }>();
function repoOf(project: string): { printed: string[]; full: string[] } {
  let repo = repos.get(project);
  if (!repo) {
    const { printed } = repoWithCommits(project, ['first', 'second'], [T0 + 1010, T0 + 5010]);
    const full = ['HEAD~1', 'HEAD'].map((ref) => execFileSync('git', ['rev-parse', ref], { cwd: project, encoding: 'utf8' }).trim());
    repos.set(project, (repo = { printed, full }));
  }
  return repo;
}

/** One session of `build` with tool calls, two commits and a push; one of `plan`. */
function original(project: string): FixtureSession[] {
  const { printed } = repoOf(project);
  return [
    {
      id: 'ses_one', directory: project, created: T0, updated: T0 + 60_000,
      messages: [
        { id: 'msg_one_0', role: 'user', created: T0 },
        {
          id: 'msg_one_1', role: 'assistant', agent: 'build', providerID: 'anthropic', modelID: 'claude', tokens: tokens(100, 20), cost: 0.25, created: T0 + 1000,
          tools: [
            { callId: 'call_1', tool: 'bash', status: 'completed', command: 'npm test', output: 'ok', exit: 0 },
            { callId: 'call_2', tool: 'edit', status: 'completed' },
            { callId: 'call_3', tool: 'bash', status: 'completed', command: 'git commit -am "first"', output: printed[0], exit: 0 },
          ],
        },
        {
          id: 'msg_one_2', role: 'assistant', agent: 'build', providerID: 'anthropic', modelID: 'claude', tokens: tokens(50, 10), cost: 0.125, created: T0 + 5000,
          tools: [
            { callId: 'call_4', tool: 'bash', status: 'completed', command: 'git commit -am "second" && git push', output: printed[1], exit: 0 },
          ],
        },
      ],
    },
    {
      id: 'ses_two', directory: project, created: T0 + 100_000, updated: T0 + 200_000,
      messages: [{ id: 'msg_two_1', role: 'assistant', agent: 'plan', providerID: 'openai', modelID: 'gpt', tokens: tokens(10, 2), cost: 0.05, created: T0 + 100_500, tools: [{ callId: 'call_5', tool: 'grep', status: 'completed' }] }],
    },
  ];
}

/** The same sessions under fresh session ids; with `everyId`, fresh message and call ids too (times kept). */
function copied(sessions: readonly FixtureSession[], everyId: boolean): FixtureSession[] {
  return sessions.map((session) => ({
    ...session,
    id: `${session.id}_copy`,
    messages: session.messages.map((message) => ({
      ...message,
      id: everyId ? `${message.id}_copy` : message.id,
      ...(message.tools ? { tools: message.tools.map((tool) => ({ ...tool, callId: everyId ? `${tool.callId}_copy` : tool.callId })) } : {}),
    })),
  }));
}

/** What credit a user would look at: each agent's SP, XP, CS and commits, commits recorded, commits counted in reports. */
function credit(t: TempTracker): unknown {
  const agents = [...t.store.tables.agents.getRange({})].map(({ value }) => ({ id: value.id, sp: value.sp, xp: value.xp, cs: value.cs, commits: value.commits }));
  const usage = [...t.store.tables.usage.getRange({})].map(({ value }) => value);
  return {
    agents,
    commitRecords: t.store.tables.commits.getKeysCount(),
    reportedCommits: usage.reduce((sum, record) => sum + record.commits, 0),
    reportedToolCalls: usage.reduce((sum, record) => sum + record.toolCalls, 0),
  };
}

async function backfill(t: TempTracker, sessions: FixtureSession[]) {
  const dataDir = tempDir();
  await writeSqliteHistory(dataDir, sessions);
  const outcome = await importHistory(t.another(), dataDir);
  if (outcome.upToDate) throw new Error('expected an import');
  return outcome.summary;
}

describe('a backfill of copied history', () => {
  it.each([
    ['fresh session ids, the same message and call ids', false],
    ['every id fresh, the same times', true],
  ])('earns nothing from a second store holding the same sessions under %s', async (_name, everyId) => {
    const project = tempDir();
    tracker = tempTracker(NO_LEVEL_UPS, project);
    await backfill(tracker, original(project));
    const before = credit(tracker);
    // The first backfill earned: two commits of build, XP for its work.
    expect(tracker.store.tables.agents.get('build')).toMatchObject({ commits: 2 });

    const summary = await backfill(tracker, copied(original(project), everyId));
    expect(credit(tracker)).toEqual(before);
    expect(summary.skipped[COPY_OF_RECORDED]).toBe(2);
    expect(summary.sessions).toBe(0);
  });

  it('earns nothing from a copy, every id fresh, of a session whose agent changed model midway', async () => {
    const project = tempDir();
    tracker = tempTracker(NO_LEVEL_UPS, project);
    const message = (id: string, modelID: string, providerID: string, at: number, callId: string): FixtureMessage => ({
      id, role: 'assistant', agent: 'build', providerID, modelID, tokens: tokens(10, 2), cost: 0.01, created: at,
      tools: [{ callId, tool: 'edit', status: 'completed' }],
    });
    // build ran on claude, then on gpt: two usage records, each with its own span.
    const session: FixtureSession = {
      id: 'ses_switch', directory: project, created: T0, updated: T0 + 20_000,
      messages: [message('msg_s_1', 'claude', 'anthropic', T0 + 1000, 'call_s_1'), message('msg_s_2', 'claude', 'anthropic', T0 + 5000, 'call_s_2'), message('msg_s_3', 'gpt', 'openai', T0 + 9000, 'call_s_3')],
    };
    await backfill(tracker, [session]);
    const before = credit(tracker);
    expect([...tracker.store.tables.usage.getKeys({})]).toHaveLength(2);

    const summary = await backfill(tracker, copied([session], true));
    expect(summary.skipped[COPY_OF_RECORDED]).toBe(1);
    expect(credit(tracker)).toEqual(before);
  });

  it('earns once from one store holding the sessions and their copy, read in one run', async () => {
    const project = tempDir();
    const alone = tempTracker(NO_LEVEL_UPS, project);
    try {
      await backfill(alone, original(project));
      tracker = tempTracker(NO_LEVEL_UPS, project);
      await backfill(tracker, [...original(project), ...copied(original(project), true)]);
      expect(credit(tracker)).toEqual(credit(alone));
    } finally {
      alone.dispose();
    }
  });

  it('earns nothing from a copy, every id fresh, of sessions tracked live', async () => {
    const project = tempDir();
    tracker = tempTracker(NO_LEVEL_UPS, project);
    // The live session ran at the fixture's times: the tracker's clock moves a second per event.
    let clock = T0 + 900;
    const live = new TrackingService({ store: tracker.store, config: tracker.config, logger: recordingLogger([]), project, now: () => new Date((clock += 1000)) });
    live.noteSession('ses_one', { project });
    live.noteModelRequest('ses_one', 'build', 'anthropic/claude');
    live.recordAssistantMessage('ses_one', 'msg_one_1', { agent: 'build', model: 'anthropic/claude' }, { input: 100, output: 20, reasoning: 0, cacheRead: 0, cacheWrite: 0 }, 0.25);
    live.recordToolCall('ses_one', 'msg_one_1-p1', 'bash', true, { command: 'npm test' });
    live.recordCommits('ses_one', [{ hash: repoOf(project).full[0] ?? '', parents: ['f'.repeat(40)], message: 'first', files: ['a.txt'], insertions: 1, deletions: 0, timestamp: new Date(T0).toISOString() }], { eventId: 'msg_one_1-p3' });
    live.recordAssistantMessage('ses_one', 'msg_one_2', { agent: 'build', model: 'anthropic/claude' }, { input: 50, output: 10, reasoning: 0, cacheRead: 0, cacheWrite: 0 }, 0.125);
    expect(live.endTurn('ses_one').ok).toBe(true);
    const before = credit(tracker);

    const copy = copied(original(project), true).slice(0, 1);
    const summary = await backfill(tracker, copy);
    expect(credit(tracker)).toEqual(before);
    expect(summary.skipped[COPY_OF_RECORDED]).toBe(1);
  });

  it('records two different sessions of one setup that ran at the same time', async () => {
    const project = tempDir();
    tracker = tempTracker(NO_LEVEL_UPS, project);
    // A second window on the same project: the same agent and model, overlapping times, its own ids.
    const parallel = copied(original(project), true).slice(0, 1).map((session) => ({
      ...session,
      messages: session.messages.map((message) => ({ ...message, created: message.created + 1500 })),
    }));
    const summary = await backfill(tracker, [...original(project), ...parallel]);
    expect(summary.skipped[COPY_OF_RECORDED]).toBeUndefined();
    expect(summary.sessions).toBe(3);
    const sessions = new Set([...tracker.store.tables.usage.getRange({})].map(({ value }) => value.sessionId));
    expect(sessions).toEqual(new Set(['ses_one', 'ses_two', 'ses_one_copy']));
  });

  it('tells a copy from new work by the live sessions of the same setup it falls inside, to the slack', async () => {
    const project = tempDir();
    tracker = tempTracker(NO_LEVEL_UPS, project);
    let clock = 0;
    const live = new TrackingService({ store: tracker.store, config: tracker.config, logger: recordingLogger([]), project, now: () => new Date(clock) });
    // Three live sessions of build, ten seconds each, a hundred seconds apart (one of plan at the same times).
    for (const window of [0, 1, 2]) {
      const start = T0 + window * 100_000;
      for (const [agent, model] of [['build', 'anthropic/claude'], ['plan', 'openai/gpt']] as const) {
        const session = `live_${agent}_${window}`;
        live.noteSession(session, { project });
        live.noteModelRequest(session, agent, model);
        for (const at of [start, start + 10_000]) {
          clock = at;
          live.recordAssistantMessage(session, `${session}_${at}`, { agent, model }, { input: 1, output: 1, reasoning: 0, cacheRead: 0, cacheWrite: 0 }, 0);
        }
        expect(live.endTurn(session).ok).toBe(true);
      }
    }
    /** A session OpenCode kept that the tracker does not know, of build, with messages completed at these times. */
    const unknown = (id: string, times: number[], agent = 'build', modelID = 'claude'): FixtureSession => ({
      id, directory: project, created: (times[0] as number) - 500, updated: (times[times.length - 1] as number) + 1000,
      // The fixture completes a message 500 ms after it was created.
      messages: times.map((at, index) => ({ id: `${id}_m${index}`, role: 'assistant' as const, agent, providerID: agent === 'build' ? 'anthropic' : 'openai', modelID, created: at - 500 })),
    });
    const middle = T0 + 100_000;
    const summary = await backfill(tracker, [
      unknown('inside_middle', [middle + 2000, middle + 9000]),
      unknown('inside_last_with_slack', [T0 + 200_000 - LIVE_SPAN_SLACK_MS, T0 + 210_000 + LIVE_SPAN_SLACK_MS]),
      unknown('between_windows', [T0 + 150_000]),
      unknown('just_past_slack', [T0 + 210_000 + LIVE_SPAN_SLACK_MS + 1]),
      unknown('partly_inside', [middle + 2000, T0 + 150_000]),
      unknown('another_model', [middle + 2000], 'build', 'haiku'),
    ]);
    expect(summary.skipped[COPY_OF_RECORDED]).toBe(2);
    const recorded = new Set([...tracker.store.tables.usage.getRange({})].map(({ value }) => value.sessionId).filter((id) => !id.startsWith('live_')));
    expect(recorded).toEqual(new Set(['between_windows', 'just_past_slack', 'partly_inside', 'another_model']));
  });

  it('adds the rest of a session it tracked live, under an agent whose name sorts before lowercase ones', async () => {
    const project = tempDir();
    tracker = tempTracker(NO_LEVEL_UPS, project);
    const live = tracker.service;
    live.noteSession('ses_cap', { project });
    live.noteModelRequest('ses_cap', 'Architect', 'anthropic/claude');
    live.recordAssistantMessage('ses_cap', 'msg_cap_1', { agent: 'Architect', model: 'anthropic/claude' }, { input: 100, output: 20, reasoning: 0, cacheRead: 0, cacheWrite: 0 }, 0.25);
    expect(live.endTurn('ses_cap').ok).toBe(true);
    const session: FixtureSession = {
      id: 'ses_cap', directory: project, created: T0, updated: T0 + 60_000,
      messages: [
        { id: 'msg_cap_1', role: 'assistant', agent: 'Architect', providerID: 'anthropic', modelID: 'claude', tokens: tokens(100, 20), cost: 0.25, created: T0 + 1000 },
        { id: 'msg_cap_2', role: 'assistant', agent: 'Architect', providerID: 'anthropic', modelID: 'claude', tokens: tokens(50, 10), cost: 0.125, created: T0 + 5000 },
      ],
    };
    await backfill(tracker, [session]);
    // The live message once, and the one live tracking never saw.
    const record = [...tracker.store.tables.usage.getRange({})].map(({ value }) => value).find((value) => value.sessionId === 'ses_cap');
    expect(record).toMatchObject({ agent: 'Architect', messages: 2, tokensInput: 100 + 50, tokensOutput: 20 + 10, cost: 0.25 + 0.125 });
  });

  it('counts once a commit two sessions of one run both printed, the first one still unwritten', async () => {
    const project = tempDir();
    tracker = tempTracker(NO_LEVEL_UPS, project);
    // A later session of the same run prints the hash the first one committed (an amend seen twice).
    const later: FixtureSession = {
      id: 'ses_three', directory: project, created: T0 + 900_000, updated: T0 + 960_000,
      messages: [{
        id: 'msg_three_1', role: 'assistant', agent: 'build', providerID: 'anthropic', modelID: 'claude', tokens: tokens(30, 3), cost: 0.01, created: T0 + 901_000,
        tools: [{ callId: 'call_6', tool: 'bash', status: 'completed', command: 'git commit -am "first"', output: repoOf(project).printed[0], exit: 0 }],
      }],
    };
    const summary = await backfill(tracker, [...original(project), later]);
    // The first session's two commits; the third session's hash is the first of them.
    expect(summary).toMatchObject({ sessions: 3, commits: 2 });
    expect(credit(tracker)).toMatchObject({ commitRecords: 2, reportedCommits: 2 });
    const three = [...tracker.store.tables.usage.getRange({})].map(({ value }) => value).find((record) => record.sessionId === 'ses_three');
    expect(three).toMatchObject({ toolCalls: 1, commits: 0 });
  });

  it('still records new work, but a commit another session already recorded is neither counted nor credited again', async () => {
    const project = tempDir();
    tracker = tempTracker(NO_LEVEL_UPS, project);
    await backfill(tracker, original(project));
    const build = tracker.store.tables.agents.get('build');
    // A later, different session prints the hash of a commit already recorded (a rebase, an amend seen twice).
    const later: FixtureSession = {
      id: 'ses_three', directory: project, created: T0 + 900_000, updated: T0 + 960_000,
      messages: [{
        id: 'msg_three_1', role: 'assistant', agent: 'build', providerID: 'anthropic', modelID: 'claude', tokens: tokens(30, 3), cost: 0.01, created: T0 + 901_000,
        tools: [
          { callId: 'call_6', tool: 'bash', status: 'completed', command: 'git commit -am "first"', output: repoOf(project).printed[0], exit: 0 },
          { callId: 'call_7', tool: 'read', status: 'completed' },
        ],
      }],
    };
    const summary = await backfill(tracker, [...original(project), later]);
    // Three sessions read, and only the new one adds anything: its message and two tool calls, no commit.
    expect(summary).toMatchObject({ sessions: 1, messages: 1, toolCalls: 2, commits: 0 });
    const three = [...tracker.store.tables.usage.getRange({})].map(({ value }) => value).find((record) => record.sessionId === 'ses_three');
    expect(three).toMatchObject({ toolCalls: 2, commits: 0 });
    const rules = tracker.config.rules;
    expect(tracker.store.tables.agents.get('build')).toMatchObject({ commits: build?.commits, xp: (build?.xp ?? 0) + 2 * rules.xpPerToolCall });
  });
});

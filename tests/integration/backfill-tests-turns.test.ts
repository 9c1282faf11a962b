/**
 * Backfill replays test runs (runs, passes, recoveries in order within a session) and turns (one per
 * user prompt, classified by task kind from the prompt and the files edited) from OpenCode's history,
 * so a session backfilled into a fresh database reads the same figures as the same session tracked
 * live through the real hooks; and in every order (live then backfill, backfill then live, backfill
 * twice, a database counted by a version before keys) each is counted once.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { replaySession } from '../../src/core/backfill/replay-session.js';
import type { ReplayTarget } from '../../src/core/backfill/replay-session.js';
import { runBackfill } from '../../src/core/backfill/run.js';
import { classifyTaskKind, TASK_KIND_COUNTERS } from '../../src/core/outcomes/task-kind.js';
import type { TrackingService } from '../../src/core/tracking/service.js';
import type { CounterName, UsageRecord } from '../../src/core/types.js';
import { openHistory } from '../../src/opencode/history/locate.js';
import { createHooks } from '../../src/opencode/hooks.js';
import { writeJsonHistory, writeSqliteHistory } from '../helpers/opencode-history.js';
import type { FixtureMessage, FixtureSession } from '../helpers/opencode-history.js';
import { trackLive } from '../helpers/track-live.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { recordingLogger, tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const tempDir = useTempDirs('agent-tracker-backfill-tests-turns-');
const trackers: TempTracker[] = [];
afterEach(() => {
  for (const t of trackers.splice(0)) t.dispose();
});

const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
const BUILD = { agent: 'build', providerID: 'anthropic', modelID: 'claude' } as const;
const PLAN = { agent: 'plan', providerID: 'openai', modelID: 'gpt' } as const;
const tokens = { input: 10, output: 2, reasoning: 0, cache: { read: 0, write: 0 } };

/**
 * Three turns: a bug fix (red then green: a recovery), docs (build's recovery taken back under plan,
 * then plan turns it green again), a question. The host's own note in the first prompt is not the user's.
 */
function session(project: string): FixtureSession {
  const answer = (id: string, setup: typeof BUILD | typeof PLAN, created: number, tools: FixtureMessage['tools'] = []): FixtureMessage => ({ id, role: 'assistant', ...setup, tokens, cost: 0.01, created, tools });
  return {
    id: 'ses_tt',
    directory: project,
    created: T0,
    updated: T0 + 60_000,
    messages: [
      { id: 'msg_u1', role: 'user', created: T0, text: 'Fix the crash in the parser', syntheticText: 'Called the Read tool with the following input' },
      answer('msg_a1', BUILD, T0 + 1000, [
        { callId: 'call_0', tool: 'bash', status: 'completed', command: 'npm test', output: '1 failing', exit: 1 },
        { callId: 'call_1', tool: 'edit', status: 'completed', filePath: `${project}/src/parser.ts` },
      ]),
      answer('msg_a2', BUILD, T0 + 2000, [{ callId: 'call_0', tool: 'bash', status: 'completed', command: 'npm test', output: 'ok', exit: 0 }]),
      { id: 'msg_u2', role: 'user', created: T0 + 10_000, text: 'Explain the parser in the readme' },
      answer('msg_a3', PLAN, T0 + 11_000, [
        { callId: 'call_0', tool: 'edit', status: 'completed', filePath: `${project}/README.md` },
        { callId: 'call_1', tool: 'bash', status: 'completed', command: 'npx jest', output: 'fail', exit: 1 },
        { callId: 'call_2', tool: 'bash', status: 'completed', command: 'ls', output: '', exit: 0 },
      ]),
      answer('msg_a4', PLAN, T0 + 12_000, [{ callId: 'call_0', tool: 'bash', status: 'completed', command: 'npx jest', output: 'ok', exit: 0 }]),
      { id: 'msg_u3', role: 'user', created: T0 + 20_000, text: 'What does the parser return?' },
      answer('msg_a5', PLAN, T0 + 21_000),
    ],
  };
}

const FIGURES: CounterName[] = ['testRuns', 'testPasses', 'testRecoveries', 'turns', ...Object.values(TASK_KIND_COUNTERS)];

/** The test and turn figures of each usage record (zeros left out), by agent × model; of one session when named. */
function figures(t: TempTracker, sessionId?: string): Record<string, Partial<Record<CounterName, number>>> {
  const out: Record<string, Partial<Record<CounterName, number>>> = {};
  for (const { value } of t.store.tables.usage.getRange()) {
    const record = value as UsageRecord;
    if (sessionId !== undefined && record.sessionId !== sessionId) continue;
    const kept: Partial<Record<CounterName, number>> = {};
    for (const name of FIGURES) if ((record[name] ?? 0) !== 0) kept[name] = record[name];
    out[`${record.agent} ${record.model}`] = kept;
  }
  return out;
}

/**
 * What the session should read, worked out from the fixture: each bash call that runs tests (npm test,
 * npx jest) is a run, a pass when it exited 0; the session's recovery moves +1 when a run passes after a
 * failure and -1 when a recovered session fails again, on the record of the setup that ran it; each
 * prompt is one turn of the setup that answered it last, of the kind its edits or words say.
 */
function expectedFigures(fixture: FixtureSession): Record<string, Partial<Record<CounterName, number>>> {
  const out: Record<string, Partial<Record<CounterName, number>>> = {};
  const add = (setup: string, name: CounterName, by: number): void => {
    const record = (out[setup] ??= {});
    record[name] = (record[name] ?? 0) + by;
    if (record[name] === 0) delete record[name];
  };
  let red = false;
  let recovered = false;
  let turn: { prompt: string; files: string[]; setup?: string } | undefined;
  const endTurn = (): void => {
    if (turn?.setup) {
      add(turn.setup, 'turns', 1);
      add(turn.setup, TASK_KIND_COUNTERS[classifyTaskKind({ prompt: turn.prompt, filesEdited: turn.files })], 1);
    }
  };
  for (const message of fixture.messages) {
    if (message.role === 'user') {
      endTurn();
      turn = { prompt: message.text ?? '', files: [] };
      continue;
    }
    const setup = `${message.agent} ${message.providerID}/${message.modelID}`;
    if (turn) turn.setup = setup;
    for (const tool of message.tools ?? []) {
      if (tool.tool === 'edit' && tool.filePath) turn?.files.push(tool.filePath);
      if (!tool.command || !/^(npm test|npx jest)$/.test(tool.command)) continue;
      const passed = tool.exit === 0;
      add(setup, 'testRuns', 1);
      if (passed) add(setup, 'testPasses', 1);
      if (passed && red && !recovered) {
        recovered = true;
        add(setup, 'testRecoveries', 1);
      } else if (!passed && recovered) {
        recovered = false;
        add(setup, 'testRecoveries', -1);
      }
      red = !passed;
    }
  }
  endTurn();
  return out;
}

type Hooks = ReturnType<typeof createHooks>;

function tracker(project: string): TempTracker {
  const t = tempTracker({}, project);
  trackers.push(t);
  return t;
}

function hooksOf(t: TempTracker, service: TrackingService = t.service): Hooks {
  return createHooks({ service, logger: recordingLogger(t.logged), directory: t.dir, ownTools: new Set() });
}

async function backfill(t: TempTracker, dataDir: string, service: TrackingService = t.another()): Promise<void> {
  const source = await openHistory(dataDir);
  try {
    await runBackfill(service, source);
  } finally {
    source.close();
  }
}

describe('backfill of test runs and turns', () => {
  it.each(['sqlite', 'json'] as const)('reads the same test and turn figures as live tracking of the same session (%s store)', async (layout) => {
    const project = tempDir();
    const fixture = session(project);
    const dataDir = tempDir();
    if (layout === 'sqlite') await writeSqliteHistory(dataDir, [fixture]);
    else writeJsonHistory(dataDir, [fixture]);
    const expected = expectedFigures(fixture);
    // The fixture reaches each branch: a recovery, one taken back (-1), every kind used here.
    expect(expected).toEqual({
      'build anthropic/claude': { testRuns: 2, testPasses: 1, testRecoveries: 1, turns: 1, turnsBugFix: 1 },
      'plan openai/gpt': { testRuns: 2, testPasses: 1, turns: 2, turnsDocs: 1, turnsOther: 1 },
    });

    const live = tracker(project);
    await trackLive(hooksOf(live), fixture);
    expect(figures(live)).toEqual(expected);

    const backfilled = tracker(project);
    await backfill(backfilled, dataDir);
    expect(figures(backfilled)).toEqual(expected);
  });

  it('counts each test run and turn once in every order: live then backfill, backfill then live, backfill twice', async () => {
    const project = tempDir();
    const fixture = session(project);
    const dataDir = tempDir();
    await writeSqliteHistory(dataDir, [fixture]);
    const expected = expectedFigures(fixture);

    const liveFirst = tracker(project);
    await trackLive(hooksOf(liveFirst), fixture);
    await backfill(liveFirst, dataDir);
    expect(figures(liveFirst)).toEqual(expected);

    const backfillFirst = tracker(project);
    await backfill(backfillFirst, dataDir);
    expect(figures(backfillFirst)).toEqual(expected);
    // The plugin was tracking the same session while the backfill read it: the hooks report it all again.
    await trackLive(hooksOf(backfillFirst, backfillFirst.another()), fixture);
    expect(figures(backfillFirst)).toEqual(expected);

    const twice = tracker(project);
    await backfill(twice, dataDir);
    await backfill(twice, dataDir);
    expect(figures(twice)).toEqual(expected);
  });

  it('adds to a session backfilled while it ran only what came after, and the turn it was still in once', async () => {
    const project = tempDir();
    const fixture = session(project);
    const expected = expectedFigures(fixture);
    // OpenCode's store as read in the middle of the second turn: its first answer written, not finished.
    const early = tempDir();
    const running: FixtureSession = { ...fixture, messages: fixture.messages.slice(0, 5).map((m) => (m.id === 'msg_a3' ? { ...m, unfinished: true } : m)) };
    await writeSqliteHistory(early, [running]);
    const t = tracker(project);
    await backfill(t, early);
    const firstTurnOnly = expectedFigures({ ...fixture, messages: fixture.messages.slice(0, 3) });
    // The second turn's test run is in; its turn is not, as live counts a turn when it ends.
    expect(figures(t)['build anthropic/claude']).toEqual(firstTurnOnly['build anthropic/claude']);
    expect(figures(t)['plan openai/gpt']).toEqual({ testRuns: 1, testRecoveries: -1 });
    // Then the plugin tracks the rest live; a backfill after that adds nothing.
    const full = tempDir();
    await writeSqliteHistory(full, [fixture]);
    await trackLive(hooksOf(t, t.another()), fixture, { from: 3 });
    expect(figures(t)).toEqual(expected);
    await backfill(t, full);
    expect(figures(t)).toEqual(expected);
  });

  it('leaves out what a version before keys counted live, and gives sessions an older backfill imported their test runs and turns', async () => {
    const project = tempDir();
    const livePast = session(project);
    const importedPast: FixtureSession = { ...session(project), id: 'ses_old_import', created: T0 + 3_600_000, updated: T0 + 3_700_000, messages: session(project).messages.map((m) => ({ ...m, id: `${m.id}_b`, created: m.created + 3_600_000 })) };
    const dataDir = tempDir();
    await writeSqliteHistory(dataDir, [livePast, importedPast]);
    const t = tracker(project);

    // An older plugin: test runs and turns counted without a key (no call id, no message id), the rest keyed.
    const old = t.another();
    const asOldHooks: Pick<TrackingService, 'recordShellCommand' | 'noteTurnTask'> = {
      recordShellCommand: (sessionId, command, exit) => old.recordShellCommand(sessionId, command, exit),
      noteTurnTask: (sessionId, prompt) => old.noteTurnTask(sessionId, prompt),
    };
    await trackLive(hooksOf(t, Object.assign(Object.create(old) as TrackingService, asOldHooks)), livePast);
    expect(figures(t)).toEqual(expectedFigures(livePast));
    // An older backfill: the session's messages and calls, no test runs, no turns.
    const oldImport = t.another();
    const withoutTestsAndTurns: ReplayTarget = Object.assign(Object.create(oldImport) as TrackingService, { recordShellCommand: () => undefined, recordTurn: () => undefined });
    replaySession(withoutTestsAndTurns, { ...(await readSession(dataDir, importedPast.id)) }, project);
    oldImport.flush('old backfill');

    await backfill(t, dataDir);
    expect(figures(t, livePast.id)).toEqual(expectedFigures(livePast));
    expect(figures(t, importedPast.id)).toEqual(expectedFigures(importedPast));
  });
});

/** One session of a history store, as the readers give it. */
async function readSession(dataDir: string, id: string) {
  const source = await openHistory(dataDir);
  try {
    for await (const item of source.sessions({})) if (!('unreadable' in item) && item.id === id) return item;
  } finally {
    source.close();
  }
  throw new Error(`no session ${id}`);
}

/**
 * Backfill from fixture stores of both OpenCode layouts into a temporary LMDB: totals per agent ×
 * model equal the store's, bad input is counted and skipped, and replaying twice (or after live
 * tracking of the same session) never counts anything twice.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { UnknownHistoryLayoutError } from '../../src/core/backfill/history.js';
import { PROJECT_GONE, runBackfill } from '../../src/core/backfill/run.js';
import { summaryLine } from '../../src/core/backfill/summary.js';
import type { BackfillSummary } from '../../src/core/backfill/summary.js';
import { SKIP_REASONS } from '../../src/core/backfill/replay-session.js';
import { importHistory } from '../../src/opencode/history/import.js';
import { scheduleHistoryImport } from '../../src/opencode/background-import.js';
import { needsVerification } from '../../src/core/store/open-checked.js';
import { noteSoundState, recordVerified, recordVerifiedIfOwn } from '../../src/core/store/verify.js';
import { openHistory } from '../../src/opencode/history/locate.js';
import { UNREADABLE_FILE } from '../../src/opencode/history/json-store.js';
import type { UsageRecord } from '../../src/core/types.js';
import { fixtureTokens, writeJsonHistory, writeSqliteHistory } from '../helpers/opencode-history.js';
import type { FixtureSession } from '../helpers/opencode-history.js';
import { repoWithCommits } from '../helpers/printed-commits.js';
import { cliJson, makeSandbox, removeSandbox } from '../helpers/sandbox.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { recordingLogger, tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

const tempDir = useTempDirs('agent-tracker-backfill-');
let tracker: TempTracker | undefined;
afterEach(() => {
  tracker?.dispose();
  tracker = undefined;
});

const T0 = Date.UTC(2025, 0, 10, 9, 0, 0);

/** What `git commit` printed for the commit "first" of the repository made in `project` (once per folder), made while ses_a's first call ran. */
const printedFirst = new Map<string, string>();
function firstCommit(project: string): string {
  let printed = printedFirst.get(project);
  if (printed === undefined) printedFirst.set(project, (printed = repoWithCommits(project, ['first'], [T0 + 1010]).printed[0] ?? ''));
  return printed;
}

/** Two sessions, two agents, one folder that is gone, and every kind of bad part. */
function fixture(project: string): FixtureSession[] {
  const printed = firstCommit(project);
  return [
    {
      id: 'ses_a',
      directory: project,
      created: T0,
      updated: T0 + 60_000,
      messages: [
        { id: 'msg_a0', role: 'user', created: T0 },
        {
          id: 'msg_a1', role: 'assistant', agent: 'build', providerID: 'anthropic', modelID: 'claude', tokens: fixtureTokens(100, 20, 5, 300, 40), cost: 0.25, created: T0 + 1000,
          tools: [
            { callId: 'c1', tool: 'bash', status: 'completed', command: 'git add -A && git commit -m "first"', output: printed, exit: 0 },
            { callId: 'c2', tool: 'read', status: 'error' },
            { callId: 'c3', tool: 'bash', status: 'completed', command: 'npm test', output: 'fail', exit: 1 },
          ],
        },
        {
          id: 'msg_a2', role: 'assistant', agent: 'build', providerID: 'anthropic', modelID: 'claude', tokens: fixtureTokens(50, 10), cost: 0.125, created: T0 + 2000,
          tools: [
            { callId: 'c4', tool: 'bash', status: 'completed', command: 'git push origin main', output: 'ok', exit: 0 },
            { callId: 'c5', tool: '', status: 'completed' },
            { callId: 'c6', tool: 'edit', status: 'running' },
          ],
        },
        { id: 'msg_a3', role: 'assistant', agent: 'plan', providerID: 'openai', modelID: 'gpt', tokens: fixtureTokens(7, 3), cost: 0.5, created: T0 + 3000, tools: [{ callId: 'c7', tool: 'grep', status: 'completed' }] },
        { id: 'msg_a4', role: 'assistant', agent: 'build', tokens: fixtureTokens(1, 1), created: T0 + 4000 },
      ],
    },
    {
      id: 'ses_b',
      directory: '/no/such/folder/anymore',
      created: T0 + 100_000,
      updated: T0 + 200_000,
      messages: [{ id: 'msg_b1', role: 'assistant', agent: 'build', providerID: 'anthropic', modelID: 'claude', tokens: fixtureTokens(10, 2), cost: 0.0625, created: T0 + 100_500, tools: [{ callId: 'c1', tool: 'bash', status: 'completed', command: 'ls', exit: 0 }] }],
    },
  ];
}

/**
 * A later session of build in `project` whose commit printed no hash (`git commit -q`, counted by the
 * command) and that pushed: one message, two tool calls, one commit, one push.
 */
function quietSession(project: string, at: number): FixtureSession {
  // The commit itself, in the project's repository (the fixture's), made while the call ran.
  fs.writeFileSync(path.join(project, 'quiet.txt'), 'quiet\n');
  execFileSync('git', ['add', '-A'], { cwd: project });
  const date = `@${Math.floor((at + 1010) / 1000)} +0000`;
  execFileSync('git', ['commit', '-q', '-m', 'quiet'], { cwd: project, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } });
  return {
    id: 'ses_q',
    directory: project,
    created: at,
    updated: at + 10_000,
    messages: [
      { id: 'msg_q0', role: 'user', created: at },
      {
        id: 'msg_q1', role: 'assistant', agent: 'build', providerID: 'anthropic', modelID: 'claude', tokens: fixtureTokens(5, 1), cost: 0.03125, created: at + 1000,
        tools: [
          { callId: 'q1', tool: 'bash', status: 'completed', command: 'git commit -q -am "quiet"', output: '', exit: 0 },
          { callId: 'q2', tool: 'bash', status: 'completed', command: 'git push', output: '', exit: 0 },
        ],
      },
    ],
  };
}
const QUIET_ADDS = { sessions: 1, messages: 1, toolCalls: 2, commits: 1, pushes: 1 };
const NOTHING_ADDED = { sessions: 0, messages: 0, toolCalls: 0, commits: 0, pushes: 0 };

function usage(t: TempTracker): UsageRecord[] {
  return [...t.store.tables.usage.getRange()].map(({ value }) => value);
}

function find(records: UsageRecord[], session: string, agent: string): UsageRecord {
  const record = records.find((r) => r.sessionId === session && r.agent === agent);
  if (!record) throw new Error(`no usage record for ${session} ${agent}`);
  return record;
}

const LAYOUTS = [
  ['SQLite database', (dir: string, sessions: FixtureSession[]) => writeSqliteHistory(dir, sessions)],
  ['JSON files', async (dir: string, sessions: FixtureSession[]) => writeJsonHistory(dir, sessions)],
] as const;

describe.each(LAYOUTS)('backfill from the %s layout', (_name, write) => {
  it('records each setup as live tracking would: messages, tokens by kind, cost, tool calls, failures, commits, pushes', async () => {
    const project = tempDir();
    const dataDir = tempDir();
    await write(dataDir, fixture(project));
    tracker = tempTracker();
    const source = await openHistory(dataDir);
    const summary = await runBackfill(tracker.service, source, {});
    source.close();

    const records = usage(tracker);
    expect(records).toHaveLength(3);
    const build = find(records, 'ses_a', 'build');
    expect(build).toMatchObject({
      source: 'backfill', model: 'anthropic/claude', project, messages: 2,
      tokensInput: 150, tokensOutput: 30, tokensReasoning: 5, tokensCacheRead: 300, tokensCacheWrite: 40, cost: 0.375,
      toolCalls: 4, toolFailures: 2, commits: 1, pushes: 1,
    });
    expect(build.firstAt).toBe(new Date(T0 + 1020).toISOString());
    expect(find(records, 'ses_a', 'plan')).toMatchObject({ model: 'openai/gpt', messages: 1, tokensInput: 7, tokensOutput: 3, cost: 0.5, toolCalls: 1, toolFailures: 0 });
    expect(find(records, 'ses_b', 'build')).toMatchObject({ messages: 1, toolCalls: 1, project: '/no/such/folder/anymore' });
    expect(tracker.store.tables.commits.get([project, /\[main \(root-commit\) ([0-9a-f]{7})\]/.exec(firstCommit(project))?.[1] ?? ''])).toMatchObject({ agent: 'build', message: 'first', sessionId: 'ses_a' });
    // XP as live: 3 successful non-tracker tool calls of build + commit + push; plan's one call.
    const rules = tracker.config.rules;
    expect(tracker.store.tables.agents.get('build')?.commits).toBe(1);
    expect(tracker.service.getAgentStatus('plan').xp).toBe(rules.xpPerToolCall);

    expect(summary).toMatchObject({ sessions: 2, messages: 4, toolCalls: 6, commits: 1, pushes: 1 });
    expect(summary.skipped).toEqual({
      [SKIP_REASONS.unnamedTool]: 1,
      [SKIP_REASONS.unfinishedTool]: 1,
      [SKIP_REASONS.unknownModel]: 1,
      [PROJECT_GONE]: 1,
    });
    expect(summaryLine(summary)).toMatch(/^Imported 2 session\(s\), 4 message\(s\), 6 tool call\(s\), 1 commit\(s\), 1 push\(es\) from .*; skipped 1: /);
    // What is skipped for a project whose folder is gone is its classification, not its sessions.
    expect(summaryLine(summary)).toContain('skipped 1: classifying a project whose folder is gone (its sessions are imported)');
  });

  it('writes each session whole, in one transaction, even when it is bigger than the buffer bound', async () => {
    const project = tempDir();
    const dataDir = tempDir();
    await write(dataDir, fixture(project));
    tracker = tempTracker({ flushMaxMutations: 2 });
    const t = tracker;
    const seen: UsageRecord[][] = [];
    t.service.onFlushed(() => seen.push(usage(t).filter((record) => record.sessionId === 'ses_a')));
    const source = await openHistory(dataDir);
    await runBackfill(t.service, source, {});
    source.close();
    const whole = usage(t).filter((record) => record.sessionId === 'ses_a');
    expect(whole).toHaveLength(2);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    // After every flush, ses_a is either absent or complete: never half-written.
    for (const records of seen) expect(records.length === 0 ? [] : records).toEqual(records.length === 0 ? [] : whole);
  });

  it('adds nothing when run twice', async () => {
    const project = tempDir();
    const dataDir = tempDir();
    await write(dataDir, fixture(project));
    tracker = tempTracker();
    for (let run = 0; run < 2; run += 1) {
      const source = await openHistory(dataDir);
      await runBackfill(tracker.service, source, {});
      source.close();
    }
    const build = find(usage(tracker), 'ses_a', 'build');
    expect(build).toMatchObject({ messages: 2, tokensInput: 150, cost: 0.375, toolCalls: 4, commits: 1, pushes: 1 });
    expect(tracker.store.tables.agents.get('build')?.commits).toBe(1);
  });

  it('counts what it added, so a second run over the same history (a quiet commit and a push in it) reports nothing', async () => {
    const project = tempDir();
    const dataDir = tempDir();
    await write(dataDir, [...fixture(project), quietSession(project, T0 + 300_000)]);
    tracker = tempTracker();
    const source = await openHistory(dataDir);
    try {
      const wouldAdd = await runBackfill(tracker.service, source, { dryRun: true });
      const first = await runBackfill(tracker.service, source, {});
      const again = await runBackfill(tracker.service, source, {});
      const dryAgain = await runBackfill(tracker.service, source, { dryRun: true });
      // The fixture's two sessions (as the first test counts them) and the quiet one.
      const added = { sessions: 2 + QUIET_ADDS.sessions, messages: 4 + QUIET_ADDS.messages, toolCalls: 6 + QUIET_ADDS.toolCalls, commits: 1 + QUIET_ADDS.commits, pushes: 1 + QUIET_ADDS.pushes };
      expect(first).toMatchObject(added);
      expect(wouldAdd).toMatchObject(added);
      expect(again).toMatchObject(NOTHING_ADDED);
      expect(dryAgain).toMatchObject(NOTHING_ADDED);
      expect(summaryLine(again)).toMatch(/^Imported 0 session\(s\), 0 message\(s\), 0 tool call\(s\), 0 commit\(s\), 0 push\(es\) from /);
      const build = usage(tracker).filter((record) => record.agent === 'build');
      expect([build.reduce((sum, r) => sum + r.commits, 0), build.reduce((sum, r) => sum + r.pushes, 0)]).toEqual([added.commits, added.pushes]);
    } finally {
      source.close();
    }
  });

  it('writes nothing with dryRun and filters by folder and creation time', async () => {
    const project = tempDir();
    const dataDir = tempDir();
    await write(dataDir, fixture(project));
    tracker = tempTracker();
    const source = await openHistory(dataDir);
    const dry = await runBackfill(tracker.service, source, { dryRun: true });
    expect(dry.sessions).toBe(2);
    expect(usage(tracker)).toHaveLength(0);
    expect((await runBackfill(tracker.service, source, { directory: project })).sessions).toBe(1);
    expect((await runBackfill(tracker.service, source, { createdSince: T0 + 50_000 })).sessions).toBe(1);
    source.close();
  });
});

/**
 * Two sessions of one project, each committing during its call, the older session updated last (so it
 * is read second); and a commit made a month before either.
 */
function twoEras(project: string): FixtureSession[] {
  const HOUR = 3_600_000;
  const [ancient = '', older = '', newer = ''] = repoWithCommits(project, ['ancient', 'older', 'newer'], [T0 - 30 * 24 * HOUR, T0 + 1010, T0 + 2 * HOUR + 1010]).printed;
  const committing = (id: string, at: number, subject: string, printed: string): FixtureSession => ({
    id,
    directory: project,
    created: at,
    updated: id === 'ses_older' ? T0 + 10 * HOUR : at + 60_000,
    messages: [
      {
        id: `msg_${id}`, role: 'assistant', agent: 'build', providerID: 'anthropic', modelID: 'claude', tokens: fixtureTokens(1, 1), created: at + 1000,
        tools: [{ callId: `call_${id}`, tool: 'bash', status: 'completed', command: `git commit -am "${subject}"`, output: printed, exit: 0 }],
      },
    ],
  });
  return [committing('ses_older', T0, 'older', older), committing('ses_newer', T0 + 2 * HOUR, 'newer', newer), committing('ses_forged', T0 + 3 * HOUR, 'ancient', ancient)];
}

describe.each(LAYOUTS)("a project's commits, read from the %s layout", (_name, write) => {
  it('are read from the oldest session the run replays on, whichever session is read first', async () => {
    const project = tempDir();
    const dataDir = tempDir();
    await write(dataDir, twoEras(project));
    tracker = tempTracker();
    const source = await openHistory(dataDir);
    expect(source.earliestCreated({})).toBe(T0);
    expect(source.earliestCreated({ createdSince: T0 + 1 })).toBe(T0 + 2 * 3_600_000);
    expect(source.earliestCreated({ updatedAfter: T0 + 10 * 3_600_000 })).toBeUndefined();
    const summary = await runBackfill(tracker.service, source, {});
    source.close();
    // Both sessions' commits are credited; the one printed by a session made a month later is not.
    expect([...tracker.store.tables.commits.getRange()].map(({ value }) => value.message).sort()).toEqual(['newer', 'older']);
    expect(summary.commits).toBe(3);
  });
});

describe('live and backfilled records of one session', () => {
  it('adds only what is new when a session tracked live (while still running) is backfilled, and the reverse', async () => {
    const project = tempDir();
    const dataDir = tempDir();
    const session = fixture(project)[0] as FixtureSession;
    tracker = tempTracker({}, project);
    const live = tracker.service;
    live.noteSession('ses_a', { project });
    live.noteModelRequest('ses_a', 'build', 'anthropic/claude');
    // Live saw the first message half-streamed, and one tool call (recorded, as older versions did,
    // under the provider's call id).
    live.recordAssistantMessage('ses_a', 'msg_a1', { agent: 'build', model: 'anthropic/claude' }, { input: 100, output: 5, reasoning: 0, cacheRead: 0, cacheWrite: 0 }, 0.1);
    live.recordToolCall('ses_a', 'c2', 'read', false);
    expect(live.endTurn('ses_a').ok).toBe(true);

    await writeSqliteHistory(dataDir, [session]);
    const imported = await importHistory(tracker.another(), dataDir);
    // Of ses_a's three messages and five finished tool calls, live held msg_a1 and c2: the rest is what was added.
    expect(imported).toMatchObject({ upToDate: false, summary: { sessions: 1, messages: 3 - 1, toolCalls: 5 - 1, commits: 1, pushes: 1 } });
    const build = find(usage(tracker), 'ses_a', 'build');
    expect(build).toMatchObject({ source: 'live', messages: 2, tokensInput: 150, tokensOutput: 30, tokensCacheRead: 300, cost: 0.375, toolCalls: 4, toolFailures: 2 });

    // Live goes on reporting the finished message: nothing more.
    live.recordAssistantMessage('ses_a', 'msg_a1', { agent: 'build', model: 'anthropic/claude' }, { input: 100, output: 20, reasoning: 5, cacheRead: 300, cacheWrite: 40 }, 0.25);
    // Now by the host's own id, the tool part's, as the backfill does.
    live.recordToolCall('ses_a', partIdOf(session, 'c1'), 'bash', true);
    live.flush('test');
    expect(find(usage(tracker), 'ses_a', 'build')).toMatchObject({ messages: 2, tokensOutput: 30, toolCalls: 4 });
  });
});

/** The part id the fixture gives the tool call `callId` (tests/helpers/opencode-history.ts). */
function partIdOf(session: FixtureSession, callId: string): string {
  for (const message of session.messages) {
    const index = (message.tools ?? []).findIndex((tool) => tool.callId === callId);
    if (index >= 0) return `${message.id}-p${index + 1}`;
  }
  throw new Error(`no tool call ${callId} in the fixture`);
}

describe('stores the backfill does not understand', () => {
  it('names what it found and writes nothing for an unknown SQLite layout', async () => {
    const dataDir = tempDir();
    await writeSqliteHistory(dataDir, [], 'CREATE TABLE session (id text, title text); CREATE TABLE message (id text);');
    await expect(openHistory(dataDir)).rejects.toThrow(UnknownHistoryLayoutError);
    await expect(openHistory(dataDir)).rejects.toThrow(/no column session\.directory.*no table "part" \(tables found: message, session\)/);
  });

  it('says where it looked when there is no store', async () => {
    await expect(openHistory(tempDir())).rejects.toThrow(/no OpenCode history at .* \(looked for opencode.db and storage\/session\/\)/);
  });

  it('counts a half-written JSON file and goes on with the other sessions', async () => {
    const project = tempDir();
    const dataDir = tempDir();
    writeJsonHistory(dataDir, fixture(project));
    fs.writeFileSync(path.join(dataDir, 'storage', 'session', 'prj', 'ses_c.json'), '{"id": "ses_c", "direc');
    fs.writeFileSync(path.join(dataDir, 'storage', 'message', 'ses_b', 'msg_b2.json'), '{"id": "msg_b2", "role": "assis');
    tracker = tempTracker();
    const source = await openHistory(dataDir);
    const summary = await runBackfill(tracker.service, source, {});
    expect(summary.sessions).toBe(1);
    expect(summary.skipped[UNREADABLE_FILE]).toBe(2);
    expect(find(usage(tracker), 'ses_a', 'build').messages).toBe(2);
  });
});

describe('the incremental import', () => {
  it('reads nothing when the store is unchanged and only newer sessions after it grew', async () => {
    const project = tempDir();
    const dataDir = tempDir();
    const [first, second] = fixture(project) as [FixtureSession, FixtureSession];
    await writeSqliteHistory(dataDir, [first]);
    tracker = tempTracker();
    const initial = await importHistory(tracker.service, dataDir, { createdBefore: T0 + 100_000 });
    expect(initial).toMatchObject({ upToDate: false, summary: { sessions: 1 } });
    expect(await importHistory(tracker.service, dataDir)).toEqual({ upToDate: true });
    await writeSqliteHistory(dataDir, [first, { ...second, created: first.updated + 3_600_000, updated: first.updated + 7_200_000 }]);
    const before = find(usage(tracker), 'ses_a', 'build');
    const next = await importHistory(tracker.service, dataDir);
    // The session at the watermark's millisecond is read again (adding nothing, so not counted), the new one is added.
    expect(next).toMatchObject({ upToDate: false, summary: { sessions: 1, messages: 1, toolCalls: 1, commits: 0, pushes: 0 } });
    expect(find(usage(tracker), 'ses_a', 'build')).toEqual(before);
    expect(usage(tracker).filter((r) => r.agent === 'build').map((r) => r.sessionId).sort()).toEqual(['ses_a', 'ses_b']);
  });
});

describe('a large SQLite store', () => {
  it('reads many sessions in one ordered pass with the same totals as one by one', async () => {
    const project = tempDir();
    const dataDir = tempDir();
    const sessions: FixtureSession[] = [];
    for (let s = 0; s < 60; s += 1) {
      // Ids out of time order, so the ordered pass and the watermark order differ.
      const id = `ses_${String((s * 37) % 60).padStart(3, '0')}`;
      sessions.push({
        id, directory: project, created: T0 + s * 1000, updated: T0 + s * 1000 + 500,
        messages: [
          { id: `${id}_m1`, role: 'assistant', agent: s % 2 ? 'build' : 'plan', providerID: 'p', modelID: 'm', tokens: fixtureTokens(s, 1), cost: 0.5, created: T0 + s * 1000 + 1, tools: [{ callId: 'c1', tool: 'bash', status: 'completed', command: 'ls', exit: s % 3 === 0 ? 1 : 0 }] },
          { id: `${id}_m2`, role: 'assistant', agent: 'build', providerID: 'p', modelID: 'm', tokens: fixtureTokens(1, s), cost: 0.25, created: T0 + s * 1000 + 2 },
        ],
      });
    }
    await writeSqliteHistory(dataDir, sessions);
    tracker = tempTracker();
    const source = await openHistory(dataDir);
    const summary = await runBackfill(tracker.service, source, {});
    source.close();
    const records = usage(tracker);
    const sum = (name: 'messages' | 'tokensInput' | 'tokensOutput' | 'toolCalls' | 'toolFailures' | 'cost') => records.reduce((total, r) => total + r[name], 0);
    const expectedTokens = (59 * 60) / 2;
    expect(summary.sessions).toBe(60);
    expect(new Set(records.map((r) => r.sessionId)).size).toBe(60);
    expect([sum('messages'), sum('tokensInput'), sum('tokensOutput'), sum('toolCalls'), sum('toolFailures'), sum('cost')]).toEqual([120, expectedTokens + 60, expectedTokens + 60, 60, 20, 45]);
  });
});

describe('agent-tracker backfill, run again (built CLI)', () => {
  it('takes the opencode.db file itself as --from (as the reader does), and reads nothing the second time', async () => {
    const sandbox = makeSandbox('agent-tracker-backfill-cli-');
    try {
      const dataDir = path.join(sandbox.root, 'opencode-data');
      await writeSqliteHistory(dataDir, fixture(tempDir()));
      const args = ['backfill', '--from', path.join(dataDir, 'opencode.db'), '--db', sandbox.dbPath];
      expect(cliJson<BackfillSummary>(sandbox, args)).toMatchObject({ sessions: 2 });
      const again = cliJson<BackfillSummary>(sandbox, args);
      expect(again).toMatchObject(NOTHING_ADDED);
      expect(again.source).toContain('unchanged since the last import');
    } finally {
      removeSandbox(sandbox);
    }
  });

  it('reads nothing when the store is unchanged, and only the new session when OpenCode wrote one since', async () => {
    const sandbox = makeSandbox('agent-tracker-backfill-cli-');
    try {
      const project = tempDir();
      const dataDir = path.join(sandbox.root, 'opencode-data');
      const sessions = [...fixture(project), quietSession(project, T0 + 300_000)];
      await writeSqliteHistory(dataDir, sessions);
      const args = ['backfill', '--from', dataDir, '--db', sandbox.dbPath];
      expect(cliJson<BackfillSummary>(sandbox, args)).toMatchObject({ sessions: 3, commits: 1 + QUIET_ADDS.commits, pushes: 1 + QUIET_ADDS.pushes });
      const totals = cliJson<{ totals: { sessions: number; messages: number } }>(sandbox, ['report', '--db', sandbox.dbPath]).totals;

      const again = cliJson<BackfillSummary>(sandbox, args);
      expect(again).toMatchObject(NOTHING_ADDED);
      expect(again.source).toContain('unchanged since the last import');
      expect(cliJson<{ totals: unknown }>(sandbox, ['report', '--db', sandbox.dbPath]).totals).toEqual(totals);

      // OpenCode's files changed with nothing new in them (as any `opencode` command does to the WAL):
      // the newest session (ses_q, its quiet commit and push) is read again from the watermark, and adds nothing.
      await writeSqliteHistory(dataDir, sessions);
      const reread = cliJson<BackfillSummary>(sandbox, args);
      expect(reread.source).not.toContain('unchanged since the last import');
      expect(reread).toMatchObject(NOTHING_ADDED);
      expect(cliJson<{ totals: unknown }>(sandbox, ['report', '--db', sandbox.dbPath]).totals).toEqual(totals);

      // OpenCode wrote one more session (later than the rest): it is read, with the one at the
      // watermark's own millisecond (read again on purpose; replaying it adds nothing).
      const later: FixtureSession = {
        id: 'ses_c', directory: project, created: T0 + 400_000, updated: T0 + 500_000,
        messages: [{ id: 'msg_c1', role: 'assistant', agent: 'build', providerID: 'anthropic', modelID: 'claude', tokens: fixtureTokens(3, 1), cost: 0.5, created: T0 + 400_500 }],
      };
      await writeSqliteHistory(dataDir, [...sessions, later]);
      expect(cliJson<BackfillSummary>(sandbox, args)).toMatchObject({ sessions: 1, messages: 1, toolCalls: 0, commits: 0, pushes: 0 });
      expect(cliJson<{ totals: { sessions: number; messages: number } }>(sandbox, ['report', '--db', sandbox.dbPath]).totals).toMatchObject({
        sessions: totals.sessions + 1,
        messages: totals.messages + 1,
      });
    } finally {
      removeSandbox(sandbox);
    }
  });
});

describe("the plugin's background import (a child process)", () => {
  /** Waits, bounded, until `done` holds. */
  async function until(done: () => boolean, timeoutMs = 60_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!done() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
  }

  it('imports the past sessions in a child process, then, with nothing new, starts none', async () => {
    const project = tempDir();
    const dataDir = path.join(tempDir(), 'opencode');
    await writeSqliteHistory(dataDir, fixture(project));
    tracker = tempTracker({}, project);
    const t = tracker;
    const schedule = () => scheduleHistoryImport({ store: t.store, config: t.config, logger: recordingLogger(t.logged), project, location: dataDir, delayMs: 0, startedAt: T0 + 10_000_000 });
    schedule();
    await until(() => t.logged.length > 0);
    expect(t.logged).toEqual([expect.objectContaining({ level: 'info', message: expect.stringContaining('imported 2 past session(s)') })]);
    // Written by the child into the same database, read here.
    expect(usage(t).map((record) => `${record.sessionId} ${record.agent}`).sort()).toEqual(['ses_a build', 'ses_a plan', 'ses_b build']);

    // Nothing new: the watermark answers in this process; no child, nothing logged.
    const before = usage(t);
    schedule();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(t.logged).toHaveLength(1);
    expect(usage(t)).toEqual(before);
  });

  /** A tracker whose database is, or is not, known sound as the plugin's is after its checked open. */
  async function importIntoSoundStore(verified: boolean): Promise<{ t: TempTracker; file: string }> {
    const project = tempDir();
    const dataDir = path.join(tempDir(), 'opencode');
    await writeSqliteHistory(dataDir, fixture(project));
    tracker = tempTracker({}, project);
    const t = tracker;
    const file = t.store.path;
    // Verified: as after the plugin's checked open (recorded, and known sound in this process). Not: neither,
    // so nothing vouches for the state the child starts from.
    if (verified) {
      recordVerified(file);
      noteSoundState(file);
    }
    scheduleHistoryImport({ store: t.store, config: t.config, logger: recordingLogger(t.logged), project, location: dataDir, delayMs: 0, startedAt: T0 + 10_000_000 });
    await until(() => t.logged.length > 0);
    expect(t.logged).toEqual([expect.objectContaining({ level: 'info', message: expect.stringContaining('imported 2 past session(s)') })]);
    return { t, file };
  }

  it("leaves a verified database verified: the next start reads no whole file again, and the plugin's later writes stay its own", async () => {
    const { t, file } = await importIntoSoundStore(true);
    expect(needsVerification(file)).toBe(false);
    // The plugin's next flush, after the child's commits, then the end of its session.
    t.store.putRecords([{ table: 'meta', key: 'test:after-import', value: 1 }]);
    expect(recordVerifiedIfOwn(file, () => ({}))).toBe(true);
    expect(needsVerification(file)).toBe(false);
  });

  it('vouches for nothing it did not start from: a database not recorded as verified is checked at the next start', async () => {
    const { t, file } = await importIntoSoundStore(false);
    expect(needsVerification(file)).toBe(true);
    t.store.putRecords([{ table: 'meta', key: 'test:after-import', value: 1 }]);
    expect(recordVerifiedIfOwn(file, () => ({}))).toBe(false);
    expect(needsVerification(file)).toBe(true);
  });
});

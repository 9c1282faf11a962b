/**
 * A backfilled turn is journalled as live tracking journals it at the turn's end: one automatic entry
 * per turn that used a tool or committed (the prompt as its task, masked; the tool counts; the commits
 * and failures; the files edited), at the turn's own time. So prior-art and `report --by session` know
 * what was asked in imported history on day one, and the entry is written once whatever the order:
 * backfilled twice, tracked live then backfilled, backfilled then tracked live, after a dry run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { runBackfill } from '../../src/core/backfill/run.js';
import { resolveConfig } from '../../src/core/config.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { Store } from '../../src/core/store/store.js';
import type { TrackingService } from '../../src/core/tracking/service.js';
import type { ActivityEntry } from '../../src/core/types.js';
import { scheduleHistoryImport } from '../../src/opencode/background-import.js';
import { openHistory } from '../../src/opencode/history/locate.js';
import { createHooks } from '../../src/opencode/hooks.js';
import { writeJsonHistory, writeSqliteHistory } from '../helpers/opencode-history.js';
import type { FixtureMessage, FixtureSession } from '../helpers/opencode-history.js';
import { cliJson, makeSandbox, removeSandbox } from '../helpers/sandbox.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { recordingLogger, tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';
import { trackLive } from '../helpers/track-live.js';

const tempDir = useTempDirs('agent-tracker-backfill-journal-');
const trackers: TempTracker[] = [];
afterEach(() => {
  for (const t of trackers.splice(0)) t.dispose();
});

const T0 = Date.UTC(2025, 4, 6, 14, 0, 0);
const BUILD = { agent: 'build', providerID: 'anthropic', modelID: 'claude' } as const;
const PLAN = { agent: 'plan', providerID: 'openai', modelID: 'gpt' } as const;
const tokens = { input: 10, output: 2, reasoning: 0, cache: { read: 0, write: 0 } };
/** A value of the project's .env that the first prompt quotes. */
const SECRET = 'sk-live-9c1f2e7a4b';
const SECRET_NAME = 'HTTP_CLIENT_TOKEN';
/** How masking writes a value of `.env` (src/core/secrets/mask.ts). */
const MASKED = `[masked: ${SECRET_NAME} from .env]`;
/** What the user asked first; its commit's subject shares no word with it, so only the journal can match. */
const PROMPT = `add retry with exponential backoff to the http client\n  (the staging token is ${SECRET})`;
const QUERY = 'retry backoff http';

/** A project folder holding a .env with SECRET. */
function projectWithEnv(): string {
  const project = tempDir();
  fs.writeFileSync(path.join(project, '.env'), `${SECRET_NAME}=${SECRET}\n`);
  return project;
}

/**
 * Three turns: the retry work (reads, edits, a failing then a passing test run, a commit: two answers),
 * a question answered without a tool (no entry), and a listing by another agent.
 */
function session(project: string, id = 'ses_retry'): FixtureSession {
  const answer = (mid: string, setup: typeof BUILD | typeof PLAN, created: number, tools: FixtureMessage['tools'] = []): FixtureMessage => ({ id: mid, role: 'assistant', ...setup, tokens, cost: 0.01, created, tools });
  const file = path.join(project, 'src', 'http.ts');
  return {
    id,
    directory: project,
    created: T0,
    updated: T0 + 60_000,
    messages: [
      { id: `${id}_u1`, role: 'user', created: T0, text: PROMPT },
      answer(`${id}_a1`, BUILD, T0 + 1000, [
        { callId: 'c1', tool: 'read', status: 'completed', filePath: file },
        { callId: 'c2', tool: 'edit', status: 'completed', filePath: file },
        { callId: 'c3', tool: 'bash', status: 'completed', command: 'npm test', output: '1 failing', exit: 1 },
      ]),
      answer(`${id}_a2`, BUILD, T0 + 2000, [
        { callId: 'c4', tool: 'edit', status: 'completed', filePath: file },
        { callId: 'c5', tool: 'bash', status: 'completed', command: 'npm test', output: 'ok', exit: 0 },
        { callId: 'c6', tool: 'bash', status: 'completed', command: 'git commit -am "client: resilient requests"', output: '[main 4f5e6d7] client: resilient requests\n 1 file changed\n', exit: 0 },
      ]),
      { id: `${id}_u2`, role: 'user', created: T0 + 10_000, text: 'What does the client return on the last failure?' },
      answer(`${id}_a3`, BUILD, T0 + 11_000),
      { id: `${id}_u3`, role: 'user', created: T0 + 20_000, text: 'list the test files' },
      answer(`${id}_a4`, PLAN, T0 + 21_000, [{ callId: 'c7', tool: 'glob', status: 'completed' }]),
    ],
  };
}

/** An entry's fields that tell what happened (its time and key aside). */
type EntryFacts = Pick<ActivityEntry, 'task' | 'actions' | 'outcome' | 'agent' | 'model' | 'project' | 'sessionId' | 'automatic'> & { files?: string[] };

/**
 * The entries the fixture should give, worked out from it: per user prompt whose answers used a tool, the
 * prompt on one line (`mask` applied), each tool counted in the order first used, the commits git printed
 * (`[branch hash] subject`), the failed calls (an error, or a non-zero exit), the files edited, the setup of
 * the last answer, and the time that answer completed (the fixture completes each answer 500 ms after it starts).
 */
function expectedEntries(fixture: FixtureSession, mask: (text: string) => string): (EntryFacts & { timestamp: string })[] {
  const entries: (EntryFacts & { timestamp: string })[] = [];
  let turn: { prompt: string; tools: Map<string, number>; failures: number; hashes: string[]; files: Set<string>; setup?: string; agent?: string; at?: number } | undefined;
  const close = (): void => {
    if (!turn || turn.tools.size === 0 || turn.agent === undefined || turn.at === undefined) return;
    const [agent, model] = [turn.agent, turn.setup ?? ''];
    entries.push({
      timestamp: new Date(turn.at).toISOString(),
      task: mask(turn.prompt.replace(/\s+/g, ' ').trim()),
      actions: [...turn.tools].map(([tool, n]) => `${tool} x${n}`).join(', '),
      outcome: `${turn.hashes.length > 0 ? `${turn.hashes.length} commit(s): ${turn.hashes.join(', ')}` : 'no commits'}; ${turn.failures > 0 ? `${turn.failures} failed tool call(s)` : 'no failures'}`,
      agent,
      model,
      project: fixture.directory,
      sessionId: fixture.id,
      ...(turn.files.size > 0 ? { files: [...turn.files] } : {}),
      automatic: true,
    });
  };
  for (const message of fixture.messages) {
    if (message.role === 'user') {
      close();
      turn = { prompt: message.text ?? '', tools: new Map(), failures: 0, hashes: [], files: new Set() };
      continue;
    }
    if (!turn) continue;
    turn.agent = message.agent;
    turn.setup = `${message.providerID}/${message.modelID}`;
    turn.at = message.created + 500;
    for (const tool of message.tools ?? []) {
      turn.tools.set(tool.tool, (turn.tools.get(tool.tool) ?? 0) + 1);
      const failed = tool.status === 'error' || (tool.exit !== undefined && tool.exit !== 0);
      if (failed) turn.failures += 1;
      if (tool.tool === 'edit' && tool.filePath) turn.files.add(tool.filePath);
      const printed = /^\[\S+ ([0-9a-f]{7,40})\]/m.exec(tool.output ?? '');
      if (!failed && tool.tool === 'bash' && printed?.[1]) turn.hashes.push(printed[1]);
    }
  }
  close();
  return entries;
}

const unmasked = (text: string): string => text;
const masked = (text: string): string => text.split(SECRET).join(MASKED);

/** The automatic journal entries of `sessionId`, oldest first. */
function entriesOf(store: Store, sessionId: string): ActivityEntry[] {
  return [...store.tables.activities.getRange()]
    .map(({ value }) => value)
    .filter((entry) => entry.automatic && entry.sessionId === sessionId)
    .sort((a, b) => a.timestamp.localeCompare(b.timestamp));
}

function facts(entry: ActivityEntry): EntryFacts {
  const { task, actions, outcome, agent, model, project, sessionId, automatic, files } = entry;
  return { task, actions, outcome, agent, model, project, sessionId, automatic, ...(files ? { files } : {}) };
}

function tracker(project: string): TempTracker {
  const t = tempTracker({}, project);
  trackers.push(t);
  return t;
}

function hooksOf(t: TempTracker, service: TrackingService = t.service): ReturnType<typeof createHooks> {
  return createHooks({ service, logger: recordingLogger(t.logged), directory: t.dir, ownTools: new Set() });
}

async function backfill(service: TrackingService, dataDir: string, options: { dryRun?: boolean } = {}): Promise<void> {
  const source = await openHistory(dataDir);
  try {
    await runBackfill(service, source, options);
  } finally {
    source.close();
  }
}

describe('the journal of a backfilled session', () => {
  it.each(['sqlite', 'json'] as const)('holds one automatic entry per turn that used a tool, at the turn\'s time, as live writes it (%s store)', async (layout) => {
    const project = tempDir();
    const fixture = session(project);
    const dataDir = tempDir();
    if (layout === 'sqlite') await writeSqliteHistory(dataDir, [fixture]);
    else writeJsonHistory(dataDir, [fixture]);
    const expected = expectedEntries(fixture, unmasked);
    // The fixture reaches each part of an entry: a commit, a failure, files, two setups, a turn of talk left out.
    expect(expected.map((entry) => [entry.agent, entry.outcome])).toEqual([
      ['build', '1 commit(s): 4f5e6d7; 1 failed tool call(s)'],
      ['plan', 'no commits; no failures'],
    ]);

    const backfilled = tracker(project);
    await backfill(backfilled.another(), dataDir);
    const entries = entriesOf(backfilled.store, fixture.id);
    expect(entries.map((entry) => ({ ...facts(entry), timestamp: entry.timestamp }))).toEqual(expected);

    // Tracked live through the real hooks, a session says the same (live stamps its own clock). Live finds a
    // commit in the repository's HEAD, which this fixture never moves: its commit call is left out for live.
    const withoutCommit: FixtureSession = { ...fixture, messages: fixture.messages.map((m) => ({ ...m, tools: m.tools?.filter((tool) => !tool.command?.startsWith('git commit')) })) };
    const live = tracker(project);
    await trackLive(hooksOf(live), withoutCommit);
    expect(entriesOf(live.store, fixture.id).map(facts)).toEqual(expectedEntries(withoutCommit, unmasked).map(({ timestamp: _at, ...rest }) => rest));
  });

  it('is written once: backfilled twice, tracked live then backfilled, backfilled then tracked live, after a dry run', async () => {
    const project = tempDir();
    const fixture = session(project);
    const dataDir = tempDir();
    await writeSqliteHistory(dataDir, [fixture]);
    const expected = expectedEntries(fixture, unmasked).map(({ timestamp: _at, ...rest }) => rest);

    const twice = tracker(project);
    await backfill(twice.another(), dataDir);
    await backfill(twice.another(), dataDir);
    expect(entriesOf(twice.store, fixture.id).map(facts)).toEqual(expected);

    // Whoever reports a turn first writes its entry (live finds no commit here: see above); the other adds none.
    const liveFirst = tracker(project);
    await trackLive(hooksOf(liveFirst), fixture);
    const live = entriesOf(liveFirst.store, fixture.id);
    expect(live).toHaveLength(expected.length);
    await backfill(liveFirst.another(), dataDir);
    expect(entriesOf(liveFirst.store, fixture.id)).toEqual(live);

    // The plugin was tracking the same session while the backfill read it: the hooks report it all again.
    const backfillFirst = tracker(project);
    await backfill(backfillFirst.another(), dataDir);
    await trackLive(hooksOf(backfillFirst, backfillFirst.another()), fixture);
    expect(entriesOf(backfillFirst.store, fixture.id).map(facts)).toEqual(expected);

    const dryRun = tracker(project);
    await backfill(dryRun.another(), dataDir, { dryRun: true });
    expect(entriesOf(dryRun.store, fixture.id)).toEqual([]);
    await backfill(dryRun.another(), dataDir);
    await backfill(dryRun.another(), dataDir, { dryRun: true });
    expect(entriesOf(dryRun.store, fixture.id).map(facts)).toEqual(expected);
  });

  it('masks the prompt with the values of the project\'s .env when the service masks stored text, as live does', async () => {
    const project = projectWithEnv();
    const fixture = session(project);
    const dataDir = tempDir();
    await writeSqliteHistory(dataDir, [fixture]);
    const t = tracker(project);
    const { TrackingService } = await import('../../src/core/tracking/service.js');
    const service = new TrackingService({ store: t.store, config: t.config, logger: recordingLogger(t.logged), project, maskText: masked });
    await backfill(service, dataDir);
    const entries = entriesOf(t.store, fixture.id);
    expect(entries.map(facts)).toEqual(expectedEntries(fixture, masked).map(({ timestamp: _at, ...rest }) => rest));
    expect(JSON.stringify(entries)).not.toContain(SECRET);
  });
});

describe('agent-tracker backfill, then prior-art and report (built CLI)', () => {
  it('finds what was asked in an imported session, masked, and names it as the session\'s task', async () => {
    const sandbox = makeSandbox('agent-tracker-backfill-journal-cli-');
    try {
      const project = projectWithEnv();
      const fixture = session(project);
      // OpenCode's own data folder in the sandbox: the backfill's default source.
      const dataDir = path.join(sandbox.env.XDG_DATA_HOME ?? '', 'opencode');
      await writeSqliteHistory(dataDir, [fixture]);
      const db = ['--db', sandbox.dbPath];
      expect(cliJson<{ sessions: number }>(sandbox, ['backfill', ...db]).sessions).toBe(1);

      const answer = cliJson<Record<string, { source: string; task: string }[]>>(sandbox, ['prior-art', QUERY, '--project', project, ...db]);
      const activities = Object.values(answer).flat().filter((match) => match.source === 'activity');
      expect(activities.map((match) => match.task)).toEqual([expect.stringContaining('add retry with exponential backoff to the http client')]);

      const report = cliJson<{ rows: { session: string; task: string | null }[] }>(sandbox, ['report', '--by', 'session', ...db]);
      const [first] = expectedEntries(fixture, masked);
      expect(report.rows.filter((row) => row.session === fixture.id).map((row) => row.task)).toEqual(expect.arrayContaining([first?.task]));

      // Stored masked: the database holds the .env value nowhere.
      const store = Store.open({ path: sandbox.dbPath, maxDatabaseSize: 64 * 1024 * 1024, readOnly: true });
      try {
        expect(entriesOf(store, fixture.id).map(facts)).toEqual(expectedEntries(fixture, masked).map(({ timestamp: _at, ...rest }) => rest));
      } finally {
        store.close();
      }
      expect(fs.readFileSync(sandbox.dbPath).includes(SECRET)).toBe(false);

      // OpenCode's files changed with nothing new in them: the session is read again, adds nothing, no entry twice.
      await writeSqliteHistory(dataDir, [fixture]);
      const again = cliJson<{ sessions: number; source: string }>(sandbox, ['backfill', ...db]);
      expect(again.source).not.toContain('unchanged since the last import');
      expect(again.sessions).toBe(0);
      const store2 = Store.open({ path: sandbox.dbPath, maxDatabaseSize: 64 * 1024 * 1024, readOnly: true });
      try {
        expect(entriesOf(store2, fixture.id)).toHaveLength(expectedEntries(fixture, masked).length);
      } finally {
        store2.close();
      }
    } finally {
      removeSandbox(sandbox);
    }
  });
});

describe("the plugin's background import (a child process)", () => {
  it('journals the imported turns with the prompt masked by the .env values of the session\'s project, not only the plugin\'s', async () => {
    const project = projectWithEnv();
    const fixture = session(project);
    const dataDir = path.join(tempDir(), 'opencode');
    await writeSqliteHistory(dataDir, [fixture]);
    const dir = tempDir();
    const config = resolveConfig({ options: { databasePath: path.join(dir, 'db.lmdb') }, env: {}, home: dir });
    const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
    const logged: { level: string; message: string }[] = [];
    try {
      // The plugin runs in another project: the imported session's project is not one the database knows.
      scheduleHistoryImport({ store, config, logger: recordingLogger(logged), project: tempDir(), location: dataDir, delayMs: 0, startedAt: T0 + 10_000_000 });
      // Bounded wait for the import child to finish.
      for (let round = 0; round < 1000 && logged.length === 0; round += 1) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(logged).toEqual([expect.objectContaining({ level: 'info', message: expect.stringContaining('imported 1 past session(s)') })]);
      const entries = entriesOf(store, fixture.id);
      expect(entries.map((entry) => ({ ...facts(entry), timestamp: entry.timestamp }))).toEqual(expectedEntries(fixture, masked));
      expect(JSON.stringify(entries)).not.toContain(SECRET);
    } finally {
      store.close();
    }
  });
});

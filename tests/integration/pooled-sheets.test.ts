/**
 * Two machines' databases pooled with `export` and `import` (the built CLI): the agent `build` worked on
 * both (tool calls, commits, bug reports, grades), and after the import every surface gives one answer
 * (`status --json`, the text sheet, `report --json`, the status answer the `agent-status` tool prints),
 * whichever database imports which, however often. Each test has its own HOME and XDG folders and real
 * LMDB files; expected figures are counted from the work recorded here and the sheets each machine
 * showed before the pooling.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { statusAnswer } from '../../src/core/answers/status.js';
import { resolveConfig } from '../../src/core/config.js';
import { silentLogger } from '../../src/core/logger.js';
import { termIndexer } from '../../src/core/search/indexer.js';
import { Store } from '../../src/core/store/store.js';
import { exportRecords, importExport } from '../../src/core/store/transfer.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import type { AgentSummary } from '../../src/core/answers/status.js';
import type { Grade } from '../../src/core/types.js';
import { cliJson, makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';

const AGENT = 'build';
const PROJECT = '/p/shop';
/** A new agent's CS (DESIGN.md: scoring rules). */
const INITIAL_CS = 60;

interface SessionWork {
  toolCalls: number;
  commits: number;
  bugs: number;
  /** The agent's self-grade and the user's grade of each commit, or none. */
  grades?: [Grade, Grade];
}

interface MachineWork {
  name: string;
  start: string;
  sessions: SessionWork[];
}

const LAPTOP: MachineWork = {
  name: 'laptop',
  start: '2025-03-01T09:00:00.000Z',
  sessions: [
    { toolCalls: 12, commits: 3, bugs: 1, grades: [5, 2] },
    { toolCalls: 4, commits: 1, bugs: 0 },
  ],
};

const DESKTOP: MachineWork = {
  name: 'desktop',
  start: '2025-03-02T09:00:00.000Z',
  sessions: [{ toolCalls: 12, commits: 2, bugs: 1, grades: [2, 1] }],
};

const sum = (machines: readonly MachineWork[], of: (session: SessionWork) => number): number =>
  machines.reduce((total, machine) => total + machine.sessions.reduce((subtotal, session) => subtotal + of(session), 0), 0);

/** Opens the database at `db` as the plugin does, for `use`, and closes it. */
function withDatabase<T>(sandbox: Sandbox, db: string, use: (store: Store, service: TrackingService) => T, at = '2025-03-10T09:00:00.000Z'): T {
  const config = resolveConfig({ options: { databasePath: db }, env: {}, home: sandbox.home });
  const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
  try {
    return use(store, new TrackingService({ store, config, logger: silentLogger, project: PROJECT, now: () => new Date(at) }));
  } finally {
    store.close();
  }
}

/** Records a machine's work through the tracking service, as the plugin does, into the database at `db`. */
function recordMachine(sandbox: Sandbox, db: string, work: MachineWork): void {
  const config = resolveConfig({ options: { databasePath: db }, env: {}, home: sandbox.home });
  const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
  let clock = Date.parse(work.start);
  const service = new TrackingService({ store, config, logger: silentLogger, project: PROJECT, now: () => new Date(clock) });
  try {
    work.sessions.forEach((session, index) => {
      const sessionId = `ses_${work.name}_${index}`;
      service.noteSession(sessionId, { project: PROJECT });
      service.noteModelRequest(sessionId, AGENT, 'anthropic/claude');
      for (let call = 0; call < session.toolCalls; call += 1) service.recordToolCall(sessionId, `prt_${work.name}_${index}_${call}`, 'bash', true);
      const commits = Array.from({ length: session.commits }, (_, n) => ({
        hash: `${work.name}${index}${n}`.replace(/[^0-9a-f]/g, 'c').padEnd(40, '0'),
        message: `change ${n} of ${sessionId}`,
        files: [`src/${work.name}-${index}-${n}.ts`],
        insertions: 3,
        deletions: 1,
        timestamp: new Date(clock).toISOString(),
      }));
      service.recordCommits(sessionId, commits);
      for (let bug = 0; bug < session.bugs; bug += 1) service.reportBug({ agent: AGENT, sessionId, project: PROJECT, description: 'broke the build' });
      if (session.grades) {
        const [self, user] = session.grades;
        for (const commit of commits) {
          service.gradeCommit({ sessionId, agent: AGENT, project: PROJECT, commit: commit.hash, agentGrade: self });
          service.gradeAsUser({ project: PROJECT, commit: commit.hash, grade: user, via: 'cli' });
        }
      }
      const outcome = service.endTurn(sessionId);
      if (!outcome.ok) throw outcome.error;
      clock += 3_600_000;
    });
  } finally {
    store.close();
  }
}

interface ReportRow {
  agent: string;
  sessions: number;
  commits: number;
  bugs: number;
  toolCalls: number;
  pushes: number;
  gradedCommits: number;
  csChange: number;
}

function sheetOf(sandbox: Sandbox, db: string): AgentSummary {
  const { agents } = cliJson<{ agents: AgentSummary[] }>(sandbox, ['status', AGENT, '--db', db]);
  expect(agents).toHaveLength(1);
  return agents[0] as AgentSummary;
}

function reportRowOf(sandbox: Sandbox, db: string): ReportRow {
  const { rows } = cliJson<{ rows: ReportRow[] }>(sandbox, ['report', '--by', 'agent', '--db', db]);
  const row = rows.find((candidate) => candidate.agent === AGENT);
  if (!row) throw new Error(`no report row for ${AGENT}`);
  return row;
}

/** The record lines of an export (the header carries the time of the export). */
function exportLines(sandbox: Sandbox, db: string): string[] {
  const result = runCli(sandbox, ['export', '--db', db]);
  expect(result.code).toBe(0);
  return result.stdout.trimEnd().split('\n').slice(1);
}

function importInto(sandbox: Sandbox, file: string, db: string): { added: number; pooledSheets?: string[] } {
  return cliJson(sandbox, ['import', file, '--db', db]);
}

/** The two sheets before the pooling, the one whose standing the import rule keeps first (src/core/pooled-sheet.ts: a halt, else SP, XP, CS). */
function furthestFirst(a: AgentSummary, b: AgentSummary): [AgentSummary, AgentSummary] {
  const rank = (s: AgentSummary) => [s.halted ? 1 : 0, s.sp, s.xp, s.cs];
  const [ra, rb] = [rank(a), rank(b)];
  for (let i = 0; i < ra.length; i += 1) if (ra[i] !== rb[i]) return (ra[i] as number) > (rb[i] as number) ? [a, b] : [b, a];
  throw new Error('the two machines were meant to stand apart');
}

describe('pooling two machines with export and import', () => {
  let sandbox: Sandbox;
  let laptopDb: string;
  let desktopDb: string;
  let laptopFile: string;
  let desktopFile: string;
  let before: { laptop: AgentSummary; desktop: AgentSummary };

  beforeEach(() => {
    sandbox = makeSandbox('agent-tracker-pool-');
    laptopDb = path.join(sandbox.root, 'laptop.lmdb');
    desktopDb = path.join(sandbox.root, 'desktop.lmdb');
    laptopFile = path.join(sandbox.root, 'laptop.ndjson');
    desktopFile = path.join(sandbox.root, 'desktop.ndjson');
    recordMachine(sandbox, laptopDb, LAPTOP);
    recordMachine(sandbox, desktopDb, DESKTOP);
    expect(runCli(sandbox, ['export', laptopFile, '--db', laptopDb]).code).toBe(0);
    expect(runCli(sandbox, ['export', desktopFile, '--db', desktopDb]).code).toBe(0);
    before = { laptop: sheetOf(sandbox, laptopDb), desktop: sheetOf(sandbox, desktopDb) };
  });

  afterEach(() => removeSandbox(sandbox));

  it("gives status (JSON and text), report and the agent-status answer one count of both machines' sessions, commits and bugs", () => {
    const machines = [LAPTOP, DESKTOP];
    const expected = {
      sessions: sum(machines, () => 1),
      commits: sum(machines, (s) => s.commits),
      bugs: sum(machines, (s) => s.bugs),
      toolCalls: sum(machines, (s) => s.toolCalls),
      graded: sum(machines, (s) => (s.grades ? s.commits : 0)),
      csChange: sum(machines, (s) => (s.grades ? s.commits * (s.grades[0] + s.grades[1]) : 0)),
    };
    // No grade here reaches the CS cap (SP 1 x 100), so CS is the start plus every grade's move.
    expect(INITIAL_CS + expected.csChange).toBeLessThan(100);

    const imported = importInto(sandbox, laptopFile, desktopDb);

    const sheet = sheetOf(sandbox, desktopDb);
    const row = reportRowOf(sandbox, desktopDb);
    expect({ sessions: sheet.sessions, commits: sheet.commits, bugs: sheet.bugs, toolCalls: sheet.toolCalls, creditedCommits: sheet.creditedCommits, cs: sheet.cs }).toEqual({
      sessions: expected.sessions,
      commits: expected.commits,
      bugs: expected.bugs,
      toolCalls: expected.toolCalls,
      creditedCommits: expected.commits,
      cs: INITIAL_CS + expected.csChange,
    });
    expect({ sessions: row.sessions, commits: row.commits, bugs: row.bugs, toolCalls: row.toolCalls, gradedCommits: row.gradedCommits, csChange: row.csChange }).toEqual({
      sessions: expected.sessions,
      commits: expected.commits,
      bugs: expected.bugs,
      toolCalls: expected.toolCalls,
      gradedCommits: expected.graded,
      csChange: expected.csChange,
    });

    expect(imported.pooledSheets).toEqual([AGENT]);

    const text = runCli(sandbox, ['status', AGENT, '--db', desktopDb]).stdout;
    expect(text).toMatch(new RegExp(`COMMITS \\.+ ${expected.commits}  BUGS \\.+ ${expected.bugs}\\n`));
    expect(text).toContain(">> POOLED: SP/XP are one machine's, counts are all");

    // The agent-status tool prints the status answer of the database it runs on.
    const store = Store.open({ path: desktopDb, maxDatabaseSize: 512 * 1024 * 1024, readOnly: true });
    try {
      const [answer] = statusAnswer(store, resolveConfig({ options: { databasePath: desktopDb }, env: {}, home: sandbox.home }).rules, AGENT).agents;
      expect(answer).toEqual(sheet);
    } finally {
      store.close();
    }
  });

  it('gives the same sheet whether the laptop is imported into the desktop or the desktop into the laptop', () => {
    importInto(sandbox, laptopFile, desktopDb);
    importInto(sandbox, desktopFile, laptopDb);
    const onDesktop = sheetOf(sandbox, desktopDb);
    const onLaptop = sheetOf(sandbox, laptopDb);
    expect(onLaptop).toEqual(onDesktop);
    // The pooled sheet was written through the tracker: the record chain still holds on both.
    for (const db of [desktopDb, laptopDb]) expect(cliJson<{ recordChain: { broken?: string } }>(sandbox, ['doctor', '--db', db]).recordChain.broken).toBeUndefined();

    // The standing of the sheet that came furthest, less one SP per bug of the other machine; the sheet says so.
    expect(before.laptop.halted || before.desktop.halted).toBe(false);
    const [further, other] = furthestFirst(before.laptop, before.desktop);
    const otherBugs = other === before.laptop ? sum([LAPTOP], (s) => s.bugs) : sum([DESKTOP], (s) => s.bugs);
    expect({ sp: onDesktop.sp, xp: onDesktop.xp, halted: onDesktop.halted, pooledStanding: onDesktop.pooledStanding }).toEqual({
      sp: further.sp - otherBugs,
      xp: further.xp,
      halted: further.sp - otherBugs <= 0,
      pooledStanding: true,
    });
  });

  it('changes nothing when the same file is imported again, or when the pooled export goes back to where it came from', () => {
    importInto(sandbox, laptopFile, desktopDb);
    const once = { sheet: sheetOf(sandbox, desktopDb), lines: exportLines(sandbox, desktopDb) };
    expect(importInto(sandbox, laptopFile, desktopDb).added).toBe(0);
    expect(sheetOf(sandbox, desktopDb)).toEqual(once.sheet);
    expect(exportLines(sandbox, desktopDb)).toEqual(once.lines);

    // The desktop's export now holds all the laptop has: the laptop takes the pooled sheet as it is, and
    // sending it back to the desktop changes nothing there.
    const pooledFile = path.join(sandbox.root, 'pooled.ndjson');
    expect(runCli(sandbox, ['export', pooledFile, '--db', desktopDb]).code).toBe(0);
    importInto(sandbox, pooledFile, laptopDb);
    expect(sheetOf(sandbox, laptopDb)).toEqual(once.sheet);
    expect(importInto(sandbox, pooledFile, desktopDb).added).toBe(0);
    expect(sheetOf(sandbox, desktopDb)).toEqual(once.sheet);
  });

  it("keeps status --json to the CLI contract: each agent's id, sp, xp, cs, commits, bugs, halted and tier, and says whether its standing was pooled", () => {
    importInto(sandbox, laptopFile, desktopDb);
    const sheet = sheetOf(sandbox, desktopDb) as unknown as Record<string, unknown>;
    const types = Object.fromEntries(['id', 'sp', 'xp', 'cs', 'commits', 'bugs', 'halted', 'tier', 'csLabel', 'sessions', 'toolCalls', 'toolFailures', 'pushes', 'creditedCommits', 'pooledStanding'].map((key) => [key, typeof sheet[key]]));
    expect(types).toEqual({
      id: 'string',
      sp: 'number',
      xp: 'number',
      cs: 'number',
      commits: 'number',
      bugs: 'number',
      halted: 'boolean',
      tier: 'string',
      csLabel: 'string',
      sessions: 'number',
      toolCalls: 'number',
      toolFailures: 'number',
      pushes: 'number',
      creditedCommits: 'number',
      pooledStanding: 'boolean',
    });
    // An agent that worked on one machine only says its standing is its own.
    expect(before.laptop.pooledStanding).toBe(false);
  });

  it('keeps a halt the other machine does not have until the user revives; a revive travels with a later export, but not through an import an agent could have made', () => {
    // A third machine where build broke the build twice at SP 2: halted there.
    const workshopDb = path.join(sandbox.root, 'workshop.lmdb');
    recordMachine(sandbox, workshopDb, { name: 'workshop', start: '2025-03-03T09:00:00.000Z', sessions: [{ toolCalls: 12, commits: 0, bugs: 2 }] });
    const workshop = sheetOf(sandbox, workshopDb);
    expect(workshop.halted).toBe(true);
    const copyDb = path.join(sandbox.root, 'workshop-copy.lmdb');
    fs.copyFileSync(workshopDb, copyDb);
    const workshopText = withDatabase(sandbox, workshopDb, (store) => {
      let text = '';
      exportRecords(store, (chunk) => (text += chunk));
      return text;
    });

    // The laptop pools the workshop's sheet: the halt holds there too, with the laptop's bugs charged on it.
    withDatabase(sandbox, laptopDb, (store) => importExport(store, workshopText, 'workshop.ndjson'));
    const pooled = sheetOf(sandbox, laptopDb);
    expect({ halted: pooled.halted, sp: pooled.sp, bugs: pooled.bugs }).toEqual({ halted: true, sp: workshop.sp - sum([LAPTOP], (s) => s.bugs), bugs: workshop.bugs + sum([LAPTOP], (s) => s.bugs) });

    // The user revives it on the laptop; the laptop's export now holds all the workshop has.
    withDatabase(sandbox, laptopDb, (_store, service) => expect(service.revive(AGENT).revived).toBe(true));
    const revived = sheetOf(sandbox, laptopDb);
    const laptopText = withDatabase(sandbox, laptopDb, (store) => {
      let text = '';
      exportRecords(store, (chunk) => (text += chunk));
      return text;
    });

    // Imported the way an agent could have (suspect), it lifts nothing on the workshop...
    const suspect = { action: 'import', via: 'terminal-no-tty' as const, suspect: true };
    const held = withDatabase(sandbox, workshopDb, (store) => importExport(store, laptopText, 'laptop.ndjson', undefined, suspect));
    expect(held.pooledSheets).toEqual([]);
    expect(sheetOf(sandbox, workshopDb)).toMatchObject({ halted: true, sp: workshop.sp, bugs: workshop.bugs });

    // ...while on a copy of the workshop as it was, the user's own import brings the revive over.
    withDatabase(sandbox, copyDb, (store) => importExport(store, laptopText, 'laptop.ndjson'));
    expect(sheetOf(sandbox, copyDb)).toEqual(revived);
  });
});

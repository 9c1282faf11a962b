/**
 * Backfill of OpenCode 2's history tables (`session_v2`, typed `session_message` rows), built from the
 * published schema (tests/fixtures/opencode-v2/schema.sql), and of a database holding both layouts:
 * the same records as live tracking, each session once however often it is read, and totals equal to
 * what the store itself holds. Through the built CLI (`npm run build` first), in a temporary HOME.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { openHistory } from '../../src/opencode/history/locate.js';
import { sqliteHistoryImage } from '../helpers/opencode-history.js';
import type { FixtureSession } from '../helpers/opencode-history.js';
import { v2StoreTotals, writeV2History } from '../helpers/opencode-v2-store.js';
import type { V2FixtureSession, V2FixtureStep } from '../helpers/opencode-v2-store.js';
import { cliJson, makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';

jest.setTimeout(60_000);

const T0 = Date.parse('2026-10-01T10:00:00.000Z');
const CLAUDE = { providerID: 'anthropic', id: 'claude-sonnet' };
const GPT = { providerID: 'openai', id: 'gpt-5' };

interface Row {
  agent: string;
  model: string;
  sessions: number;
  messages: number;
  toolCalls: number;
  toolFailures: number;
  commits: number;
  tokensInput: number;
  tokensOutput: number;
  tokensReasoning: number;
  tokensCacheRead: number;
  tokensCacheWrite: number;
  cost: number;
}

function step(id: string, created: number, model: { providerID: string; id: string }, usage: [number, number, number, number, number], cost: number, tools: V2FixtureStep['tools'] = [], agent = 'build'): V2FixtureStep {
  const [input, output, reasoning, read, write] = usage;
  return { id, agent, model, created, tokens: { input, output, reasoning, cache: { read, write } }, cost, tools };
}

/** Two version-2 sessions: build on Claude (two tool calls, one failing, a commit) and plan on GPT; a user `!ls` is not work. */
function v2Sessions(project: string): V2FixtureSession[] {
  return [
    {
      id: 'ses_v2a',
      directory: project,
      created: T0,
      updated: T0 + 5000,
      prompt: 'add a file and commit',
      userShell: 'ls',
      steps: [
        step('msg_a1', T0 + 100, CLAUDE, [100, 20, 5, 300, 40], 0.25, [
          { id: 'call_0', name: 'bash', status: 'completed', input: { command: 'echo one > a.txt' }, text: '', exit: 0 },
          { id: 'call_1', name: 'read', status: 'error', input: { filePath: 'missing.txt' }, text: 'File not found' },
        ]),
        // The provider restarts its call ids in every response: call_0 again, a different call.
        step('msg_a2', T0 + 200, CLAUDE, [50, 10, 0, 0, 0], 0.125, [
          { id: 'call_0', name: 'bash', status: 'completed', input: { command: 'git add a.txt && git commit -m "add a"' }, text: '[main 1a2b3c4] add a\n 1 file changed, 1 insertion(+)', exit: 0 },
        ]),
        step('msg_a3', T0 + 300, CLAUDE, [10, 5, 0, 0, 0], 0.0625),
      ],
    },
    {
      id: 'ses_v2b',
      directory: project,
      created: T0 + 10_000,
      updated: T0 + 12_000,
      prompt: 'plan the next step',
      steps: [step('msg_b1', T0 + 10_100, GPT, [7, 3, 0, 0, 0], 0.5, [{ id: 'call_0', name: 'glob', status: 'completed', input: { pattern: '*.ts' }, text: 'a.ts' }], 'plan')],
    },
  ];
}

let sandbox: Sandbox;
beforeAll(() => {
  sandbox = makeSandbox('agent-tracker-backfill-v2-');
});
afterAll(() => removeSandbox(sandbox));

function backfill(dataDir: string, db: string): { sessions: number; toolCalls: number; commits: number } {
  return cliJson(sandbox, ['backfill', '--from', dataDir, '--db', db]);
}

function rows(db: string): Row[] {
  return cliJson<{ rows: Row[] }>(sandbox, ['report', '--db', db]).rows;
}

function totals(list: readonly Row[]) {
  const add = (pick: (row: Row) => number) => list.reduce((total, row) => total + pick(row), 0);
  return {
    sessions: add((r) => r.sessions),
    cost: add((r) => r.cost),
    input: add((r) => r.tokensInput),
    output: add((r) => r.tokensOutput),
    reasoning: add((r) => r.tokensReasoning),
    cacheRead: add((r) => r.tokensCacheRead),
    cacheWrite: add((r) => r.tokensCacheWrite),
  };
}

describe('backfill of a version-2 store', () => {
  it("equals the store's own totals, with tool calls, failures and commits per setup", async () => {
    const project = path.join(sandbox.root, 'project-a');
    const dataDir = path.join(sandbox.root, 'data-a');
    const file = await writeV2History(dataDir, v2Sessions(project));
    const db = path.join(sandbox.root, 'a.lmdb');
    expect(backfill(dataDir, db)).toMatchObject({ sessions: 2, toolCalls: 4, commits: 1 });

    const report = rows(db);
    const own = await v2StoreTotals(file);
    const mine = totals(report);
    expect({ ...mine, cost: undefined }).toEqual({ ...own, cost: undefined });
    expect(mine.cost).toBeCloseTo(own.cost, 9);
    expect(report.find((row) => row.agent === 'build')).toMatchObject({ model: 'anthropic/claude-sonnet', messages: 3, toolCalls: 3, toolFailures: 1, commits: 1 });
    expect(report.find((row) => row.agent === 'plan')).toMatchObject({ model: 'openai/gpt-5', messages: 1, toolCalls: 1, toolFailures: 0, commits: 0 });
  });

  it('adds nothing when run again', async () => {
    const project = path.join(sandbox.root, 'project-b');
    const dataDir = path.join(sandbox.root, 'data-b');
    await writeV2History(dataDir, v2Sessions(project));
    const db = path.join(sandbox.root, 'b.lmdb');
    backfill(dataDir, db);
    const first = rows(db);
    // Run again with nothing new: the watermark says so, and nothing is read or added.
    expect(backfill(dataDir, db)).toMatchObject({ sessions: 0, toolCalls: 0, commits: 0 });
    expect(rows(db)).toEqual(first);
  });

  it('reads a database holding both layouts once per session: the version-2 copy wins, later version-1 sessions are added', async () => {
    const project = path.join(sandbox.root, 'project-c');
    const dataDir = path.join(sandbox.root, 'data-c');
    const v1Session = (id: string, created: number, input: number): FixtureSession => ({
      id,
      directory: project,
      created,
      updated: created + 1000,
      messages: [
        { id: `${id}-u`, role: 'user', created },
        { id: `${id}-m`, role: 'assistant', agent: 'build', providerID: 'anthropic', modelID: 'claude-sonnet', created: created + 10, cost: 1, tokens: { input, output: 1, reasoning: 0, cache: { read: 0, write: 0 } }, tools: [{ callId: 'c1', tool: 'bash', status: 'completed', command: 'ls', output: 'a', exit: 0 }] },
      ],
    });
    // ses_v2a was imported into the version-2 tables (same id); ses_later ran on version 1 afterwards.
    const image = await sqliteHistoryImage([v1Session('ses_v2a', T0, 999), v1Session('ses_later', T0 + 20_000, 40)]);
    const file = await writeV2History(dataDir, v2Sessions(project), image);
    // The oldest session of either layout bounds which commits a backfill asks git for.
    const source = await openHistory(dataDir);
    const earliest = [0, 1, 10_001, 20_001].map((after) => source.earliestCreated({ createdSince: T0 + after }));
    source.close();
    expect(earliest).toEqual([T0, T0 + 10_000, T0 + 20_000, undefined]);
    const db = path.join(sandbox.root, 'c.lmdb');
    expect(backfill(dataDir, db)).toMatchObject({ sessions: 3, toolCalls: 5 });

    const own = await v2StoreTotals(file);
    const mine = totals(rows(db));
    expect(mine.sessions).toBe(own.sessions + 1);
    expect(mine.input).toBe(own.input + 40);
    expect(mine.cost).toBeCloseTo(own.cost + 1, 9);
  });

  it('doctor names the layout of the OpenCode database it finds', async () => {
    const dataDir = path.join(sandbox.env.XDG_DATA_HOME ?? '', 'opencode');
    await writeV2History(dataDir, v2Sessions(path.join(sandbox.root, 'project-d')));
    // Readers create no database: the backfill makes it.
    backfill(dataDir, path.join(sandbox.root, 'd.lmdb'));
    const result = runCli(sandbox, ['doctor', '--db', path.join(sandbox.root, 'd.lmdb')]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^history +.*opencode\.db: OpenCode 2 tables \(session_v2, session_message\)$/m);
  });
});

/**
 * `agent-tracker repair` refills the rebuilt database from OpenCode's own history: sessions the damage
 * took come back, what survived is not counted twice, and the importHistory setting is honoured.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { Store } from '../../src/core/store/store.js';
import { fixtureTokens, writeJsonHistory } from '../helpers/opencode-history.js';
import type { FixtureSession } from '../helpers/opencode-history.js';
import { makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';

const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);

function history(project: string): FixtureSession[] {
  return [
    {
      id: 'ses_r1',
      directory: project,
      created: T0,
      updated: T0 + 60_000,
      messages: [
        { id: 'msg_r0', role: 'user', created: T0 },
        {
          id: 'msg_r1', role: 'assistant', agent: 'build', providerID: 'fake', modelID: 'm1', tokens: fixtureTokens(120, 30), cost: 0.5, created: T0 + 1000,
          tools: [
            { callId: 'k1', tool: 'bash', status: 'completed', command: 'git commit -am "fix the parser"', output: '[main 9f8e7d6] fix the parser\n 1 file changed\n', exit: 0 },
            { callId: 'k2', tool: 'read', status: 'error' },
          ],
        },
      ],
    },
  ];
}

interface ReportJson {
  rows: { agent: string; model: string; sessions: number; toolCalls: number; commits: number; tokens: number; cost: number }[];
}

let sandbox: Sandbox | undefined;
afterEach(() => {
  if (sandbox) removeSandbox(sandbox);
  sandbox = undefined;
});

function report(box: Sandbox): ReportJson['rows'] {
  const result = runCli(box, ['report', '--json']);
  expect(result.stderr).toBe('');
  return (JSON.parse(result.stdout) as ReportJson).rows;
}

describe('repair refills from OpenCode history', () => {
  it('replays the history into the rebuilt database once, however often repair runs', () => {
    sandbox = makeSandbox('agent-tracker-repair-refill-');
    const project = path.join(sandbox.root, 'proj');
    fs.mkdirSync(project);
    writeJsonHistory(path.join(sandbox.home, '.local', 'share', 'opencode'), history(project));
    const on = { AGENT_TRACKER_IMPORT_HISTORY: '1' };
    // A database to repair, holding nothing of the history yet (a reader such as doctor creates none).
    Store.open({ path: sandbox.dbPath, maxDatabaseSize: 2 ** 24 }).close();

    const first = runCli(sandbox, ['repair'], on);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/refilled +1 session\(s\) replayed from OpenCode's history at /);
    const rows = report(sandbox);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ agent: 'build', model: 'fake/m1', sessions: 1, toolCalls: 2, commits: 1, cost: 0.5 });

    const second = runCli(sandbox, ['repair'], on);
    expect(second.code).toBe(0);
    // The history is read again in full, and adds nothing: the refill says so.
    expect(second.stdout).toMatch(/refilled +0 session\(s\) replayed from OpenCode's history at /);
    expect(report(sandbox)).toEqual(rows);
  });

  it('leaves the history alone when importHistory is off', () => {
    sandbox = makeSandbox('agent-tracker-repair-refill-');
    writeJsonHistory(path.join(sandbox.home, '.local', 'share', 'opencode'), history(sandbox.root));
    // Readers (doctor) create no database: make an empty one.
    Store.open({ path: sandbox.dbPath, maxDatabaseSize: 2 ** 24 }).close();
    const result = runCli(sandbox, ['repair'], { AGENT_TRACKER_IMPORT_HISTORY: '0' });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/refilled +0 session\(s\): importing OpenCode's history is turned off/);
    expect(report(sandbox)).toEqual([]);
  });

  it('refuses to repair when an agent runs it, and leaves the database as it was; a dry run is still allowed', () => {
    sandbox = makeSandbox('agent-tracker-repair-refill-');
    writeJsonHistory(path.join(sandbox.home, '.local', 'share', 'opencode'), history(sandbox.root));
    // Readers (doctor) create no database: make an empty one.
    Store.open({ path: sandbox.dbPath, maxDatabaseSize: 2 ** 24 }).close();
    const database = path.join(sandbox.home, '.config', 'opencode', 'agent-tracker.lmdb');
    const before = fs.readdirSync(path.dirname(database)).sort();

    const refused = runCli(sandbox, ['repair'], { OPENCODE: '1', AGENT_TRACKER_IMPORT_HISTORY: '1' });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toMatch(/^agent-tracker repair: "agent-tracker repair" is the user's decision, and this looks like an agent running it \(OPENCODE=1\); nothing was changed\./);
    expect(fs.readdirSync(path.dirname(database)).sort()).toEqual(before);
    expect(report(sandbox)).toEqual([]);

    const dry = runCli(sandbox, ['repair', '--dry-run'], { OPENCODE: '1' });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^repair \(dry run: nothing written\) of /);
  });

  it.each([
    ['a folder', (target: string) => {
      fs.mkdirSync(path.join(target, 'notes'), { recursive: true });
      fs.writeFileSync(path.join(target, 'notes', 'keep.txt'), 'keep me\n');
    }, /is a folder, not an agent-tracker database/],
    ['a text file (an opencode.json)', (target: string) => fs.writeFileSync(target, '{ "theme": "opencode" }\n'), /holds text, not an agent-tracker database/],
  ])('refuses to put a database in place of %s given as --db, dry run included, and leaves it as it was', (_name, plant, why) => {
    sandbox = makeSandbox('agent-tracker-repair-refill-');
    const target = path.join(sandbox.root, 'not-a-database');
    plant(target);
    const before = fs.readdirSync(sandbox.root, { recursive: true }).map(String).sort();
    for (const args of [['repair', '--dry-run'], ['repair']]) {
      const result = runCli(sandbox, [...args, '--db', target]);
      expect({ code: result.code, lines: result.stderr.trimEnd().split('\n').length }).toEqual({ code: 1, lines: 1 });
      expect(result.stderr).toMatch(why);
      expect(result.stderr).toMatch(/nothing was changed/);
    }
    expect(fs.readdirSync(sandbox.root, { recursive: true }).map(String).sort()).toEqual(before);
  });
});

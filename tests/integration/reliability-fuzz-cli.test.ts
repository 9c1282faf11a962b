/**
 * Property-based fuzzing of every `agent-tracker` command's arguments, through the built CLI in a
 * sandbox HOME. The commands and their flags are read from `agent-tracker --help`, so a new
 * command is fuzzed without touching this file.
 *   - No crash: exit 0 or 1, never a stack trace; exit 1 comes with one clear line.
 *   - Invalid input writes nothing: a failed command leaves the database as it was.
 *   - Valid input round-trips: `status AGENT --json` shows what was recorded; export then import
 *     into an empty database gives the same records.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import fc from 'fast-check';
import { resolveConfig } from '../../src/core/config.js';
import { silentLogger } from '../../src/core/logger.js';
import { Store } from '../../src/core/store/store.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { CLI, makeSandbox, removeSandbox } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';
import { termIndexer } from '../../src/core/search/indexer.js';

jest.setTimeout(300_000);

/** CLI runs spawn a process each: few per command keep the suite quick. */
const RUNS_PER_COMMAND = Number(process.env.FUZZ_CLI_RUNS ?? 10);
const ROUND_TRIP_RUNS = 6;
const CLI_TIMEOUT_MS = 60_000;
const SEEDED_AGENTS = ['build', 'plan', 'general'];
const MAX_SIZE = 512 * 1024 * 1024;
const RECORD_TABLES = ['agents', 'sessions', 'commits', 'communication', 'retrospectives', 'activities', 'projects'];
/** Lines that give a crash away: a stack frame or an internal error class. */
const CRASH_SIGNS = /^\s+at .+\(?.+:\d+:\d+\)?$|\b(TypeError|RangeError|ReferenceError|SyntaxError)\b|node:internal/m;

let sandbox: Sandbox;
/** The folder commands run in: relative paths in fuzzed arguments land inside the sandbox. */
let cwd: string;

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: NodeJS.ProcessEnv = {}): CliRun {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd, env: { ...sandbox.env, ...env }, encoding: 'utf8', timeout: CLI_TIMEOUT_MS });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Every record of the sandbox database, to prove that a failed command wrote nothing. */
function databaseContent(dbPath = sandbox.dbPath): string {
  const store = Store.open({ path: dbPath, maxDatabaseSize: MAX_SIZE, readOnly: true });
  try {
    const content: Record<string, unknown> = {};
    for (const [name, table] of Object.entries(store.tables)) content[name] = [...table.getRange()];
    return JSON.stringify(content);
  } finally {
    store.close();
  }
}

/** Commands and the flags their usage names, from the CLI's own help text. */
/** The commands the short help lists (its "commands:" section), each with the flags its own --help lists. */
function commandsInHelp(help: string, commandHelp: (name: string) => string): { name: string; flags: string[] }[] {
  const section = help.split('\n\n').find((block) => block.startsWith('commands:')) ?? '';
  return section.split('\n').flatMap((line) => {
    const match = /^ {2}(\S+)/.exec(line);
    if (!match) return [];
    const name = match[1]!;
    const flags = commandHelp(name).split('\n').flatMap((text) => /^ {2}(--[a-z][a-z-]*)/.exec(text)?.[1] ?? []);
    return [{ name, flags }];
  });
}

function seed(): void {
  const config = resolveConfig({ options: { databasePath: sandbox.dbPath }, env: {}, home: sandbox.home });
  const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
  try {
    const service = new TrackingService({ store, config, logger: silentLogger, project: cwd });
    SEEDED_AGENTS.forEach((agent, index) => {
      const session = `ses-${agent}`;
      service.noteModelRequest(session, agent, 'fake/fake-model');
      for (let call = 0; call <= index * 7; call += 1) service.recordToolCall(session, `call-${call}`, 'bash', call % 5 !== 4);
      service.logActivity({ agent, project: cwd, task: `seeded work of ${agent}`, actions: 'edited files', outcome: 'tests pass' });
    });
    expect(service.flush('seed').ok).toBe(true);
  } finally {
    store.close();
  }
}

beforeAll(() => {
  sandbox = makeSandbox('agent-tracker-fuzz-cli-');
  cwd = path.join(sandbox.root, 'cwd');
  fs.mkdirSync(cwd, { recursive: true });
  seed();
});

afterAll(() => removeSandbox(sandbox));

// Arguments: the command's own flags, global flags, unknown flags and all sorts of values. Values
// never name absolute or parent paths, so whatever a command writes stays inside the sandbox.
const value = fc.oneof(
  fc.string({ maxLength: 24 }).filter((text) => !/^[/~]|\.\.|\0/.test(text)),
  fc.constantFrom('build', 'plan', 'nobody', 'Build', '', ' ', '-', '--', '2024-01-01', 'yesterday', '0', '-1', '1e9', 'NaN', 'out.ndjson', 'x.html', 'agent', 'model', 'project', 'cwd', '💥'),
);
const globalFlags = ['--json', '--db', '--help', '-h', '--csv', '--no-such-flag', '-x'];

function argumentsFor(flags: string[]): fc.Arbitrary<string[]> {
  const token = fc.oneof({ arbitrary: fc.constantFrom(...flags, ...globalFlags), weight: 2 }, { arbitrary: value, weight: 3 });
  return fc.array(token, { maxLength: 5 });
}

describe('fuzzing every CLI command', () => {
  const commands = (() => {
    // describe bodies run before beforeAll: read the help with a throwaway sandbox of its own.
    const own = makeSandbox('agent-tracker-fuzz-help-');
    try {
      const helpOf = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { env: own.env, encoding: 'utf8', timeout: CLI_TIMEOUT_MS }).stdout;
      return commandsInHelp(helpOf(['--help']), (name) => helpOf([name, '--help']));
    } finally {
      removeSandbox(own);
    }
  })();

  it('finds the commands in the help', () => {
    const help = cli(['--help']);
    expect(help.code).toBe(0);
    expect(commands).toEqual(commandsInHelp(help.stdout, (name) => cli([name, '--help']).stdout));
    expect(commands.find((command) => command.name === 'report')?.flags).toEqual(expect.arrayContaining(['--since', '--by', '--json', '--db']));
    expect(commands.map((command) => command.name)).toEqual(expect.arrayContaining(['status', 'doctor']));
  });

  it.each(commands.map((command) => [command.name, command.flags] as const))('%s: exits 0 or 1 with one clear line, and a failure writes nothing', async (name, flags) => {
    // `setup` provisions the OpenCode config folder; fuzz it in dry-run mode only.
    const fixed = name === 'setup' ? ['--dry-run'] : [];
    await fc.assert(
      fc.asyncProperty(argumentsFor(flags), async (args) => {
        const before = databaseContent();
        const run = cli([name, ...fixed, ...args]);
        // A flag counts before `--` only: after it, `--json` is a word of the query (`prior-art -- --json`).
        const end = args.indexOf('--');
        const asked = (flag: string): boolean => (end === -1 ? args : args.slice(0, end)).includes(flag);
        expect([0, 1]).toContain(run.code);
        expect(run.stderr).not.toMatch(CRASH_SIGNS);
        expect(run.stdout).not.toMatch(CRASH_SIGNS);
        if (run.code === 1) {
          const lines = run.stderr.trim().split('\n');
          expect(lines[lines.length - 1]).toMatch(/^agent-tracker/);
          if (name !== 'setup') expect(lines).toHaveLength(1);
          expect(databaseContent()).toBe(before);
        } else if (asked('--json') && !asked('--help') && !asked('-h') && name !== 'export') {
          expect(() => JSON.parse(run.stdout)).not.toThrow();
        }
      }),
      { numRuns: RUNS_PER_COMMAND },
    );
  });

  it('refuses unknown commands with one line', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 16 }).filter((text) => !/\0/.test(text) && !text.startsWith('-') && !commands.some((c) => c.name === text) && text !== 'help' && text !== 'version'), (name) => {
        const run = cli([name]);
        expect(run.code).toBe(1);
        expect(run.stderr.trim().split('\n')).toHaveLength(1);
        expect(run.stderr).toMatch(/^agent-tracker: unknown command/);
      }),
      { numRuns: ROUND_TRIP_RUNS },
    );
  });
});

describe('valid CLI input round-trips', () => {
  it('status AGENT --json shows what was recorded for that agent', () => {
    const store = Store.open({ path: sandbox.dbPath, maxDatabaseSize: MAX_SIZE, readOnly: true });
    const recorded = new Map(SEEDED_AGENTS.map((agent) => [agent, store.tables.agents.get(agent)]));
    store.close();
    fc.assert(
      fc.property(fc.constantFrom(...SEEDED_AGENTS), fc.boolean(), (agent, jsonFirst) => {
        const run = cli(['status', ...(jsonFirst ? ['--json', agent] : [agent, '--json'])]);
        expect(run.code).toBe(0);
        const parsed = JSON.parse(run.stdout) as { agents: { id: string; sp: number; xp: number; commits: number; bugs: number }[] };
        const want = recorded.get(agent)!;
        expect(parsed.agents).toEqual([expect.objectContaining({ id: agent, sp: want.sp, xp: want.xp, commits: want.commits, bugs: want.bugs })]);
      }),
      { numRuns: ROUND_TRIP_RUNS },
    );
  });

  it('export then import into an empty database gives the same records', () => {
    const file = path.join(cwd, 'round-trip.ndjson');
    const exported = cli(['export', file]);
    expect(exported.code).toBe(0);
    const copy = path.join(sandbox.root, 'copy.lmdb');
    const imported = cli(['import', file, '--db', copy]);
    expect(imported).toMatchObject({ code: 0 });
    // The records themselves; bookkeeping (meta, migrations) and index internals may differ.
    const tables = (dbPath: string) => {
      const parsed = JSON.parse(databaseContent(dbPath)) as Record<string, unknown>;
      return Object.fromEntries(RECORD_TABLES.map((name) => [name, parsed[name]]));
    };
    expect(tables(copy)).toEqual(tables(sandbox.dbPath));
  });
});

/** The CLI contract every command shares: help, unknown commands and flags, one-line errors. */
import { afterAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { open } from 'lmdb';
import { resolveConfig } from '../../src/core/config.js';
import { silentLogger } from '../../src/core/logger.js';
import { Store } from '../../src/core/store/store.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { makeRepo, makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';

const sandbox = makeSandbox('agent-tracker-cli-');
afterAll(() => removeSandbox(sandbox));

const COMMANDS = ['status', 'doctor', 'prior-art', 'setup', 'init-project', 'migrate', 'revive', 'report', 'recommend', 'export', 'import'];

describe('agent-tracker', () => {
  it('lists every command in its help and exits 0', () => {
    const result = runCli(sandbox, ['--help']);
    expect(result.code).toBe(0);
    for (const command of COMMANDS) expect(result.stdout).toContain(`  ${command}`);
  });

  it('prints one command’s usage with --help, without touching the database', () => {
    const result = runCli(sandbox, ['report', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^usage: agent-tracker report /);
  });

  it.each([
    [['frobnicate'], /unknown command "frobnicate"/],
    [['status', '--bogus'], /Unknown option '--bogus'/],
    [['status', 'a', 'b'], /at most one AGENT/],
  ])('exits 1 with one clear line for %p', (args, message) => {
    const result = runCli(sandbox, args);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });

  it('exits 1 with one clear line naming an agent never tracked, for revive', () => {
    const file = path.join(sandbox.root, 'no-agents.lmdb');
    Store.open({ path: file, maxDatabaseSize: 2 ** 20 }).close();
    const result = runCli(sandbox, ['revive', 'nobody', '--db', file]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining('no agent named "nobody"')]);
  });

  // A bare command is a question, not a mistake (issue 35): the short help, exit 0.
  it('shows usage and exits 0 when no command is given', () => {
    const result = runCli(sandbox, []);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('usage: agent-tracker <command>');
  });
});

describe('choosing the database', () => {
  it('lets --db win over AGENT_TRACKER_DB_PATH, resolving it against the current folder', () => {
    // A reader never creates a database: make the one --db names first.
    Store.open({ path: `${sandbox.root}/flag.lmdb`, maxDatabaseSize: 2 ** 20 }).close();
    const result = runCli(sandbox, ['doctor', '--json', '--db', 'flag.lmdb'], { AGENT_TRACKER_DB_PATH: `${sandbox.root}/env.lmdb` });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).databasePath).toBe(`${sandbox.root}/flag.lmdb`);
  });

  it.each([[['--db', '']], [['--db=']], [['--db', '  ']]])('refuses an empty --db (%p) in one line instead of opening the default database', (flag) => {
    const result = runCli(sandbox, ['status', '--json', ...flag]);
    expect({ code: result.code, stdout: result.stdout, lines: result.stderr.trimEnd().split('\n') }).toEqual({ code: 1, stdout: '', lines: [expect.stringMatching(/--db needs the path of a database/)] });
  });

  it('reads without writing: status, report, doctor, export and recommend leave the database file byte for byte as it was', () => {
    const file = path.join(sandbox.root, 'read-me.lmdb');
    Store.open({ path: file, maxDatabaseSize: 2 ** 20 }).close();
    const before = fs.readFileSync(file);
    for (const args of [['status'], ['report'], ['doctor'], ['export'], ['recommend']]) {
      expect(runCli(sandbox, [...args, '--json', '--db', file]).code).toBe(0);
    }
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it('answers from a file lmdb made but nothing ever wrote (a plugin stopped before its first commit) as from an empty record', async () => {
    const file = path.join(sandbox.root, 'never-written.lmdb');
    await open({ path: file }).close();
    for (const args of [['status'], ['doctor'], ['export'], ['recommend'], ['prior-art', 'add a parser']]) {
      const result = runCli(sandbox, [...args, '--json', '--db', file]);
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' });
    }
    const report = runCli(sandbox, ['report', '--json', '--db', file]);
    expect(report.code).toBe(0);
    expect(JSON.parse(report.stdout)).toMatchObject({ rows: [], totals: { sessions: 0, commits: 0 } });
  });

  it('refuses a write to a database of a newer schema in exactly one line, and reads it with one warning line', async () => {
    const file = path.join(sandbox.root, 'newer.lmdb');
    Store.open({ path: file, maxDatabaseSize: 2 ** 20 }).close();
    const root = open({ path: file, noSubdir: true, compression: true, maxDbs: 64 });
    root.openDB({ name: 'meta', compression: true }).putSync('schemaVersion', 99);
    await root.close();
    // An OpenCode history of the older JSON layout that holds no session yet.
    const history = path.join(sandbox.root, 'empty-history');
    fs.mkdirSync(path.join(history, 'storage', 'session'), { recursive: true });
    for (const args of [['init-project', makeRepo(sandbox, 'newer-schema-repo')], ['backfill', '--from', history]]) {
      const result = runCli(sandbox, [...args, '--db', file]);
      expect({ args, code: result.code, lines: result.stderr.trimEnd().split('\n') }).toEqual({ args, code: 1, lines: [expect.stringMatching(/newer agent-tracker.*update it/)] });
    }
    const read = runCli(sandbox, ['status', '--json', '--db', file]);
    expect({ code: read.code, lines: read.stderr.trimEnd().split('\n') }).toEqual({ code: 0, lines: [expect.stringMatching(/newer agent-tracker/)] });
  });

  it('says where the global config does not parse and what to do, in one line, for every command', () => {
    const file = path.join(sandbox.configDir, 'opencode.jsonc');
    fs.writeFileSync(file, '// mine\n{\n  "plugin": [ "x",\n  "theme": }\n');
    try {
      for (const args of [['status'], ['doctor'], ['report', '--json']]) {
        const result = runCli(sandbox, [...args, '--db', path.join(sandbox.root, 'read-me.lmdb')]);
        expect({ args, code: result.code, lines: result.stderr.trimEnd().split('\n') }).toEqual({
          args,
          code: 1,
          lines: [expect.stringMatching(/opencode\.jsonc does not parse \(\w+ at line 4, column \d+\).*fix it/)],
        });
      }
    } finally {
      fs.rmSync(file);
    }
  });

  // review and revive change what is recorded, so they need a database there too: a typo in --db creates none.
  it.each([['status'], ['report'], ['doctor'], ['export'], ['recommend'], ['prior-art', 'add a parser'], ['review'], ['review', '--confirm', 'abc123'], ['revive', 'build']])(
    '`%s` given a path with no database says so in one line, exits 1 and creates nothing',
    (...args) => {
      const typo = path.join(sandbox.root, 'typo-folder', 'tracker.lmdb');
      const result = runCli(sandbox, [...args, '--json', '--db', typo]);
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining(`no agent-tracker database at ${typo}`)]);
      expect(fs.existsSync(path.dirname(typo))).toBe(false);
    },
  );
});

describe('doctor', () => {
  it('right after setup, with no database yet at its usual place, diagnoses the install and creates nothing', () => {
    const fresh = makeSandbox('agent-tracker-doctor-fresh-');
    try {
      expect(runCli(fresh, ['setup']).code).toBe(0);
      const text = runCli(fresh, ['doctor']);
      expect({ code: text.code, stderr: text.stderr }).toEqual({ code: 0, stderr: '' });
      const lines = text.stdout.split('\n');
      expect(lines[0]).toBe(`database        ${fresh.dbPath}: not created yet. The plugin makes it at the first OpenCode session; "agent-tracker backfill" imports your past sessions now.`);
      expect(text.stdout).toMatch(/^ {2}plugin entry {3}registered once/m);
      expect(text.stdout).toMatch(/^cli {13}node .*main\.js <command>$/m);
      const json = JSON.parse(runCli(fresh, ['doctor', '--json']).stdout) as { databasePath: string; exists: boolean; provisioning: { registered: boolean } };
      expect(json).toMatchObject({ databasePath: fresh.dbPath, exists: false, provisioning: { registered: true } });
      expect(fs.existsSync(fresh.dbPath)).toBe(false);
    } finally {
      removeSandbox(fresh);
    }
  });

  it('shows the pending changes of the repository in the current folder under each sheet of status, and none outside one', () => {
    const file = path.join(sandbox.root, 'pending.lmdb');
    const store = Store.open({ path: file, maxDatabaseSize: 2 ** 24 });
    const service = new TrackingService({ store, config: resolveConfig({ options: { databasePath: file }, env: {}, home: sandbox.root }), logger: silentLogger, project: '/p/one' });
    service.noteModelRequest('ses_one', 'build', 'fake/model');
    service.recordToolCall('ses_one', 'call_1', 'bash', true);
    service.flush('test');
    store.close();
    const repo = makeRepo(sandbox, 'pending');
    fs.writeFileSync(path.join(repo, 'notes.txt'), 'draft\n');
    const inRepo = runCli(sandbox, ['status', '--db', file], {}, repo);
    expect(inRepo.code).toBe(0);
    expect(inRepo.stdout).toMatch(/PENDING \.+ 1 change\n +\?\? notes\.txt/);
    const outside = runCli(sandbox, ['status', '--db', file], {}, sandbox.root);
    expect(outside.code).toBe(0);
    expect(outside.stdout).toContain('SP');
    expect(outside.stdout).not.toContain('PENDING');
  });

  it('says the sessions table holds usage records, one per session × agent × model, where its name says sessions', () => {
    const file = path.join(sandbox.root, 'two-models.lmdb');
    const store = Store.open({ path: file, maxDatabaseSize: 2 ** 24 });
    const service = new TrackingService({ store, config: resolveConfig({ options: { databasePath: file }, env: {}, home: sandbox.root }), logger: silentLogger, project: '/p/one' });
    // One session in which the build agent used two models: two usage records.
    service.noteSession('ses_one', { project: '/p/one' });
    service.noteModelRequest('ses_one', 'build', 'anthropic/claude-sonnet-4-5');
    service.recordToolCall('ses_one', 'call_1', 'bash', true);
    service.noteModelRequest('ses_one', 'build', 'openai/gpt-5');
    service.recordToolCall('ses_one', 'call_2', 'bash', true);
    service.flush('test');
    store.close();
    const text = runCli(sandbox, ['doctor', '--db', file]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^ {2}sessions {7}2 usage records \(one per session × agent × model\)$/m);
    const json = JSON.parse(runCli(sandbox, ['doctor', '--json', '--db', file]).stdout);
    expect(json.counts.sessions).toBe(2);
  });
});

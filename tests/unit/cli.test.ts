/** The CLI contract every command shares: help, unknown commands and flags, one-line errors. */
import { afterAll, describe, expect, it } from '@jest/globals';
import { makeSandbox, removeSandbox, runCli } from '../helpers/sandbox.js';

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
    [['revive', 'nobody'], /nobody/],
  ])('exits 1 with one clear line for %p', (args, message) => {
    const result = runCli(sandbox, args);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
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
    const result = runCli(sandbox, ['doctor', '--json', '--db', 'flag.lmdb'], { AGENT_TRACKER_DB_PATH: `${sandbox.root}/env.lmdb` });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).databasePath).toBe(`${sandbox.root}/flag.lmdb`);
  });
});

import { commitCreditDenial, EARNING_COMMITS_PER_TURN, revertedHash } from '../../src/core/integrity/commit-credit.js';
import type { CommitFacts, CreditContext } from '../../src/core/integrity/commit-credit.js';
import { trustedOptions } from '../../src/core/integrity/trusted-options.js';
import { trackerFileEditCheck } from '../../src/core/integrity/tracker-files.js';
import { envFoldersPath } from '../../src/opencode/guards/env-folders.js';
import {
  agentSigns,
  isSuspectUserAction,
  RUNNING_SESSION_WINDOW_MS,
  sessionRunning,
  terminalVia,
  trackerFileCheck,
  userOnlyCommandIn,
  userOnlyGuard,
} from '../../src/core/integrity/user-only.js';

const WORK: CommitFacts = { filesChanged: 2, parentCount: 1 };
const FRESH: CreditContext = { earnedThisTurn: 0, revertsOwnCommit: false };

describe('commit credit', () => {
  it.each<[string, CommitFacts, CreditContext, string | undefined]>([
    ['a commit that changes files', WORK, FRESH, undefined],
    ['a root commit with files', { filesChanged: 1, parentCount: 0 }, FRESH, undefined],
    ['an empty commit', { filesChanged: 0, parentCount: 1 }, FRESH, 'no-file-changes'],
    ['a merge', { filesChanged: 3, parentCount: 2 }, FRESH, 'merge'],
    ['an octopus merge', { filesChanged: 0, parentCount: 3 }, FRESH, 'merge'],
    ['a revert of its own commit', { ...WORK, revertOf: 'abc1234' }, { ...FRESH, revertsOwnCommit: true }, 'self-revert'],
    ["a revert of someone else's commit", { ...WORK, revertOf: 'abc1234' }, FRESH, undefined],
    ['the last commit of a turn that still earns', WORK, { ...FRESH, earnedThisTurn: EARNING_COMMITS_PER_TURN - 1 }, undefined],
    ['one commit past the turn limit', WORK, { ...FRESH, earnedThisTurn: EARNING_COMMITS_PER_TURN }, 'turn-limit'],
    ['a commit that only changes whitespace', { ...WORK, whitespaceOnly: true }, FRESH, 'whitespace-only'],
    ['a commit whose content git could not describe', { ...WORK }, FRESH, undefined],
    ['the same change again (an amend)', WORK, { ...FRESH, sameChangeCredited: true }, 'same-change'],
    ['an empty commit that is also whitespace only: empty first', { filesChanged: 0, parentCount: 1, whitespaceOnly: true }, FRESH, 'no-file-changes'],
  ])('%s', (_name, facts, context, expected) => {
    expect(commitCreditDenial(facts, context)).toBe(expected);
  });

  it('lets five commits of a turn earn', () => {
    expect(EARNING_COMMITS_PER_TURN).toBe(5);
  });

  it.each([
    ['Revert "x"\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.', '0123456789abcdef0123456789abcdef01234567'],
    ['fix: revert the old logic', undefined],
    ['This reverts commit xyz.', undefined],
  ])('reads the reverted hash from %j', (message, expected) => {
    expect(revertedHash(message)).toBe(expected);
  });
});

describe('user-only commands in a shell command', () => {
  it.each<[string, string | undefined]>([
    ['agent-tracker revive build', 'revive'],
    ['npx opencode-agent-tracker revive build', 'revive'],
    ['node ./node_modules/opencode-agent-tracker/dist/cli/main.js revive build', 'revive'],
    ['agent-tracker --db /tmp/x.lmdb import dump.ndjson', 'import'],
    ['cd /x && AGENT_TRACKER_DB_PATH=/y agent-tracker grade abc 5', 'grade'],
    ['echo ok; "agent-tracker" repair', 'repair'],
    ['x=$(agent-tracker delete build)', 'delete'],
    ['agent-tracker status build', undefined],
    ['agent-tracker report --json', undefined],
    ['agent-tracker prior-art "how to import a file"', undefined],
    ['echo agent-tracker; revive', undefined],
    ['git commit -m "revive the parser"', undefined],
  ])('%j -> %s', (command, expected) => {
    expect(userOnlyCommandIn(command)).toBe(expected);
  });
});

describe('the user-only tool guard', () => {
  const guard = userOnlyGuard('/home/u/.config/opencode/agent-tracker.lmdb');
  it.each<[string, unknown, RegExp | undefined]>([
    ['bash', { command: 'agent-tracker revive build' }, /user's decision.*ask the user/i],
    ['bash', { command: 'rm -f ~/.config/opencode/agent-tracker.lmdb-lock' }, /belongs to the user/],
    ['bash', { command: 'ls ~/.config/opencode/agent-tracker.lmdb' }, undefined],
    ['bash', { command: 'agent-tracker status' }, undefined],
    ['write', { filePath: '/home/u/.config/opencode/agent-tracker.lmdb' }, /belongs to the user/],
    ['edit', { filePath: '/home/u/.config/opencode/agent-tracker.lmdb-lock' }, /belongs to the user/],
    // The other projects' folders kept beside it: a forged listing could hide another project's env file from stored-text masking.
    ['write', { filePath: envFoldersPath('/home/u/.config/opencode/agent-tracker.lmdb') }, /belongs to the user/],
    ['bash', { command: `echo '{}' > ${envFoldersPath('~/.config/opencode/agent-tracker.lmdb')}` }, /belongs to the user/],
    ['edit', { filePath: '/home/u/project/src/a.ts' }, undefined],
    ['read', { filePath: '/home/u/.config/opencode/agent-tracker.lmdb' }, undefined],
  ])('%s %j', (tool, args, expected) => {
    const reason = guard(tool, args);
    if (expected) expect(reason).toMatch(expected);
    else expect(reason).toBeUndefined();
  });

  it('knows the tracker files by folder and name', () => {
    const isTrackerFile = trackerFileCheck('/d/agent-tracker.lmdb');
    expect(isTrackerFile('/d/agent-tracker.lmdb.snapshot-1')).toBe(true);
    expect(isTrackerFile('/e/agent-tracker.lmdb')).toBe(false);
    expect(isTrackerFile('/d/other.lmdb')).toBe(false);
  });
});

describe('signs of an agent, and the provenance of a user-only action', () => {
  const none = { env: {}, hasTty: true, opencodeAncestor: false };
  it.each<[string, Parameters<typeof agentSigns>[0], string[]]>([
    ['a plain terminal', none, []],
    ['OpenCode bash variables', { ...none, env: { AGENT: '1', OPENCODE: '1', OPENCODE_PID: '42' } }, ['AGENT=1', 'OPENCODE=1', 'OPENCODE_PID=42']],
    ['a variable set to 0 or empty', { ...none, env: { AGENT: '0', OPENCODE: '' } }, []],
    ['an opencode parent', { ...none, opencodeAncestor: true }, ['an opencode process is among its parents']],
  ])('%s', (_name, facts, expected) => {
    expect(agentSigns(facts)).toEqual(expected);
  });

  it('tells a terminal from none', () => {
    expect(terminalVia(none)).toBe('terminal-tty');
    expect(terminalVia({ ...none, hasTty: false })).toBe('terminal-no-tty');
  });

  it.each<[Parameters<typeof isSuspectUserAction>[0], boolean, boolean]>([
    ['terminal-no-tty', true, true],
    ['terminal-no-tty', false, false],
    ['terminal-tty', true, false],
    ['slash-command', true, false],
  ])('%s while a session runs=%s is suspect=%s', (via, running, expected) => {
    expect(isSuspectUserAction(via, running)).toBe(expected);
  });

  it('counts a session as running within the window only', () => {
    const now = new Date('2026-01-01T12:00:00.000Z');
    const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
    expect(sessionRunning(ago(0), now)).toBe(true);
    expect(sessionRunning(ago(RUNNING_SESSION_WINDOW_MS), now)).toBe(true);
    expect(sessionRunning(ago(RUNNING_SESSION_WINDOW_MS + 1), now)).toBe(false);
    expect(sessionRunning(ago(-RUNNING_SESSION_WINDOW_MS - 1), now)).toBe(false);
    expect(sessionRunning('not a date', now)).toBe(false);
  });
});

describe('trusted options', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>, string[]]>([
    ['nothing set anywhere', {}, {}, {}, []],
    ['the global value, merged unchanged', { haltBlocksTools: false }, { haltBlocksTools: false }, { haltBlocksTools: false }, []],
    ['a project turning halts off', { haltBlocksTools: false }, {}, {}, ['haltBlocksTools']],
    ['a project overriding the global value', { protectEnvFiles: false }, { protectEnvFiles: true }, { protectEnvFiles: true }, ['protectEnvFiles']],
    ['project rules, equal up to key order', { rules: { a: 1, b: 2 } }, { rules: { b: 2, a: 1 } }, { rules: { b: 2, a: 1 } }, []],
    ['project rules', { rules: { initialSp: 99 } }, {}, {}, ['rules']],
    ['a project database path and size', { databasePath: '/x', maxDatabaseSize: 5 }, {}, {}, ['databasePath', 'maxDatabaseSize']],
    ['a harmless option from the project', { exportStatus: true }, {}, { exportStatus: true }, []],
  ])('%s', (_name, merged, owned, options, ignored) => {
    expect(trustedOptions(merged, owned)).toEqual({ options, ignored });
  });
});

describe('edits of what configures the tracker', () => {
  const configDir = '/home/u/.config/opencode';
  it.each<[string, unknown, boolean]>([
    ['edit', { filePath: '/p/opencode.json' }, true],
    ['write', { filePath: '/p/opencode.jsonc' }, true],
    ['edit', { filePath: '/p/.opencode/agent/build.md' }, true],
    ['write', { filePath: `${configDir}/skills/x/SKILL.md` }, true],
    ['edit', { filePath: `${configDir}/agents/build.md` }, true],
    ['edit', { filePath: `${configDir}/agent-tracker.lmdb` }, false],
    ['write', { filePath: `${configDir}/opencode.json` }, true],
    ['edit', { filePath: `${configDir}/../opencode/commands/grade.md` }, true],
    ['edit', { filePath: `${configDir}-old/agents/build.md` }, false],
    ['edit', { filePath: `${configDir}/..agents/build.md` }, false],
    ['edit', { filePath: '/p/AGENTS.md', oldString: '<!-- BEGIN opencode-agent-tracker', newString: '' }, true],
    ['edit', { filePath: '/p/AGENTS.md', oldString: 'build with make', newString: 'build with just' }, false],
    ['edit', { filePath: '/p/src/a.ts' }, false],
    ['read', { filePath: '/p/opencode.json' }, false],
    ['bash', { command: "sed -i 's/true/false/' opencode.json" }, true],
    ['bash', { command: 'cat opencode.json' }, false],
  ])('%s %j -> %s', (tool, args, expected) => {
    expect(trackerFileEditCheck(configDir)(tool, args)).toBe(expected);
  });
});

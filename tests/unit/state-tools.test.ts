/**
 * The agent-state tools as OpenCode calls them (the real tool definitions, a temporary LMDB and a
 * temporary git repository). Bad input must get a clear error and leave the buffer and the
 * database exactly as they were.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { ToolContext, ToolDefinition } from '@opencode-ai/plugin';
import { formatHealthStatus } from '../../src/core/report/sheet.js';
import { silentLogger } from '../../src/core/logger.js';
import { REVIVE_SP } from '../../src/core/rules.js';
import { MAX_TEXT_LENGTH } from '../../src/core/validation.js';
import { defineTool } from '../../src/opencode/tools/define.js';
import { stateTools } from '../../src/opencode/tools/state.js';
import { cliCommand } from '../../src/provisioning/cli-location.js';
import { git, makeRepo, makeSandbox, removeSandbox, ROOT } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';
import { localPriorArt } from '../../src/opencode/prior-art-answer.js';

let sandbox: Sandbox;
let repo: string;
let head: string;
let t: TempTracker;
let tools: Record<string, ToolDefinition>;

beforeAll(() => {
  sandbox = makeSandbox('agent-tracker-tools-');
  repo = makeRepo(sandbox, 'tools');
  head = git(repo, ['rev-parse', 'HEAD']).trim();
});
afterAll(() => removeSandbox(sandbox));
afterEach(() => t?.dispose());

function setup(options: { recordHead?: boolean } = {}): void {
  t = tempTracker({}, repo);
  tools = stateTools({ service: t.service, logger: silentLogger, project: repo, renderStatus: (status) => formatHealthStatus(status), priorArt: localPriorArt(t.service.store, silentLogger) });
  t.service.noteModelRequest('s1', 'build', 'fake/model');
  t.service.recordToolCall('s1', 'c0', 'bash', true);
  // Only commits a tracked session recorded can be graded: the session made HEAD.
  if (options.recordHead !== false) {
    t.service.recordCommits('s1', [{ hash: head, message: 'initial', files: ['README.md'], insertions: 1, deletions: 0, timestamp: new Date().toISOString() }]);
  }
  t.service.flush('setup');
}

function context(agent = 'build'): ToolContext {
  return {
    sessionID: 's1', messageID: 'm1', agent, directory: repo, worktree: repo, abort: new AbortController().signal,
    metadata: () => undefined, ask: async () => undefined,
  };
}

async function call(name: string, args: Record<string, unknown>, agent = 'build'): Promise<string> {
  const tool = tools[name];
  if (!tool) throw new Error(`no tool ${name}`);
  const result = await tool.execute(args as never, context(agent));
  return typeof result === 'string' ? result : result.output;
}

/** Everything the database holds, to prove a refused call wrote nothing. */
function databaseContent(): unknown {
  const tables = t.store.tables;
  return {
    agents: [...tables.agents.getRange()],
    sessions: [...tables.usage.getRange()],
    communication: [...tables.gradeEvents.getRange()],
    retrospectives: [...tables.retrospectives.getRange()],
    activities: [...tables.activities.getRange()],
    flushes: t.store.meta().flushes,
  };
}

async function expectRefused(name: string, args: Record<string, unknown>, message: RegExp, agent = 'build'): Promise<void> {
  const before = databaseContent();
  await expect(call(name, args, agent)).rejects.toThrow(message);
  expect(t.service.pendingMutations).toBe(0);
  t.service.flush('after refusal');
  expect(databaseContent()).toEqual(before);
}

const ONE_MB = 'x'.repeat(1024 * 1024);

describe('grade-commit', () => {
  it('records the self-grade of HEAD and reports the CS change the rules give', async () => {
    setup();
    const before = t.service.getAgentStatus('build').cs;
    const output = await call('grade-commit', { commit: 'HEAD', agentGrade: 5, task: 'initial', agentNote: 'ok' });
    expect(output).toContain(head.slice(0, 12));
    expect(output).toContain(`CS ${before} -> ${before + 5}`);
    expect(output).toContain('The user grades the work themselves with /grade');
    expect(output).not.toContain('were ignored');
    t.service.flush('test');
    expect(t.store.tables.retrospectives.get(['build', head])).toMatchObject({ agent_grade: 5, provenance: 'self' });
  });

  it('never records a "user grade" a model sends: ignored, and the reply says the user grades with /grade', async () => {
    setup();
    const before = t.service.getAgentStatus('build').cs;
    const output = await call('grade-commit', { commit: 'HEAD', agentGrade: 1, userGrade: 5, userNote: ONE_MB });
    expect(output).toContain('The userGrade/userNote you sent were ignored: only the user grades, with /grade.');
    expect(output).toContain(`CS ${before} -> ${before + 1}`);
    t.service.flush('test');
    expect([...t.store.tables.userGrades.getRange()]).toHaveLength(0);
    const retrospective = t.store.tables.retrospectives.get(['build', head]);
    expect(retrospective?.user_grade).toBeUndefined();
    expect(retrospective?.user_note).toBe('');
    const events = [...t.store.tables.gradeEvents.getRange()].map((e) => e.value);
    expect(events.map((e) => [e.source, e.provenance, e.grade])).toEqual([['agent', 'self', 1]]);
  });

  it("refuses a commit no tracked session recorded (the user's own), writing nothing", async () => {
    setup({ recordHead: false });
    await expectRefused('grade-commit', { commit: 'HEAD', agentGrade: 5, userGrade: 5 }, /was not made by a tracked session in this project/);
  });

  it('resolves an abbreviated hash to the full commit', async () => {
    setup();
    await call('grade-commit', { commit: head.slice(0, 8), agentGrade: 1 });
    t.service.flush('test');
    expect(t.store.tables.retrospectives.get(['build', head])).toBeDefined();
  });

  it('refuses a self-grade of 3, 0, "excellent" and 2.5', async () => {
    setup();
    for (const bad of [3, 0, 2.5]) {
      await expectRefused('grade-commit', { commit: 'HEAD', agentGrade: bad }, /agent grade must be one of -1, 1, 2, 5/);
    }
    // Not a number at all: refused by the argument check, which says what the grades are.
    await expectRefused('grade-commit', { commit: 'HEAD', agentGrade: 'excellent' }, /agentGrade must be a number, got "excellent" \(Your grade of your own work: -1 bad, 1 neutral, 2 good, 5 excellence\)/);
  });

  it('refuses an empty commit, a non-hash and a hash that is not in this repository', async () => {
    setup();
    await expectRefused('grade-commit', { commit: '', agentGrade: 2 }, /commit must name a commit: its hash \(or a unique prefix\), HEAD or HEAD~N/);
    await expectRefused('grade-commit', { commit: '--all', agentGrade: 2 }, /is not a commit hash/);
    await expectRefused('grade-commit', { commit: 'deadbeefdeadbeef', agentGrade: 2 }, /"deadbeefdeadbeef" names no commit in /);
    // HEAD~1 where the repository has a single commit: git knows none.
    await expectRefused('grade-commit', { commit: 'HEAD~1', agentGrade: 2 }, /"HEAD~1" names no commit in /);
  });

  it('refuses a 1 MB note and control characters in a note', async () => {
    setup();
    await expectRefused('grade-commit', { commit: 'HEAD', agentGrade: 2, agentNote: ONE_MB }, new RegExp(`agent note is ${ONE_MB.length} characters long; at most ${MAX_TEXT_LENGTH}`));
    await expectRefused('grade-commit', { commit: 'HEAD', agentGrade: 2, agentNote: 'fine\u0000\u001b[31m' }, /agent note contains control characters/);
  });

  it('refuses a second grade of the same commit', async () => {
    setup();
    await call('grade-commit', { commit: 'HEAD', agentGrade: 2 });
    t.service.flush('test');
    await expectRefused('grade-commit', { commit: 'HEAD', agentGrade: 5 }, /already graded/);
  });
});

describe('report-bug', () => {
  it('records the bug and says when the agent is halted and how to revive it', async () => {
    setup();
    const status = t.service.getAgentStatus('build');
    let output = '';
    for (let i = 0; i < status.sp; i += 1) output = await call('report-bug', { description: `bug ${i}` });
    expect(output).toContain('build is now HALTED');
    expect(output).toContain('agent-tracker revive build');
    // Another bug while halted: it counts, and the agent is still halted, not halted anew.
    expect(await call('report-bug', { description: 'one more' })).toContain('build is still HALTED');
  });

  it('takes HEAD for the commit, as grade-commit and the CLI do: a bug another agent reports in it counts', async () => {
    setup();
    // build made HEAD (setup); reviewer reports a bug in it, naming it HEAD.
    const output = await call('report-bug', { description: 'empty input crashes', agent: 'build', commit: 'HEAD' }, 'reviewer');
    expect(output).toMatch(/^Bug recorded for build: SP \d+, bugs 1\./);
  });

  it('refuses an empty description, an unknown agent and odd characters in the name', async () => {
    setup();
    await expectRefused('report-bug', { description: '   ' }, /description must not be empty/);
    await expectRefused('report-bug', { description: 'x', agent: 'nobody' }, /no agent named "nobody"/);
    await expectRefused('report-bug', { description: 'x', agent: 'build; rm -rf /' }, /may contain only letters, digits/);
    await expectRefused('report-bug', { description: 'x', agent: 'b\u0000uild' }, /may contain only letters, digits/);
    await expectRefused('report-bug', { description: 'x', agent: 'a'.repeat(65) }, /longer than 64 characters/);
    await expectRefused('report-bug', { description: ONE_MB }, /description is \d+ characters long/);
  });
});

describe('log-activity', () => {
  it('stores the entry', async () => {
    setup();
    await call('log-activity', { task: 'Write tests', actions: 'wrote them', outcome: 'green', decisions: 'real LMDB' });
    t.service.flush('test');
    expect([...t.store.tables.activities.getRange()].map((e) => e.value)).toContainEqual(expect.objectContaining({ task: 'Write tests', automatic: false }));
  });

  it('refuses a missing task, a 1 MB field and control characters', async () => {
    setup();
    await expectRefused('log-activity', { task: '' }, /task must not be empty/);
    await expectRefused('log-activity', { task: 'ok', decisions: ONE_MB }, /decisions is \d+ characters long/);
    await expectRefused('log-activity', { task: 'bell\u0007' }, /task contains control characters/);
  });
});

describe('agent-status', () => {
  it('shows the calling agent and refuses an unknown or malformed name', async () => {
    setup();
    expect(await call('agent-status', {})).toContain('build');
    // Installed by OpenCode the CLI is not on PATH: the sheet says how to run it from where the package is.
    expect(await call('agent-status', {})).toContain(`\`${cliCommand(ROOT)} <command>\``);
    await expectRefused('agent-status', { agent: 'nobody' }, /no agent named "nobody"/);
    await expectRefused('agent-status', { agent: '../etc' }, /may contain only letters, digits/);
  });

  it('shows another agent that worked without earning anything yet, as status does', async () => {
    setup();
    // asker's one tool call failed: no XP, so no agent record, but its session is on record.
    t.service.noteModelRequest('s2', 'asker', 'fake/other');
    t.service.recordToolCall('s2', 'c9', 'bash', false);
    t.service.flush('turn');
    const sheet = await call('agent-status', { agent: 'asker' });
    expect(sheet).toContain('PROBATION');
    expect(sheet).toMatch(/SP \.+ 1 /);
  });
});

/**
 * OpenCode passes a tool's arguments on as the model wrote them, without its schema's check (seen with
 * opencode 1.18.33), so each tool checks them first and says what was wrong.
 */
describe('arguments of the wrong kind', () => {
  it('refuses a number, a list or an object where text is asked for, naming the argument, what came and what it is for', async () => {
    setup();
    await expectRefused('agent-status', { agent: 7 }, /^agent must be text, got number 7 \(Agent name; defaults to the calling agent\)$/);
    await expectRefused('log-activity', { task: ['a'] }, /^task must be text, got a list \(The task worked on\)$/);
    await expectRefused('report-bug', { description: 'broke', commit: { hash: 'x' } }, /^commit must be text, got an object \(/);
    await expectRefused('grade-commit', { commit: 12, agentGrade: 2 }, /^commit must be text, got number 12 \(The commit: its hash \(or a unique prefix\), HEAD for the latest, or HEAD~N\)$/);
  });

  it('names every missing required argument, and each wrong one, in one line', async () => {
    setup();
    await expectRefused('grade-commit', {}, /^commit is required \(The commit: its hash \(or a unique prefix\), HEAD for the latest, or HEAD~N\); agentGrade is required \(Your grade of your own work: /);
    await expectRefused('log-activity', { task: 'x', outcome: 5, decisions: true }, /^outcome must be text, got number 5 \(What came of it\); decisions must be text, got boolean true \(/);
  });

  it('refuses arguments that are not an object at all, and shortens long text it quotes', async () => {
    setup();
    await expectRefused('agent-status', undefined as never, /^the arguments must be an object, got undefined$/);
    await expectRefused('agent-status', null as never, /^the arguments must be an object, got null$/);
    await expectRefused('agent-status', 'build' as never, /^the arguments must be an object, got "build"$/);
    await expectRefused('agent-status', ['build'] as never, /^the arguments must be an object, got a list$/);
    const long = 'x'.repeat(41);
    await expectRefused('grade-commit', { commit: 'HEAD', agentGrade: long }, new RegExp(`^agentGrade must be a number, got "${'x'.repeat(40)}\\.\\.\\." \\(`));
    await expectRefused('grade-commit', { commit: 'HEAD', agentGrade: long.slice(1) }, new RegExp(`^agentGrade must be a number, got "${'x'.repeat(40)}" \\(`));
  });

  it('refuses a value outside a choice, and gives each argument its description', async () => {
    const tool = defineTool({ description: 'a test tool', args: (a) => ({ mode: a.optionalChoice(['fast', 'slow'], 'How to run it'), count: a.number('How many') }), execute: async (args) => `${args.mode ?? 'default'} x${args.count}` });
    const run = (args: unknown) => tool.execute(args as never, context());
    await expect(run({ mode: 'medium', count: 1 })).rejects.toThrow(/^mode must be one of fast, slow, got "medium" \(How to run it\)$/);
    await expect(run({ count: 2 })).resolves.toBe('default x2');
    await expect(run({ mode: 'slow', count: 3, extra: true })).resolves.toBe('slow x3');
    expect(Object.fromEntries(Object.entries(tool.args).map(([name, schema]) => [name, (schema as { description?: string }).description]))).toEqual({ mode: 'How to run it', count: 'How many' });
  });

  it('takes an optional argument sent as null as left out', async () => {
    setup();
    const output = await call('log-activity', { task: 'tidy the parser', actions: null, outcome: null, decisions: null });
    expect(output).toMatch(/tidy the parser/);
    t.service.flush('test');
    const [entry] = [...t.store.tables.activities.getRange()];
    expect(JSON.stringify(entry?.value)).not.toMatch(/null/);
  });
});

describe('revive (the CLI path through the service)', () => {
  it('refuses an unknown agent and a malformed name without writing', () => {
    setup();
    const before = databaseContent();
    expect(() => t.service.revive('nobody')).toThrow(/no agent named "nobody"/);
    expect(() => t.service.revive('')).toThrow(/must be a non-empty name/);
    expect(() => t.service.revive('bad name')).toThrow(/may contain only/);
    expect(databaseContent()).toEqual(before);
  });

  it('revives an agent whose SP went below 0 back to SP 1', () => {
    setup();
    const reports = t.service.getAgentStatus('build').sp + 1;
    for (let i = 0; i < reports; i += 1) t.service.reportBug({ agent: 'build', sessionId: 's1', description: 'x' });
    t.service.flush('test');
    expect(t.store.tables.agents.get('build')?.sp).toBeLessThan(0);
    expect(t.service.revive('build')).toMatchObject({ revived: true, status: { sp: REVIVE_SP, halted: false } });
  });
});

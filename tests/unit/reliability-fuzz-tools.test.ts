/**
 * Property-based fuzzing of every agent tool, through the real tool definitions from createTools
 * (a new tool is picked up here by itself), against a temporary database and git repository.
 *   - No crash: a call resolves to text, or rejects with a deliberate error (never a TypeError &c.).
 *   - Invalid input writes nothing: a rejected call leaves the buffer empty and the database as it was.
 *   - Read-only tools write nothing at all; writing tools round-trip valid input into the database.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { ToolContext, ToolDefinition } from '@opencode-ai/plugin';
import fc from 'fast-check';
import { silentLogger } from '../../src/core/logger.js';
import { formatHealthStatus } from '../../src/core/report/sheet.js';
import { MAX_NAME_LENGTH, MAX_TEXT_LENGTH } from '../../src/core/validation.js';
import { GRADES } from '../../src/core/types.js';
import { createTools, TOOL_NAMES } from '../../src/opencode/tools/index.js';
import { git, makeRepo, makeSandbox, removeSandbox } from '../helpers/sandbox.js';
import type { Sandbox } from '../helpers/sandbox.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';
import { localPriorArt } from '../../src/opencode/prior-art-answer.js';

const RUNS_PER_TOOL = Number(process.env.FUZZ_RUNS ?? 60);
const ROUND_TRIP_RUNS = 40;
const GRADED_COMMITS = ROUND_TRIP_RUNS + 5;
jest.setTimeout(120_000);

/** Errors that mean a programming mistake rather than a deliberate refusal. */
const CRASHES = ['TypeError', 'RangeError', 'ReferenceError', 'SyntaxError', 'EvalError', 'URIError'];
/** Tools that only read; they must never write, whatever they are given. */
/** recommend-setup is not among them: like the CLI, it brings the git signals up to date before it answers. */
const READ_ONLY_TOOLS = new Set(['agent-status', 'prior-art']);

/** Agents with tracked work: bug reports are only taken for those. */
const TRACKED_AGENTS = ['build', 'plan', 'general', 'reviewer'];

type Args = Record<string, unknown>;

let sandbox: Sandbox;
let repo: string;
let t: TempTracker;
let tools: Record<string, ToolDefinition>;
/** Real commits of the repository, each graded once by the round-trip property. */
let ungraded: string[];

beforeAll(() => {
  sandbox = makeSandbox('agent-tracker-fuzz-tools-');
  repo = makeRepo(sandbox, 'fuzz');
  for (let i = 0; i < GRADED_COMMITS; i += 1) git(repo, ['commit', '--quiet', '--allow-empty', '-m', `change ${i}`], sandbox.env);
  ungraded = git(repo, ['log', '--format=%H', '-n', String(GRADED_COMMITS)]).trim().split('\n');
  t = tempTracker({}, repo);
  tools = createTools({ service: t.service, logger: silentLogger, project: repo, renderStatus: (status) => formatHealthStatus(status), priorArt: localPriorArt(t.service.store, silentLogger) });
  t.service.noteModelRequest('ses_fuzz', 'build', 'fake/model');
  // Only commits a tracked session recorded can be graded: the fuzz session made them.
  t.service.recordCommits('ses_fuzz', ungraded.map((hash) => ({ hash, message: 'change', files: [], insertions: 0, deletions: 0, timestamp: new Date().toISOString() })));
  for (const agent of TRACKED_AGENTS) {
    t.service.noteModelRequest(`ses_${agent}`, agent, 'fake/model');
    t.service.recordToolCall(`ses_${agent}`, 'call_0', 'bash', true);
  }
  expect(t.service.flush('setup').ok).toBe(true);
});

afterAll(() => {
  t.dispose();
  removeSandbox(sandbox);
});

beforeEach(() => {
  expect(t.service.flush('between tests').ok).toBe(true);
});

function context(agent: string): ToolContext {
  return {
    sessionID: 'ses_fuzz',
    messageID: 'msg_fuzz',
    agent,
    directory: repo,
    worktree: repo,
    abort: new AbortController().signal,
    metadata: () => undefined,
    ask: async () => undefined,
  };
}

/** Everything every table holds (tables added later included), to prove that nothing was written. */
function databaseContent(): string {
  const content: Record<string, unknown> = { flushes: t.store.meta().flushes };
  for (const [name, table] of Object.entries(t.store.tables)) content[name] = [...table.getRange()];
  return JSON.stringify(content);
}

// ---- arbitraries from the tools' own schemas ---------------------------------------------------

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.constantFrom('', ' ', '\n\t', 'HEAD', 'head', 'build', '../../etc/passwd', '--json', '"; rm -rf /', '\u0000', '💥'),
  fc.stringMatching(/^[0-9a-f]{7,40}$/),
  fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,20}$/),
  fc.integer({ min: MAX_TEXT_LENGTH - 2, max: MAX_TEXT_LENGTH + 50 }).map((n) => 'y'.repeat(n)),
);
const number = fc.oneof(fc.constantFrom(...GRADES, 0, 3, 4, -2, 6, 100), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));

/** A zod schema's arbitrary; unknown kinds get anything JSON-like (the schema check below filters). */
function arbitraryFor(schema: unknown): fc.Arbitrary<unknown> {
  const def = (schema as { def?: { type?: string; innerType?: unknown; entries?: Record<string, unknown>; element?: unknown } }).def ?? {};
  switch (def.type) {
    case 'string':
      return text;
    case 'number':
      return number;
    case 'boolean':
      return fc.boolean();
    case 'optional':
    case 'nullable':
    case 'default':
      return fc.option(arbitraryFor(def.innerType), { nil: undefined });
    case 'enum':
      return fc.oneof(fc.constantFrom(...Object.values(def.entries ?? {})), text);
    case 'array':
      return fc.array(arbitraryFor(def.element), { maxLength: 4 });
    default:
      return fc.jsonValue();
  }
}

/**
 * Arguments as a model may send them. OpenCode does not hold them to the tool's schema before `execute`
 * (seen with opencode 1.18.33: a number for a text argument reaches the tool), so besides values of the
 * schema's kinds any JSON value comes, and arguments go missing.
 */
function argsFor(definition: ToolDefinition): fc.Arbitrary<Args> {
  const shape = definition.args as Record<string, unknown>;
  const fields = Object.fromEntries(Object.entries(shape).map(([name, field]) => [name, fc.oneof({ weight: 4, arbitrary: arbitraryFor(field) }, { weight: 1, arbitrary: fc.jsonValue() })]));
  return fc.record(fields, { requiredKeys: [] }) as fc.Arbitrary<Args>;
}

const agentName = fc.oneof(fc.constantFrom('build', 'plan', 'general'), fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,30}$/));
/**
 * The agent name the host passes in the context: a configured agent's name, so of a sane length
 * (the sheet renders it as a FIGlet banner, which grows slow for names of thousands of characters).
 */
const hostAgent = fc.oneof(agentName, fc.string({ maxLength: MAX_NAME_LENGTH }), fc.constantFrom('', ' ', '💥', 'title'));

async function run(name: string, args: Args, agent: string): Promise<{ ok: true; output: string } | { ok: false; error: unknown }> {
  const definition = tools[name]!;
  try {
    const result = await definition.execute(args as never, context(agent));
    return { ok: true, output: typeof result === 'string' ? result : (result as { output: string }).output };
  } catch (error) {
    return { ok: false, error };
  }
}

describe('fuzzing every agent tool', () => {
  it('covers exactly the tools in TOOL_NAMES', () => {
    expect(Object.keys(tools).sort()).toEqual([...TOOL_NAMES].sort());
  });

  it.each([...TOOL_NAMES])('%s: never crashes, and writes nothing when it refuses', async (name) => {
    expect(tools[name]).toBeDefined();
    await fc.assert(
      fc.asyncProperty(argsFor(tools[name]!), hostAgent, async (args, agent) => {
        expect(t.service.flush('before call').ok).toBe(true);
        const before = databaseContent();
        const outcome = await run(name, args, agent);
        if (outcome.ok) {
          expect(typeof outcome.output).toBe('string');
          expect(outcome.output.trim()).not.toBe('');
          if (READ_ONLY_TOOLS.has(name)) {
            expect(t.service.pendingMutations).toBe(0);
            expect(databaseContent()).toBe(before);
          }
          return;
        }
        const error = outcome.error as Error;
        expect(error).toBeInstanceOf(Error);
        if (CRASHES.includes(error.name)) throw new Error(`${name} crashed on ${JSON.stringify(args)}: ${error.stack}`);
        expect(error.message.trim()).not.toBe('');
        expect(t.service.pendingMutations).toBe(0);
        expect(t.service.flush('after refusal').ok).toBe(true);
        expect(databaseContent()).toBe(before);
      }),
      { numRuns: RUNS_PER_TOOL },
    );
  });
});

// ---- round trips of valid input -----------------------------------------------------------------

/** Text a tool keeps as it is (after trimming): non-blank, within the length limit. */
const keptText = fc.string({ minLength: 1, maxLength: 200 }).filter((value) => value.trim() !== '');
const optionalText = fc.option(keptText, { nil: undefined });
const trimmed = (value: string | undefined): string => value?.trim() ?? '';
const validAgent = fc.stringMatching(new RegExp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,${MAX_NAME_LENGTH - 1}}$`));

describe('valid input round-trips into the database', () => {
  it('log-activity stores the entry as given', async () => {
    await fc.assert(
      fc.asyncProperty(keptText, optionalText, optionalText, optionalText, validAgent, async (task, actions, outcome, decisions, agent) => {
        const result = await run('log-activity', { task, actions, outcome, decisions }, agent);
        if (!result.ok) throw result.error;
        expect(t.service.flush('round trip').ok).toBe(true);
        const stored = [...t.store.tables.activities.getRange({ start: [agent, '', ''], end: [`${agent}\u0000`, '', ''] })].map((entry) => entry.value);
        expect(stored).toContainEqual(
          expect.objectContaining({ agent, task: trimmed(task), actions: trimmed(actions), outcome: trimmed(outcome), decisions: trimmed(decisions), automatic: false }),
        );
      }),
      { numRuns: ROUND_TRIP_RUNS },
    );
  });

  it('report-bug of its own work adds one bug to the agent and journals the description', async () => {
    await fc.assert(
      fc.asyncProperty(keptText, fc.constantFrom(...TRACKED_AGENTS), async (description, agent) => {
        const bugsBefore = t.service.getAgentStatus(agent).bugs;
        // Against another agent a report needs a commit of that agent (state.test.ts); of one's own work it counts at its word.
        const result = await run('report-bug', { description, agent }, agent);
        if (!result.ok) throw result.error;
        expect(t.service.flush('round trip').ok).toBe(true);
        expect(t.store.tables.agents.get(agent)?.bugs).toBe(bugsBefore + 1);
        const journal = [...t.store.tables.activities.getRange({ start: [agent, '', ''], end: [`${agent}\u0000`, '', ''] })].map((entry) => entry.value.task);
        expect(journal).toContainEqual(expect.stringContaining(trimmed(description)));
      }),
      { numRuns: ROUND_TRIP_RUNS },
    );
  });

  it('grade-commit stores the retrospective with the self-grade and note, and never a user grade the model sends', async () => {
    const grade = fc.constantFrom(...GRADES);
    await fc.assert(
      fc.asyncProperty(grade, grade, optionalText, optionalText, optionalText, async (agentGrade, userGrade, task, agentNote, userNote) => {
        const commit = ungraded.pop();
        if (!commit) throw new Error('ran out of commits to grade');
        const result = await run('grade-commit', { commit, agentGrade, userGrade, task, agentNote, userNote }, 'build');
        if (!result.ok) throw result.error;
        expect(t.service.flush('round trip').ok).toBe(true);
        expect(t.store.tables.retrospectives.get(['build', commit])).toMatchObject({
          commit,
          agent_grade: agentGrade,
          agent_note: trimmed(agentNote),
          user_note: '',
          provenance: 'self',
          ...(task ? { task: trimmed(task) } : {}),
        });
        expect(t.store.tables.retrospectives.get(['build', commit])?.user_grade).toBeUndefined();
        expect(t.store.tables.userGrades.getKeysCount()).toBe(0);
      }),
      { numRuns: ROUND_TRIP_RUNS },
    );
  });
});

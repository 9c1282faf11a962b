import { importValueProblem, MAX_COMMIT_MESSAGE_LENGTH, MAX_IMPORTED_SP, MIN_IMPORTED_SP } from '../../src/core/integrity/import-checks.js';
import { MAX_NAME_LENGTH, MAX_TEXT_LENGTH } from '../../src/core/validation.js';

const AGENT = { id: 'build', sp: 3, xp: 10, cs: 0, commits: 2, bugs: 0, halted: false, createdAt: '2025-01-01T00:00:00.000Z', updatedAt: '2025-01-02T00:00:00.000Z' };
const AGENT_FIELDS = Object.keys(AGENT);
const ACTIVITY = { timestamp: '2025-01-01T00:00:00.000Z', task: 't', actions: '', outcome: '', decisions: '', agent: 'build', model: 'm', project: '/p', automatic: false };
const ACTIVITY_FIELDS = [...Object.keys(ACTIVITY), 'sessionId', 'files'];

describe('import value checks', () => {
  it.each<[string, string, Record<string, unknown>, readonly string[], RegExp | undefined]>([
    ['a good agent', 'agents', AGENT, AGENT_FIELDS, undefined],
    ['SP at the top bound', 'agents', { ...AGENT, sp: MAX_IMPORTED_SP }, AGENT_FIELDS, undefined],
    ['SP at the bottom bound', 'agents', { ...AGENT, sp: MIN_IMPORTED_SP }, AGENT_FIELDS, undefined],
    ['SP 1e308', 'agents', { ...AGENT, sp: 1e308 }, AGENT_FIELDS, /"sp" must be a whole number from -1000 to 1000/],
    ['SP one past the bound', 'agents', { ...AGENT, sp: MAX_IMPORTED_SP + 1 }, AGENT_FIELDS, /"sp"/],
    ['SP one under the bound', 'agents', { ...AGENT, sp: MIN_IMPORTED_SP - 1 }, AGENT_FIELDS, /"sp"/],
    ['fractional SP', 'agents', { ...AGENT, sp: 1.5 }, AGENT_FIELDS, /"sp"/],
    ['negative XP', 'agents', { ...AGENT, xp: -5 }, AGENT_FIELDS, /"xp" must be a whole number of 0 or more, got -5/],
    ['negative bugs', 'agents', { ...AGENT, bugs: -100 }, AGENT_FIELDS, /"bugs"/],
    ['zero bugs', 'agents', { ...AGENT, bugs: 0 }, AGENT_FIELDS, undefined],
    ['a date that does not parse', 'agents', { ...AGENT, createdAt: 'x' }, AGENT_FIELDS, /"createdAt" must be a date, got "x"/],
    ['an unknown field', 'agents', { ...AGENT, trusted: true }, AGENT_FIELDS, /"trusted" is not a field of a agents record/],
    ['an outcome counter', 'agents', { ...AGENT, trackerFileEdits: 1 }, AGENT_FIELDS, undefined],
    ['a long agent name', 'agents', { ...AGENT, id: 'a'.repeat(MAX_NAME_LENGTH + 1) }, AGENT_FIELDS, /longer than 64/],
    ['text at the limit', 'activities', { ...ACTIVITY, task: 'x'.repeat(MAX_TEXT_LENGTH) }, ACTIVITY_FIELDS, undefined],
    ['10 MB of activity text', 'activities', { ...ACTIVITY, task: 'x'.repeat(10 * 1024 * 1024) }, ACTIVITY_FIELDS, /"task" is 10485760 characters long; the tools accept at most 4000/],
    ['a huge commit message', 'commits', { message: 'x'.repeat(MAX_COMMIT_MESSAGE_LENGTH + 1) }, ['message'], /"message"/],
    ['a commit message at the cap', 'commits', { message: 'x'.repeat(MAX_COMMIT_MESSAGE_LENGTH) }, ['message'], undefined],
    ['a negative cost', 'sessions', { cost: -1 }, ['cost'], /"cost" must not be negative/],
    ['a zero cost', 'sessions', { cost: 0 }, ['cost'], undefined],
  ])('%s', (_name, kind, value, known, expected) => {
    const problem = importValueProblem(kind, value, known);
    if (expected) expect(problem).toMatch(expected);
    else expect(problem).toBeUndefined();
  });
});

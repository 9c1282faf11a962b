import { importValueProblem, MAX_COMMIT_MESSAGE_LENGTH, MAX_IMPORTED_FIELD_LENGTH, MAX_IMPORTED_SP, MIN_IMPORTED_SP } from '../../src/core/integrity/import-checks.js';
import { MAX_NAME_LENGTH, MAX_TEXT_LENGTH } from '../../src/core/validation.js';

const AGENT = { id: 'build', sp: 3, xp: 10, cs: 0, commits: 2, bugs: 0, halted: false, createdAt: '2025-01-01T00:00:00.000Z', updatedAt: '2025-01-02T00:00:00.000Z' };
const AGENT_FIELDS = Object.keys(AGENT);
const ACTIVITY = { timestamp: '2025-01-01T00:00:00.000Z', task: 't', actions: '', outcome: '', decisions: '', agent: 'build', model: 'm', project: '/p', automatic: false };
const PROJECT = { path: '/p', language: 'typescript', framework: 'none', scope: 'cli', dependencies: ['lmdb'], manifestType: 'package.json', classifiedAt: '2025-01-01T00:00:00.000Z', agentsmdHash: '' };
const PROJECT_FIELDS = Object.keys(PROJECT);
const SESSION_FIELDS = ['gradedCommits', 'gradeSum', 'csDelta', 'cost', 'toolCalls', 'tokensInput'];
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
    ['negative XP', 'agents', { ...AGENT, xp: -5 }, AGENT_FIELDS, /"xp" must be a whole number from 0 to 1000000000000, got -5/],
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
    ['a negative cost', 'sessions', { cost: -1 }, ['cost'], /"cost" must be from 0 to/],
    ['a zero cost', 'sessions', { cost: 0 }, ['cost'], undefined],
    // The ranges the live rules keep (default rules: CS cap 100 per SP, 10 XP per SP to level).
    ['XP 1e300, which would level up forever', 'agents', { ...AGENT, xp: 1e300 }, AGENT_FIELDS, /"xp" must be a whole number from 0 to/],
    ['XP above what SP 3 keeps before levelling', 'agents', { ...AGENT, xp: 10 * 3 + 1 }, AGENT_FIELDS, /"xp" must be at most 30/],
    ['XP a revived agent kept from its highest SP (3 + 2 bugs)', 'agents', { ...AGENT, xp: 49, bugs: 2 }, AGENT_FIELDS, undefined],
    ['CS 1e300', 'agents', { ...AGENT, cs: 1e300 }, AGENT_FIELDS, /"cs" must be from 0 to 300/],
    ['CS -1e300', 'agents', { ...AGENT, cs: -1e300 }, AGENT_FIELDS, /"cs" must be from 0 to 300/],
    ['CS at SP x 100', 'agents', { ...AGENT, cs: 300 }, AGENT_FIELDS, undefined],
    ['CS kept from before bugs lowered SP', 'agents', { ...AGENT, cs: 500, bugs: 2 }, AGENT_FIELDS, undefined],
    ['SP 1000 on a halted agent', 'agents', { ...AGENT, sp: 1000, halted: true }, AGENT_FIELDS, /"sp" is 1000 on a halted agent/],
    ['a halted agent at SP 0', 'agents', { ...AGENT, sp: 0, halted: true, xp: 0, bugs: 3 }, AGENT_FIELDS, undefined],
    ['userGradeSum 1e300', 'sessions', { userGradedCommits: 2, userGradeSum: 1e300 }, [], /"userGradeSum" must be a whole number from -2 to 10/],
    ['userGradeSum within its grades', 'sessions', { userGradedCommits: 2, userGradeSum: 10 }, [], undefined],
    ['selfGradeSum without grades', 'sessions', { selfGradeSum: 3 }, [], /"selfGradeSum" must be a whole number from 0 to 0/],
    ['gradeSum of two grades per commit', 'sessions', { gradedCommits: 1, gradeSum: 10, csDelta: 10 }, SESSION_FIELDS, undefined],
    ['csDelta 1e300', 'sessions', { gradedCommits: 1, gradeSum: 2, csDelta: 1e300 }, SESSION_FIELDS, /"csDelta" must be from -10 to 10/],
    ['a count of 1e300 tokens', 'sessions', { tokensInput: 1e300 }, SESSION_FIELDS, /"tokensInput" must be a whole number from 0 to/],
    // Turns per task kind: whole counts, together at most the turns worked.
    ['turns of each kind within the turns', 'sessions', { turns: 5, turnsBugFix: 3, turnsDocs: 2 }, [], undefined],
    ['more turns by kind than turns', 'sessions', { turns: 4, turnsBugFix: 3, turnsDocs: 2 }, [], /turnsBugFix, turnsFeature, .*turnsOther count 5 turns together; the record worked only 4 \("turns"\)/],
    ['turns by kind without turns', 'sessions', { turnsOther: 1 }, [], /count 1 turns together; the record worked only 0/],
    ['a negative turns count of a kind', 'sessions', { turns: 2, turnsTests: -1 }, [], /"turnsTests" must be a whole number from 0 to/],
    ['a fractional turns count of a kind', 'sessions', { turns: 2, turnsConfig: 0.5 }, [], /"turnsConfig" must be a whole number from 0 to/],
    ['a cost of 1e300', 'sessions', { cost: 1e300 }, SESSION_FIELDS, /"cost" must be from 0 to/],
    ['a CS of 1e300 before a grade', 'retrospectives', { score_before: 1e300 }, ['score_before'], /"score_before" must be a CS from 0 to/],
    // Text from outside: every text field has a length cap.
    ['a 10 MB project language', 'projects', { ...PROJECT, language: 'x'.repeat(10 * 1024 * 1024) }, PROJECT_FIELDS, /"language" is 10485760 characters long; at most 4096/],
    ['a language at the cap', 'projects', { ...PROJECT, language: 'x'.repeat(MAX_IMPORTED_FIELD_LENGTH) }, PROJECT_FIELDS, undefined],
    ['a 10 MB dependency name', 'projects', { ...PROJECT, dependencies: ['x'.repeat(10 * 1024 * 1024)] }, PROJECT_FIELDS, /"dependencies" holds an item of 10485760 characters/],
  ])('%s', (_name, kind, value, known, expected) => {
    const problem = importValueProblem(kind, value, known);
    if (expected) expect(problem).toMatch(expected);
    else expect(problem).toBeUndefined();
  });
});

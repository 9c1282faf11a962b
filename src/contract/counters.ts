/**
 * The counters a usage record holds (one record per session × agent × model), named ONCE. Every other
 * list of them — the record types, a new record's zeros, the export format's checks, token totals,
 * the report's legend — derives from these tables, so a counter added here reaches every surface.
 */

/** Work counters: every usage record has all of them. The text says what one unit is. */
export const WORK_COUNTERS = {
  toolCalls: 'tool calls that finished (the tracker\'s own tools included)',
  toolFailures: 'tool calls that failed: a non-zero exit or an error',
  commands: 'slash commands run',
  commits: 'commits made',
  pushes: 'git pushes that succeeded',
  bugs: 'bug reports charged to the setup',
  gradedCommits: 'commits graded (any provenance; records from before provenance)',
  gradeSum: 'sum of those grades (-1..5 each; before provenance, agent + relayed grade per commit)',
  csDelta: 'CS gained or lost through grades',
  messages: 'assistant messages',
  tokensInput: 'input tokens',
  tokensOutput: 'output tokens',
  tokensReasoning: 'reasoning tokens',
  tokensCacheRead: 'tokens read from the provider\'s cache',
  tokensCacheWrite: 'tokens written to the provider\'s cache',
  cost: 'cost as OpenCode recorded it (USD)',
} as const;

/** Outcome counters: optional on a record (absent reads as 0; records written before them hold none). */
export const OUTCOME_COUNTERS = {
  userGradedCommits: 'commits the user graded (`/grade` or `agent-tracker grade`)',
  userGradeSum: 'sum of the user\'s grades (-1..5 each)',
  selfGradedCommits: 'commits the agent graded itself (`grade-commit`)',
  selfGradeSum: 'sum of the self-grades',
  reportedGradedCommits: '"user grades" an agent relayed (records from before provenance)',
  reportedGradeSum: 'sum of the relayed grades',
  pairedGradedCommits: 'commits graded by both: the agent (a counted self-grade) and the user',
  pairedGradeGapSum: 'sum over those commits of the self-grade minus the user\'s grade',
  pairedGradeGapSquares: 'sum over those commits of that difference squared',
  turns: 'turns worked',
  undoneTurns: 'turns the user undid (OpenCode undo/revert)',
  testRuns: 'test-suite runs',
  testPasses: 'test-suite runs that exited 0',
  testRecoveries: 'sessions that ended green after being red (0 or 1 per record)',
  revertedCommits: 'the setup\'s commits later reverted',
  followUpFixCommits: 'the setup\'s commits followed by a fix to the same lines',
  trackerFileEdits: 'tool calls that edited an OpenCode config, the provisioned agents/skills or the tracker\'s AGENTS.md section',
  turnsBugFix: 'turns whose task was a bug fix (classified from the prompt and the files the turn edited)',
  turnsFeature: 'turns whose task was a feature',
  turnsRefactor: 'turns whose task was a refactor',
  turnsTests: 'turns whose task was tests',
  turnsDocs: 'turns whose task was documentation',
  turnsConfig: 'turns whose task was configuration',
  turnsOther: 'turns whose task was a question or anything else',
} as const;

export type WorkCounterName = keyof typeof WORK_COUNTERS;
export type OutcomeCounterName = keyof typeof OUTCOME_COUNTERS;
export type CounterName = WorkCounterName | OutcomeCounterName;

export const WORK_COUNTER_NAMES = Object.keys(WORK_COUNTERS) as WorkCounterName[];
export const OUTCOME_COUNTER_NAMES = Object.keys(OUTCOME_COUNTERS) as OutcomeCounterName[];

/** The token counters, in the order reports show them. */
export const TOKEN_COUNTER_NAMES = ['tokensInput', 'tokensOutput', 'tokensReasoning', 'tokensCacheRead', 'tokensCacheWrite'] as const satisfies readonly WorkCounterName[];

/** Counters that are sums (of grades, CS or money), not counts: they may be negative or fractional. */
const SUM_COUNTERS: ReadonlySet<CounterName> = new Set<CounterName>(['gradeSum', 'csDelta', 'cost', 'userGradeSum', 'selfGradeSum', 'reportedGradeSum', 'pairedGradeGapSum']);

/**
 * Counters that judge a session's work after the host ran it (grades, CS, bugs charged to it, git's later
 * word on its commits, the user's undo): the rest count what the host's own history shows, which a
 * backfill replays from OpenCode's store.
 */
export const JUDGEMENT_COUNTER_NAMES: readonly CounterName[] = [
  'bugs', 'gradedCommits', 'gradeSum', 'csDelta', 'userGradedCommits', 'userGradeSum', 'selfGradedCommits', 'selfGradeSum',
  'reportedGradedCommits', 'reportedGradeSum', 'pairedGradedCommits', 'pairedGradeGapSum', 'pairedGradeGapSquares',
  'undoneTurns', 'revertedCommits', 'followUpFixCommits',
];

/** The counters that count things: whole numbers of 0 or more. */
export const WHOLE_COUNTER_NAMES: readonly CounterName[] = [...WORK_COUNTER_NAMES, ...OUTCOME_COUNTER_NAMES].filter((name) => !SUM_COUNTERS.has(name));

export type WorkCounters = Record<WorkCounterName, number>;
export type OutcomeCounters = Partial<Record<OutcomeCounterName, number>>;
/** A set of changes to some counters (applied as deltas). */
export type CounterDeltas = Partial<Record<CounterName, number>>;

/** Every work counter at zero. */
export function zeroWorkCounters(): WorkCounters {
  return Object.fromEntries(WORK_COUNTER_NAMES.map((name) => [name, 0])) as WorkCounters;
}

/** All tokens of a record, every kind together. */
export function totalTokens(record: Pick<WorkCounters, (typeof TOKEN_COUNTER_NAMES)[number]>): number {
  let total = 0;
  for (const name of TOKEN_COUNTER_NAMES) total += record[name];
  return total;
}

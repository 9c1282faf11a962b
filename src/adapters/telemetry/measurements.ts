/**
 * What one flush means as telemetry: pure translation of the flushed mutations into metric
 * measurements and events, with the OpenTelemetry GenAI semantic-convention names where they exist
 * (`gen_ai.client.token.usage`, `gen_ai.token.type`, `gen_ai.agent.name`, `gen_ai.request.model`,
 * `gen_ai.provider.name`) and `agent_tracker.*` names where they do not. The exporter only ships these.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Mutation, SessionKey } from '../../core/store/mutations.js';
import type { CounterName, ProjectProfile } from '../../core/types.js';
import { UNKNOWN } from '../../core/types.js';

export type Attributes = Record<string, string>;

export interface Measurement {
  instrument: keyof typeof INSTRUMENTS;
  value: number;
  attributes: Attributes;
}

export interface TelemetryEvent {
  name: string;
  attributes: Record<string, string | number>;
}

/** Every instrument: its kind, unit and description, as the exporter creates it. */
export const INSTRUMENTS = {
  'gen_ai.client.token.usage': { kind: 'histogram', unit: '{token}', description: 'Tokens used, per flush of a setup (input and output, as the GenAI conventions name them)' },
  'agent_tracker.token.usage': { kind: 'counter', unit: '{token}', description: 'Tokens used by kind: input, output, reasoning, cache_read, cache_write' },
  'agent_tracker.sessions': { kind: 'counter', unit: '{session}', description: 'Sessions worked: one per session and setup (agent × model), as the report counts them' },
  'agent_tracker.messages': { kind: 'counter', unit: '{message}', description: 'Assistant messages' },
  'agent_tracker.tool.calls': { kind: 'counter', unit: '{call}', description: 'Tool calls, failed ones included' },
  'agent_tracker.tool.failures': { kind: 'counter', unit: '{call}', description: 'Failed tool calls' },
  'agent_tracker.commands': { kind: 'counter', unit: '{command}', description: 'Slash commands' },
  'agent_tracker.commits': { kind: 'counter', unit: '{commit}', description: 'Commits made' },
  'agent_tracker.pushes': { kind: 'counter', unit: '{push}', description: 'Successful pushes' },
  'agent_tracker.bugs': { kind: 'counter', unit: '{bug}', description: 'Bugs reported against the agent' },
  'agent_tracker.turns': { kind: 'counter', unit: '{turn}', description: 'Turns worked' },
  'agent_tracker.turns.undone': { kind: 'counter', unit: '{turn}', description: 'Turns the user undid' },
  'agent_tracker.test.runs': { kind: 'counter', unit: '{run}', description: 'Test-suite runs' },
  'agent_tracker.test.passes': { kind: 'counter', unit: '{run}', description: 'Test-suite runs that passed' },
  'agent_tracker.commits.reverted': { kind: 'counter', unit: '{commit}', description: 'Commits later reverted' },
  'agent_tracker.commits.follow_up_fix': { kind: 'counter', unit: '{commit}', description: 'Commits that needed a follow-up fix' },
  'agent_tracker.cost': { kind: 'counter', unit: '{USD}', description: 'Cost of the model requests, in US dollars' },
  'agent_tracker.grade': { kind: 'histogram', unit: '{grade}', description: 'Grades given to commits (-1 bad, 1 neutral, 2 good, 5 excellence), by provenance' },
} as const;

/** Usage counters shipped as counters of the same meaning. */
const COUNTER_INSTRUMENTS: readonly [CounterName, keyof typeof INSTRUMENTS][] = [
  ['messages', 'agent_tracker.messages'],
  ['toolCalls', 'agent_tracker.tool.calls'],
  ['toolFailures', 'agent_tracker.tool.failures'],
  ['commands', 'agent_tracker.commands'],
  ['commits', 'agent_tracker.commits'],
  ['pushes', 'agent_tracker.pushes'],
  ['bugs', 'agent_tracker.bugs'],
  ['turns', 'agent_tracker.turns'],
  ['undoneTurns', 'agent_tracker.turns.undone'],
  ['testRuns', 'agent_tracker.test.runs'],
  ['testPasses', 'agent_tracker.test.passes'],
  ['revertedCommits', 'agent_tracker.commits.reverted'],
  ['followUpFixCommits', 'agent_tracker.commits.follow_up_fix'],
  ['cost', 'agent_tracker.cost'],
];

/** Token counters and the `gen_ai.token.type` each is reported as. */
const TOKEN_TYPES: readonly [CounterName, string][] = [
  ['tokensInput', 'input'],
  ['tokensOutput', 'output'],
  ['tokensReasoning', 'reasoning'],
  ['tokensCacheRead', 'cache_read'],
  ['tokensCacheWrite', 'cache_write'],
];
/** The token types the GenAI conventions define for `gen_ai.client.token.usage`. */
const GEN_AI_TOKEN_TYPES = new Set(['input', 'output']);

const PROJECT_ID_LENGTH = 16;

/** A stable stand-in for a project's path: teams can tell projects apart without learning their names. */
export function projectId(projectPath: string): string {
  return createHash('sha256').update(projectPath).digest('hex').slice(0, PROJECT_ID_LENGTH);
}

export interface TranslateOptions {
  /** The stored profile of a project path, when there is one. */
  profileOf: (projectPath: string) => ProjectProfile | undefined;
  /** The model that made a recorded commit, when it is known. */
  modelOfCommit: (projectPath: string, commit: string) => string | undefined;
  includeProjectNames: boolean;
  /**
   * The usage records the batch created (session × agent × model, as the store found them absent): each
   * is one session as the report counts them (a session with two setups counts for each), whichever
   * process wrote it first, so a session continued after a restart, or graded later, is not counted again.
   */
  created: readonly SessionKey[];
}

/** The attributes of one setup's work on one project. */
export function setupAttributes(agent: string, model: string, projectPath: string, options: Pick<TranslateOptions, 'profileOf' | 'includeProjectNames'>): Attributes {
  const slash = model.indexOf('/');
  const profile = options.profileOf(projectPath);
  return {
    'gen_ai.agent.name': agent,
    'gen_ai.request.model': slash > 0 ? model.slice(slash + 1) : model,
    'gen_ai.provider.name': slash > 0 ? model.slice(0, slash) : UNKNOWN,
    'agent_tracker.project.language': profile?.language ?? UNKNOWN,
    'agent_tracker.project.framework': profile?.framework ?? UNKNOWN,
    ...(options.includeProjectNames ? { 'agent_tracker.project.name': path.basename(projectPath) } : { 'agent_tracker.project.id': projectId(projectPath) }),
  };
}

/** The measurements and events of one flushed batch. */
export function translateFlush(mutations: readonly Mutation[], options: TranslateOptions): { measurements: Measurement[]; events: TelemetryEvent[] } {
  const measurements: Measurement[] = [];
  const events: TelemetryEvent[] = [];
  // A batch may carry several mutations of one record (a replayed event each): its session counts once.
  const uncounted = new Set(options.created.map((key) => key.join('\u0000')));
  for (const mutation of mutations) {
    if (mutation.table === 'usage') {
      const [, agent, model] = mutation.key;
      const attributes = setupAttributes(agent, model, mutation.init.project, options);
      if (uncounted.delete(mutation.key.join('\u0000'))) measurements.push({ instrument: 'agent_tracker.sessions', value: 1, attributes });
      for (const [counter, instrument] of COUNTER_INSTRUMENTS) {
        const value = mutation.counters[counter];
        if (value) measurements.push({ instrument, value, attributes });
      }
      for (const [counter, type] of TOKEN_TYPES) {
        const value = mutation.counters[counter];
        if (!value) continue;
        measurements.push({ instrument: 'agent_tracker.token.usage', value, attributes: { ...attributes, 'gen_ai.token.type': type } });
        if (GEN_AI_TOKEN_TYPES.has(type)) measurements.push({ instrument: 'gen_ai.client.token.usage', value, attributes: { ...attributes, 'gen_ai.token.type': type } });
      }
    } else if (mutation.table === 'gradeEvents') {
      const grade = mutation.value;
      const provenance = (grade as { provenance?: string }).provenance ?? (grade.source === 'user' ? 'agent-reported' : 'self');
      const model = options.modelOfCommit(grade.project, grade.commit) ?? UNKNOWN;
      const attributes = { ...setupAttributes(grade.agent, model, grade.project, options), 'agent_tracker.grade.provenance': provenance };
      measurements.push({ instrument: 'agent_tracker.grade', value: grade.grade, attributes });
      events.push({ name: 'agent_tracker.commit.graded', attributes: { ...attributes, 'agent_tracker.commit': grade.commit, 'agent_tracker.grade': grade.grade } });
    }
  }
  return { measurements, events };
}

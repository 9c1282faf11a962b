/**
 * The mutations the write buffer holds and the store applies in one transaction.
 * Counters are deltas and agent changes are op lists, replayed on the value stored at flush time,
 * so two processes flushing into one database never lose each other's increments.
 */
import type {
  ActivityEntry,
  AgentOp,
  CommitRecord,
  GradeEvent,
  CounterDeltas,
  CounterName,
  Grade,
  MigrationRecord,
  ProjectProfile,
  RetrospectiveEntry,
  UsageRecord,
  UserGradeRecord,
} from '../types.js';

/** Key layouts of the named sub-databases. Arrays sort element by element. */
export type AgentKey = string;
/** [sessionId, agent, model] */
export type SessionKey = [string, string, string];
/** [project, hash] */
export type CommitKey = [string, string];
/** [agent, ISO time, unique suffix]: sorts by time within an agent and never collides. */
export type JournalKey = [string, string, string];
/** [agent, commit] */
export type RetrospectiveKey = [string, string];

export type RetrospectiveDraft = Omit<RetrospectiveEntry, 'score_before' | 'score_after'>;

/** A grade op may carry the retrospective to write with the CS before and after it. */
export type AgentMutationOp =
  | AgentOp
  | { kind: 'grade'; delta: number; earnsXp?: false; retrospective: RetrospectiveDraft }
  /**
   * The user's grade: written once per [project, commit] with its CS change, or dropped whole. With
   * `replaces` (the user's `grade --replace`), it is written over the stored grade only while that is
   * still the grade it replaces; the journal keeps both.
   */
  | { kind: 'grade'; delta: number; earnsXp?: false; userGrade: UserGradeRecord; replaces?: Grade };

export type SessionInit = Omit<UsageRecord, CounterName | 'lastAt'>;

/** [host session id, host event id]: one event of the host (a tool call, a message, a command) once. */
export type ReplayKey = [string, string];

/**
 * A replayable event: its counters are the event's TOTALS (not deltas). The flush adds only what the
 * store does not hold yet for this key, so the same event recorded live, backfilled, or both, counts once.
 * Its agent ops and its journal entry apply only the first time the key is stored.
 */
export interface ReplayMutation {
  table: 'events';
  key: ReplayKey;
  totals: CounterDeltas;
  session: { key: SessionKey; init: SessionInit; at: string };
  agentOps: { agent: string; ops: AgentOp[] }[];
  /** The journal entry the event brings (a turn's automatic entry), written with it once, whoever reports the event first. */
  activity?: { key: JournalKey; value: ActivityEntry };
}

export type Mutation =
  | ReplayMutation
  | { table: 'agents'; key: AgentKey; ops: AgentMutationOp[] }
  /**
   * Counters added to a session's usage record. `judgement`: they judge the session's past work (a grade, a
   * revert or follow-up fix git shows later, a bug traced to one of its commits) and leave its time span as it is.
   */
  | { table: 'usage'; key: SessionKey; init: SessionInit; counters: CounterDeltas; lastAt: string; judgement?: true }
  | { table: 'commits'; key: CommitKey; value: CommitRecord }
  | { table: 'gradeEvents'; key: JournalKey; value: GradeEvent }
  | { table: 'activities'; key: JournalKey; value: ActivityEntry }
  | { table: 'projects'; key: string; value: ProjectProfile }
  /** Items setup put into an OpenCode config folder (key), added to the set already stored. */
  | { table: 'provisioned'; key: string; items: string[] }

  /** Small local state kept with the data it describes (e.g. the git-signal cache of a project). */
  | { table: 'meta'; key: string; value: unknown };

/** Written only when absent: commits and journal entries are immutable once stored. */
export const WRITE_ONCE_TABLES = ['commits', 'gradeEvents', 'activities'] as const;

/** The persisted names of the named sub-databases (tables.ts maps the code names to them). */
export type TableName =
  | 'agents'
  | 'sessions'
  | 'commits'
  | 'communication'
  | 'retrospectives'
  | 'activities'
  | 'projects'
  | 'migrations'
  | 'userGrades'
  | 'events'
  | 'terms'
  | 'meta';

/** Local state that needs no scoring rule: a project profile, provisioned items, a meta value (`store.putRecords`). */
export type StateMutation = Extract<Mutation, { table: 'projects' | 'provisioned' | 'meta' }>;

/** Counter deltas on one usage record. */
export type UsageMutation = Extract<Mutation, { table: 'usage' }>;

export interface FlushResult {
  mutations: number;
  durationMs: number;
  /** What replayable events added to usage records: only the part the store did not hold yet. */
  counted: UsageMutation[];
  /** The usage records (session × agent × model) the batch created: the store held none of them before. */
  created: SessionKey[];
}

export type { MigrationRecord };

/** Collapses a buffer key for a mutation; equal keys of one table collapse into one write. */
export function bufferKey(table: Mutation['table'], key: unknown): string {
  return typeof key === 'string' ? `${table}\u0000${key}` : `${table}\u0000${JSON.stringify(key)}`;
}

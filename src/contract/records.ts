/**
 * The domain types of the tracker, in one place. Everything else imports them from here.
 * Host-agnostic: nothing here knows about OpenCode.
 */

import type { CounterDeltas, CounterName, OutcomeCounters, WorkCounters } from './counters.js';

/** What the tracker records for an agent, model or project field it could not determine. */
export const UNKNOWN = 'unknown';

/** A grade for one side of a commit's collaboration: bad, neutral, good, excellence. */
export type Grade = -1 | 1 | 2 | 5;

export const GRADES: readonly Grade[] = [-1, 1, 2, 5];

export const GRADE_LABELS: Readonly<Record<Grade, string>> = {
  [-1]: 'bad',
  [1]: 'neutral',
  [2]: 'good',
  [5]: 'excellence',
};

export type TrustTier = 'PROBATION' | 'JUNIOR' | 'ESTABLISHED' | 'SENIOR' | 'EXPERT';

/** The stored state of one agent (an OpenCode agent name such as `build`), shared by all projects. */
export interface AgentRecord {
  id: string;
  sp: number;
  xp: number;
  cs: number;
  commits: number;
  bugs: number;
  halted: boolean;
  createdAt: string;
  updatedAt: string;
  /**
   * Set when an import pooled this sheet with another database's sheet of the agent where both held work
   * the other lacked (src/core/pooled-sheet.ts): bugs, credited commits and CS hold both sides' work, but
   * SP and XP are those of one side's sheet (a halted one, else the one that came furthest); XP earned on
   * the other side is not in them.
   */
  pooledStanding?: boolean;
}

/** What a reader sees of an agent: the record plus derived labels. */
export interface AgentStatus extends AgentRecord {
  tier: TrustTier;
  csLabel: string;
  /** XP needed for the next SP level. */
  xpToLevel: number;
}

/** A change to one agent, applied in order inside the write transaction to the value stored then. */
export type AgentOp =
  | { kind: 'xp'; amount: number }
  | { kind: 'commits'; amount: number }
  | { kind: 'bug' }
  /** A graded commit: CS moves by `delta`; grading earns XP unless the commit earned no credit (`earnsXp: false`). */
  | { kind: 'grade'; delta: number; earnsXp?: false }
  | { kind: 'revive' };

/** Token counts of assistant messages. */
export interface TokenCounts {
  input: number;
  output: number;
  reasoning: number;
  cacheRead: number;
  cacheWrite: number;
}

/**
 * Counters of one setup's work in one session: what reports aggregate. One record per
 * session × agent × model, so a session whose agent or model changes keeps each setup apart.
 * The counters and what each means are listed once, in src/contract/counters.ts.
 */
export type UsageCounters = WorkCounters;
export type { OutcomeCounters, CounterName, CounterDeltas };

/** Where a usage record came from: recorded live by the plugin, or imported from OpenCode's own store. */
export type UsageSource = 'live' | 'backfill';

/** How a grade came: the user's own (`/grade`, `agent-tracker grade`), the agent's self-grade, or a "user grade" an agent relayed. */
export type GradeProvenance = 'user' | 'self' | 'agent-reported';

export interface UsageRecord extends UsageCounters, OutcomeCounters {
  sessionId: string;
  /** Absent on records written before sources were told apart: those were live. */
  source?: UsageSource;
  parentSessionId?: string;
  agent: string;
  model: string;
  project: string;
  firstAt: string;
  lastAt: string;
}

/**
 * Why a recorded commit earned no XP/SP (src/core/integrity/commit-credit.ts): no changed file, a merge,
 * whitespace only, a change of content already credited (an amend of it, a re-commit), an undo of the
 * agent's own commit, or past the turn's limit.
 */
export type NoCreditReason = 'no-file-changes' | 'merge' | 'whitespace-only' | 'same-change' | 'self-revert' | 'turn-limit';

export const NO_CREDIT_REASONS: readonly NoCreditReason[] = ['no-file-changes', 'merge', 'whitespace-only', 'same-change', 'self-revert', 'turn-limit'];

/** A commit made by an agent, read from git after the bash call that made it. */
export interface CommitRecord {
  hash: string;
  project: string;
  agent: string;
  model: string;
  sessionId: string;
  message: string;
  files: string[];
  insertions: number;
  deletions: number;
  timestamp: string;
  /**
   * Set when the commit earned nothing, with why; its grades earn nothing either. Absent: it was
   * credited (every record from before the mark reads so).
   */
  noCredit?: NoCreditReason;
}

/** One grade given to an agent for a commit, by the agent itself or by the user. */
export interface GradeEvent {
  agent: string;
  commit: string;
  project: string;
  source: 'agent' | 'user';
  grade: Grade;
  timestamp: string;
  /** How the grade came; absent on records from before provenance (read them with `provenanceOf`). */
  provenance?: GradeProvenance;
}

/** The user's own grade of a commit a tracked session made (`/grade` or `agent-tracker grade`): one per commit. */
export interface UserGradeRecord {
  commit: string;
  project: string;
  /** The setup that made the commit, and the session it made it in. */
  agent: string;
  model: string;
  sessionId: string;
  grade: Grade;
  note: string;
  timestamp: string;
  provenance: 'user';
  /** Which door the grade came through. */
  via: 'slash-command' | 'cli';
}

/** The retrospective of a graded commit (R8.2), with the CS before and after the grades. */
export interface RetrospectiveEntry {
  commit: string;
  timestamp: string;
  task: string;
  agent_grade: Grade;
  /** A "user grade" relayed by the agent: only on records from before provenance (read as agent-reported). */
  user_grade?: Grade;
  score_before: number;
  score_after: number;
  agent_note: string;
  user_note: string;
  agent: string;
  model: string;
  project: string;
  sessionId?: string;
  /** Set on retrospectives written since grades carry provenance: `agent_grade` is the agent's self-grade. */
  provenance?: 'self';
  /** Set once the record's grades were counted into its usage record's provenance counters (migration). */
  outcomeCounted?: boolean;
}

/** A journal entry (R8.3): written by hand through a tool, or automatically at the end of a turn. */
export interface ActivityEntry {
  timestamp: string;
  task: string;
  actions: string;
  outcome: string;
  decisions: string;
  agent: string;
  model: string;
  project: string;
  sessionId?: string;
  /** Files edited during the work, when known. */
  files?: string[];
  automatic: boolean;
  /** Set on the record of a user-only action (revive, the user's grade, import, repair): how it came. */
  userAction?: UserActionProvenance;
}

/**
 * How a bug report's journal entry reads (tracking/bug-reports.ts writes it; prior-art tells it apart):
 * a verified report, charged to the agent, and one that could not be tied to the agent's work.
 */
export const BUG_REPORT_ENTRY = {
  verified: { outcome: 'bug', task: 'Bug reported: ' },
  unverified: { outcome: 'unverified bug report', task: 'Unverified bug report from ' },
} as const;

/** How a user-only action reached the tracker: an OpenCode slash command, or the CLI with or without a terminal. */
export type UserOnlyVia = 'slash-command' | 'terminal-tty' | 'terminal-no-tty';

/**
 * The provenance stored on a user-only record. `suspect`: it came without a terminal while a
 * tracked session of the same project was running, or its process came from an agent session
 * (`signs`): the trace an agent getting past the checks leaves; report and recommend show such
 * records apart until the user reviews them.
 */
export interface UserActionProvenance {
  action: string;
  via: UserOnlyVia;
  suspect: boolean;
  /** Why it is suspect, when its process ancestry says so (an OpenCode parent, a faked terminal…). */
  signs?: string[];
}

/** A project's classification (R12.1). */
export interface ProjectProfile {
  path: string;
  language: string;
  framework: string;
  scope: string;
  dependencies: string[];
  manifestType: string;
  classifiedAt: string;
  agentsmdHash: string;
}

/** Where a migration or import came from, and what it added. */
export interface MigrationRecord {
  source: string;
  at: string;
  added: number;
  skipped: number;
}

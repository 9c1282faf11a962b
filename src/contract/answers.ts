/**
 * Each question's answer, as every surface receives it: `status`, `report`, `recommend`, `prior-art`
 * and `doctor` (the database's part). Built once in core/answers from the record; the CLI (text,
 * --json, --csv), the HTML page, the MCP server, the agent tools and telemetry only render or ship
 * these. Part of the contract: imports nothing outside it.
 */
import type { AgentStatus, Grade, GradeProvenance, ProjectProfile, UsageSource, UserActionProvenance } from './records.js';

export type Period = 'day' | 'week' | 'month';

/** What a report row says about how a setup's work turned out. */
export interface OutcomeFields {
  userGradedCommits: number;
  /** Mean of the user's own grades (-1..5); null when the user graded none. */
  meanUserGrade: number | null;
  selfGradedCommits: number;
  /** Mean of the agent's grades of its own commits. */
  meanSelfGrade: number | null;
  /**
   * How much the setup overrates itself: its self-grade minus the user's grade on the commits both graded
   * (record by record, as `recommend` measures it); null when no commit was graded by both.
   */
  selfUserGap: number | null;
  /** "User grades" relayed by an agent (records from before provenance): shown apart, trusted less. */
  agentReportedGradedCommits: number;
  meanAgentReportedGrade: number | null;
  /**
   * The setup's commits later reverted, per commit; null without commits or without git evidence (no
   * project of the row's work was ever read as a git repository: a folder gone, or never a repository).
   */
  revertRate: number | null;
  /** The setup's commits followed by a fix to the same lines, per commit; null as `revertRate`. */
  followUpFixRate: number | null;
  /** Turns the user undid, per turn. */
  undoRate: number | null;
  testRuns: number;
  /** Test runs that passed, per test run. */
  testPassRate: number | null;
  testRecoveries: number;
}

/** How rows are grouped: `setup` is agent × model; `project` is agent × model × project; `session` one row per session and setup. */
export type ReportGrouping = 'setup' | 'agent' | 'model' | 'project' | 'session';

/** One row of the report. A dimension the grouping does not split by is null. */
export interface ReportRow extends OutcomeFields {
  /** The calendar period of the work (the day, the week's Monday, the month), with `--period`. */
  period: string | null;
  /** The session, with `--by session`. */
  session: string | null;
  /** The session's first task (the user's prompt), with `--by session` when it is known. */
  task: string | null;
  agent: string | null;
  model: string | null;
  project: string | null;
  sessions: number;
  /** Sessions recorded live (records from before sources were told apart count here) and imported by backfill. */
  liveSessions: number;
  backfilledSessions: number;
  /** Assistant messages. */
  messages: number;
  toolCalls: number;
  toolFailures: number;
  /** Failed tool calls per tool call; null without tool calls. */
  failureRate: number | null;
  commits: number;
  pushes: number;
  bugs: number;
  /** Bugs per commit; null without commits. */
  bugsPerCommit: number | null;
  gradedCommits: number;
  /** Mean of every grade (-1..5: user, self, agent-reported) over graded commits; null without graded commits. */
  meanGrade: number | null;
  /** CS gained or lost through grades. */
  csChange: number;
  /** Tool calls that edited an OpenCode config, provisioned agents/skills or the tracker's AGENTS.md section. */
  trackerFileEdits: number;
  tokensInput: number;
  tokensOutput: number;
  tokensReasoning: number;
  tokensCacheRead: number;
  tokensCacheWrite: number;
  tokens: number;
  /**
   * Dollars: what OpenCode recorded, plus the price catalog's estimate for usage it stored at cost 0
   * while spending tokens (then `costEstimated`). Usage the catalog does not price is left out (counted
   * in `costUnknownSessions`), so the figure is then partial; null when no part of the cost is known.
   */
  cost: number | null;
  /** Cost per commit; null without commits, or when any of the cost is unknown (`costUnknownSessions` > 0). */
  costPerCommit: number | null;
  /** Part of `cost` is the price catalog's estimate (OpenCode stored 0 while tokens were spent). */
  costEstimated: boolean;
  /** Sessions that spent tokens at a stored cost of 0 on a model the price catalog does not know: their cost is unknown. */
  costUnknownSessions: number;
  firstAt: string | null;
  lastAt: string | null;
}

export type ReviewDecision = 'confirmed' | 'dropped';

/** The user's decision on one suspect record, and how the review itself was made. */
export interface SuspectReview {
  decision: ReviewDecision;
  at: string;
  via: UserActionProvenance['via'];
}

export interface SuspectUserAction {
  /** Stable id of the record (`review --confirm ID`). */
  id: string;
  action: string;
  at: string;
  /** The agent the action was about (revive), when there is one. */
  agent?: string;
  project?: string;
  /** A revive that lifted nothing: confirming it lifts the halt. */
  heldRevive?: boolean;
  /** Why it is suspect, as its provenance says. */
  signs?: string[];
  /** Present once the user reviewed it. */
  review?: SuspectReview;
}

/** What `report --json` prints, field for field. */
export interface ReportAnswer {
  by: ReportGrouping;
  project: string | null;
  since: string | null;
  until: string | null;
  source: UsageSource | null;
  period: Period | null;
  /** The time zone periods were cut in (null without `period`). */
  timeZone: string | null;
  rows: ReportRow[];
  totals: ReportRow;
  /** User-only records that came a way an agent could drive: shown apart until the user reviews them. */
  suspectUserActions: SuspectUserAction[];
}

export interface AgentSummary extends AgentStatus {
  sessions: number;
  toolCalls: number;
  toolFailures: number;
  pushes: number;
  /** Commits credited on the agent's record (XP and the per-turn cap); `commits` counts every commit recorded. */
  creditedCommits: number;
  /**
   * Whether an import pooled this sheet with another database's where both held work the other lacked:
   * its bugs, credited commits and CS count both, but SP and XP are those of one machine's sheet (a halted
   * one, else the one that came furthest: src/core/pooled-sheet.ts); XP earned on the other is not in them.
   */
  pooledStanding: boolean;
  /** The models the agent worked with, most sessions first. */
  models: string[];
}

/** What `status --json` prints. */
export interface StatusAnswer {
  agents: AgentSummary[];
}

export type SignalName = 'userGrade' | 'reportedGrade' | 'acceptedCommits' | 'undo' | 'tests' | 'bugs' | 'toolFailures' | 'selfGrade';

/** A setup's overclaim in grade points (self-grade minus user grade), with its 80% interval; absent (null) without a commit both graded. */
export interface Overclaim {
  /** Mean self-grade minus mean user grade on the setup's commits both graded, as measured. */
  mean: number;
  interval: [number, number];
  /** Commits both the user and the setup graded. */
  commits: number;
  /**
   * What is taken off its self-grades before they count in the score (grade points): its own overclaim
   * pooled with the role's setups', as far as they overclaim alike, so it may differ from `mean`. Null
   * when its self-grades count for nothing (under 3 commits both graded, or the same self-grade on every commit).
   */
  correction: number | null;
}

/** What the user trades: outcome only, outcome with an eye on cost, or cost as much as outcome. */
export type Preference = 'quality' | 'balanced' | 'cheap';

/** How sure the pick is; 'no alternative': the only setup used in its role, so nothing was compared. */
export type Confidence = 'clear' | 'likely' | 'close call' | 'no alternative';

/** One setup as scored for the target project. */
export interface ScoredSetup {
  agent: string;
  model: string;
  /** 0..100; higher is better (outcome, and cost as `prefer` says). */
  score: number;
  /** The 80% interval of the score: [low, high]. */
  interval: [number, number];
  /** Commits the setup made (the sample count, not weighted). */
  n: number;
  sessions: number;
  why: string;
  /**
   * Cost per commit that held (not reverted, no follow-up fix); null when some of its work has no known
   * price, or when none of its commits held (nothing to divide by: `acceptedCommits` is 0).
   */
  costPerAcceptedCommit: number | null;
  /** Its commits that held (not reverted, no follow-up fix). */
  acceptedCommits: number;
  /** Part of the cost was priced from the price catalog because OpenCode stored 0: an estimate. */
  costEstimated: boolean;
  /** Its usage records (one per session) whose model has no known price: any makes `costPerAcceptedCommit` null. */
  unpricedSessions: number;
  /** Its usage records whose cost is known (recorded above 0, or estimated); work that spent nothing counts in neither. */
  pricedSessions: number;
  /** Commits the user graded. */
  userGradedCommits: number;
  /** Commits weighted by their project's similarity to the target. */
  evidence: number;
  /** Mean similarity of the setup's work to the target project, 0..1. */
  similarity: number;
  /** Too little of its own work to be the pick. */
  thin: boolean;
  /** Each signal's estimated share (0..1, higher is better) and the role's average it was shrunk toward. */
  signals: { name: SignalName; estimate: number; roleAverage: number }[];
  /**
   * How much the setup grades itself above the user on its commits both graded, as measured (grade points,
   * 80% interval); `correction` is what the score takes off its self-grades. Null when none of its commits was graded by both.
   */
  overclaim: Overclaim | null;
}

export interface RoleRecommendation {
  agent: string;
  pick: ScoredSetup;
  runnerUp: ScoredSetup | null;
  alternatives: ScoredSetup[];
  confidence: Confidence;
  /**
   * The probability that the pick is truly the best of the role's well-evidenced setups (0..1). For the
   * only setup of its role it is the best of one: 1, or at most 0.9 on thin evidence, and `confidence`
   * says 'no alternative'.
   */
  probabilityBest: number;
  /** The pick itself rests on little evidence. */
  thinEvidence: boolean;
  /** Whether `--apply` writes this role without `--include-uncertain`. */
  certain: boolean;
  /** The pick and the runner-up score practically the same: either would do. */
  tie: boolean;
  /**
   * The pick and the runner-up did the same kind of task at least once (or their kinds are not known).
   * False: they are "not comparable yet", and neither is ranked above the other.
   */
  comparable: boolean;
  /** The role's other well-evidenced setups (models) that never did the same kind of task as the pick. */
  notComparableWith: string[];
  /** The mix of tasks (kind → weight, summing to 1) the scores are weighted by: the target's own, shrunk toward the user's in the role. */
  taskMix: Record<string, number>;
  /** Set when the answer rests on unlike projects (the target's kind was never seen), or on too little evidence to be sure. */
  caveat?: string;
}

/** A setup with little evidence whose upper bound beats its role's pick: an experiment, never the pick. */
export interface WorthTrying {
  agent: string;
  model: string;
  score: number;
  interval: [number, number];
  n: number;
  /** Its sessions: what it is measured by in a role that does not commit. */
  sessions: number;
  why: string;
  experiment: true;
  /** The pick it might beat. */
  insteadOf: string;
  /** About how many more sessions of it would tell whether it beats the pick (its interval narrowed to the gap). */
  sessionsToSettle: number;
}

export interface Recommendation {
  project: ProjectProfile;
  prefer: Preference;
  roles: RoleRecommendation[];
  /** The resulting setup as a whole: each role's pick. */
  setup: { agent: string; model: string; confidence: Confidence }[];
  worthTrying: WorthTrying[];
  /** Every setup, best score first (the shape from before roles; kept for compatibility). */
  recommendations: ScoredSetup[];
  /** Set when there is nothing to rank: what happened and how to start. */
  message?: string;
}

/** The kinds of entries prior art is drawn from. */
export type EntryKind = 'retrospective' | 'activity' | 'commit';

/** One past entry that matches the query. */
export interface PatternMatch {
  source: EntryKind;
  task: string;
  notes: string;
  /** The grade that judged it (see `gradedBy`, `judgedBy`); absent for work nobody graded and for a reported bug. */
  grade?: Grade;
  agentId: string;
  scope: string;
  timestamp: string;
  /** Matched keywords / all keywords of the query, 0..1 (the ranking itself is BM25). */
  relevanceScore: number;
  projectPath?: string;
  /** Who gave `grade`, when known; anything but 'user' is shown as self-graded. */
  gradedBy?: GradeProvenance;
  /**
   * Set on an entry judged by something other than a grade of its own: a bug report it records
   * (a mistake, no grade), the user's grades of its session's commits (`grade` is the lowest of them),
   * or a revert of the commit (of a commit of its session) in git (a mistake, no grade).
   */
  judgedBy?: PriorArtJudgedBy;
}

/**
 * What judged an entry in prior art other than a grade of its own: the bug report it records, the user's
 * grades of its session's commits, or git (`reverted`: a commit a later revert names, or an activity of a
 * session with such a commit, that nobody graded; a mistake, no grade).
 */
export type PriorArtJudgedBy = 'reported-bug' | 'session-commits' | 'reverted';

/** Prior art in three categories, each ranked best first. */
export interface PriorArtResult {
  /** Positively graded (or ungraded, completed) work in the query's scope. */
  positivePatterns: PatternMatch[];
  /** The same from other scopes; searched only when the scope-local pass found fewer than maxResults. */
  crossScopePatterns: PatternMatch[];
  /** Work graded bad (by the user, else the agent) and bugs reported in it, from every scope. */
  mistakes: PatternMatch[];
}

/** A commit whose message matches some of the keywords. */
export interface GitLogMatch {
  projectPath: string;
  commitHash: string;
  message: string;
  /** The share of keywords the message contains, 0 to 1. */
  relevanceScore: number;
}

export interface CrossProjectPriorArt extends PriorArtResult {
  /** The known projects similar to the current one, whose entries the cross-scope pass searched. */
  similarProjects: { path: string; score: number }[];
  /** Commits from the similar projects' recent history; searched only when the database had no match. */
  gitLogMatches: GitLogMatch[];
}

/** How many more entries the limit allows at this database's rate; nulls while no entry gives a rate. */
export interface Capacity {
  entries: number;
  bytesPerEntry: number | null;
  moreEntries: number | null;
}

export interface ChainCheck {
  /** Entries in the chain. */
  entries: number;
  /** Entries written by a process whose ancestry leads into an agent session. */
  suspectWrites: number;
  /** The first break, in one sentence naming the record or entry; absent when the chain holds. */
  broken?: string;
}

export interface SnapshotSummary {
  file: string;
  takenAt: string;
  ageHours: number;
  size: number;
}

/** What `doctor --json` prints about the database itself. */
export interface DatabaseHealthAnswer {
  databasePath: string;
  maxDatabaseSize: number;
  fileSize: number;
  schemaVersion: number;
  flushes: number;
  lastFlushAt: string | null;
  counts: Record<string, number>;
  capacity: Capacity;
  /** The items provisioning recorded as put into this config folder (the adapter checks which are still there). */
  recordedItems: string[];
  sizeWarning: string | null;
  readOnlyBecause: string | null;
  /** Writes around the tracker's door break the chained digest over user-only and credit records. */
  recordChain: ChainCheck;
  /** User-only records that came a way an agent could drive, waiting for the user's review. */
  suspectUserActions: SuspectUserAction[];
  spilled: { files: number; mutations: number };
  snapshots: SnapshotSummary[];
}

/** What `prior-art --json` prints. */
export type PriorArtAnswer = CrossProjectPriorArt;

/** What `recommend --json` prints. */
export type RecommendAnswer = Recommendation;

/**
 * TrackingService decides what an event means (XP, counters, commits, journal) and buffers it.
 * Recording touches memory only; `flush` writes the buffer in one transaction. Host-agnostic.
 */
import { randomBytes } from 'node:crypto';
import type { TrackerConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { INITIAL_TEST_STATE, nextTestState, recognizeTestRun } from '../outcomes/test-runs.js';
import type { TestState } from '../outcomes/test-runs.js';
import { undoneBySetup, undoneTurns } from '../outcomes/undo.js';
import { gitSignalCacheKey } from '../../contract/git-signal-cache.js';
import type { GitSignalCache } from '../../contract/git-signal-cache.js';
import type { CommitSignal } from '../outcomes/git-outcomes.js';
import type { TurnRecord } from '../outcomes/undo.js';
import { latestUngradedCommit, pickTrackedCommit, SHORT_HASH_LENGTH } from '../outcomes/grades.js';
import { applyAgentOp, newAgent, toStatus } from '../rules.js';
import { replayDelta } from '../store/replay.js';
import { judgeBugReport } from '../integrity/bug-evidence.js';
import { isNoOpCommand } from '../integrity/tool-credit.js';
import { classifyTaskKind, TASK_KIND_COUNTERS } from '../outcomes/task-kind.js';
import type { BugReportVerdict } from '../integrity/bug-evidence.js';
import { StoreNotWritableError } from '../store/store.js';
import type { Store } from '../store/store.js';
import type { JournalKey, Mutation, SessionInit, SessionKey } from '../store/mutations.js';
import type {
  ActivityEntry,
  AgentOp,
  AgentStatus,
  CommitRecord,
  CounterDeltas,
  RetrospectiveEntry,
  TokenCounts,
  UserGradeRecord,
  UsageSource,
} from '../types.js';
import type { UserActionProvenance } from '../types.js';
import { UNKNOWN } from '../types.js';
import { commitCreditDenial, EARNING_COMMITS_PER_TURN, revertedHash } from '../integrity/commit-credit.js';
import { CreditedChanges } from '../integrity/credited-changes.js';
import * as valid from '../validation.js';
import { InputError } from '../validation.js';
import { WriteBuffer } from './write-buffer.js';

const TASK_SUMMARY_LENGTH = 200;
const MAX_REMEMBERED_MESSAGES = 2000;
/** Turns per session remembered for undo: an undo further back than this finds nothing to count. */
const MAX_REMEMBERED_TURNS = 500;
/** Length of a full SHA-1 commit hash; shorter ones are abbreviations. */
const FULL_HASH_LENGTH = 40;

/** Who is working in a session: the agent and model of its latest model request, and where. */
export interface SessionSetup {
  agent: string;
  model: string;
  project: string;
  parentId?: string;
  /** Where the session's records come from; live unless a backfill says otherwise. */
  source?: UsageSource;
}

export type { GitCommit, HostEvent } from '../../contract/host-events.js';
import type { GitCommit, HostEvent } from '../../contract/host-events.js';

export interface GradeInput {
  sessionId?: string;
  /** The agent asking; used when the commit was not made by a tracked agent. */
  agent: string;
  project: string;
  commit: unknown;
  agentGrade: unknown;
  task?: unknown;
  agentNote?: unknown;
}

/** The user's grade: from the `/grade` slash command or `agent-tracker grade`. */
export interface UserGradeInput {
  project: string;
  /** A full or unambiguous short hash; absent: the most recent commit the user has not graded. */
  commit?: unknown;
  grade: unknown;
  note?: unknown;
  via: UserGradeRecord['via'];
  /** Correct an earlier grade of the same commit: the later one counts, the journal keeps both. */
  replace?: boolean;
}

export interface ActivityInput {
  agent: string;
  project: string;
  sessionId?: string;
  task: unknown;
  actions?: unknown;
  outcome?: unknown;
  decisions?: unknown;
}

export type { FlushOutcome, Recorder };
import type { FlushOutcome, Recorder } from '../../contract/recorder.js';

interface TurnState {
  /** The user's message that started the turn (OpenCode message ids sort by time). */
  messageId?: string;
  task: string;
  tools: Map<string, number>;
  failures: number;
  commits: string[];
  /** Commits of this turn that earned XP/SP. */
  earned: number;
  files: Set<string>;
}

/** Subagents nest; a chain longer than this is not followed further (a loop in bad data ends here). */
const MAX_SUBAGENT_DEPTH = 16;

export interface TrackingOptions {
  store: Store;
  config: TrackerConfig;
  logger: Logger;
  /** The project of sessions that do not name their own directory. */
  project: string;
  /** Names of the tracker's own tools: they earn no XP. */
  ownTools?: readonly string[];
  now?: () => Date;
  /** Masks secrets in text before it is buffered (prompts, notes, commit messages); identity by default. */
  maskText?: (text: string) => string;
}

export class TrackingService implements Recorder {
  readonly store: Store;
  readonly config: TrackerConfig;
  private readonly logger: Logger;
  private readonly project: string;
  private readonly ownTools: ReadonlySet<string>;
  private readonly now: () => Date;
  private readonly maskText: (text: string) => string;
  private readonly buffer = new WriteBuffer();
  private readonly sessions = new Map<string, SessionSetup>();
  private readonly turns = new Map<string, TurnState>();
  /** Call ids already counted, per session; forgotten when the session's turn ends. */
  private readonly countedCalls = new Map<string, Set<string>>();
  private readonly messageTotals = new Map<string, { tokens: TokenCounts; cost: number }>();
  private readonly haltedCache = new Map<string, boolean>();
  /** Per session: its finished turns (for undo), its test state, and an undo not yet made final. */
  private readonly finishedTurns = new Map<string, TurnRecord[]>();
  private readonly testStates = new Map<string, TestState>();
  private readonly pendingUndo = new Map<string, { messageId: string; turns: TurnRecord[] }>();
  private readonly afterFlush: ((agents: string[], mutations: readonly Mutation[]) => void)[] = [];
  private readonly uniquePrefix = `${process.pid.toString(36)}${randomBytes(3).toString('hex')}`;
  private sequence = 0;
  private lastFlushError = '';
  /** Changes of content that already earned, per project (src/core/integrity/credited-changes.ts). */
  private readonly creditedChanges = new CreditedChanges((key) => this.store.tables.meta.get(key));
  /** The events the store held for the session being replayed (see heldEvent). */
  private heldEvents: { sessionId: string; held: Map<string, CounterDeltas> } | undefined;
  /** While above 0, the buffer's size and age bounds wait (see `inOneFlush`). */
  private boundsHeld = 0;

  constructor(options: TrackingOptions) {
    this.store = options.store;
    this.config = options.config;
    this.logger = options.logger;
    this.project = options.project;
    this.ownTools = new Set(options.ownTools ?? []);
    this.now = options.now ?? (() => new Date());
    this.maskText = options.maskText ?? ((text) => text);
  }

  get pendingMutations(): number {
    return this.buffer.size;
  }

  /**
   * Runs after every successful flush with the agents it touched and the batch it wrote (status files,
   * telemetry); replayable events come as the session counters they added.
   */
  onFlushed(listener: (agents: string[], mutations: readonly Mutation[]) => void): void {
    this.afterFlush.push(listener);
  }

  /**
   * Runs `record` (synchronous) with the buffer's size and age bounds held, so that what it records
   * lands in the same flush transaction: a replayed session is written whole or not at all.
   */
  inOneFlush<T>(record: () => T): T {
    this.boundsHeld += 1;
    try {
      return record();
    } finally {
      this.boundsHeld -= 1;
      this.afterRecord();
    }
  }

  // ---- sessions -------------------------------------------------------------------------------

  /** Notes a session's place and parent (subagent sessions have one). */
  noteSession(sessionId: string, details: { parentId?: string; project?: string; source?: UsageSource }): void {
    const known = this.sessions.get(sessionId);
    const setup: SessionSetup = known ?? { agent: UNKNOWN, model: UNKNOWN, project: details.project ?? this.project };
    if (details.parentId) setup.parentId = details.parentId;
    if (details.project) setup.project = details.project;
    if (details.source) setup.source = details.source;
    this.sessions.set(sessionId, setup);
  }

  /** Notes the agent and model of a model request: the source of truth for who works in a session. */
  noteModelRequest(sessionId: string, agent: string, model: string): void {
    const setup = this.sessions.get(sessionId);
    if (setup) {
      setup.agent = agent;
      setup.model = model;
    } else {
      this.sessions.set(sessionId, { agent, model, project: this.project });
    }
  }

  /** Forgets what memory holds about a session (a replayed session is done: nothing more will come). */
  forgetSession(sessionId: string): void {
    if (this.heldEvents?.sessionId === sessionId) this.heldEvents = undefined;
    this.sessions.delete(sessionId);
    this.turns.delete(sessionId);
    this.countedCalls.delete(sessionId);
  }

  /** The agent and model working in a session now (unknown until its first model request). */
  setupOf(sessionId: string): SessionSetup {
    return this.sessions.get(sessionId) ?? { agent: UNKNOWN, model: UNKNOWN, project: this.project };
  }

  /** Notes the user's prompt that starts a turn: the task of the turn's journal entry. */
  noteTurnTask(sessionId: string, prompt: string, messageId?: string): void {
    const task = prompt.replace(/\s+/g, ' ').trim();
    if (task) this.turn(sessionId).task = this.maskText(task).slice(0, TASK_SUMMARY_LENGTH);
    if (messageId) this.turn(sessionId).messageId = messageId;
  }

  /**
   * A bash command and its exit code. When it runs a test suite: a test run, a pass when it exited 0,
   * and the session's recovery (green after red) kept up to date.
   */
  recordShellCommand(sessionId: string, command: string, exitCode: number | undefined): void {
    if (exitCode === undefined || !recognizeTestRun(command, this.config.testCommandPatterns)) return;
    const passed = exitCode === 0;
    const next = nextTestState(this.testStates.get(sessionId) ?? INITIAL_TEST_STATE, passed);
    this.testStates.set(sessionId, next.state);
    const counters: CounterDeltas = { testRuns: 1, testPasses: passed ? 1 : 0 };
    if (next.recoveryDelta !== 0) counters.testRecoveries = next.recoveryDelta;
    this.count(sessionId, this.setupOf(sessionId), counters);
    this.afterRecord();
  }

  /**
   * The session's revert point (OpenCode undo) changed: `messageId` is where the session is reverted
   * to, undefined when the revert was cleared. The undone turns count against the setups that worked
   * them; a revert the user takes back (unrevert) takes the count back, one made final (messages
   * removed, or the user prompted on top of it) stays.
   */
  recordRevert(sessionId: string, messageId: string | undefined): void {
    const pending = this.pendingUndo.get(sessionId);
    if (pending?.messageId === messageId) return;
    if (pending) this.countUndo(sessionId, pending.turns, -1);
    this.pendingUndo.delete(sessionId);
    if (!messageId) return;
    const turns = undoneTurns(this.finishedTurns.get(sessionId) ?? [], messageId);
    this.pendingUndo.set(sessionId, { messageId, turns });
    this.countUndo(sessionId, turns, 1);
  }

  /** The tracked commits of a project (git signals read them off the hot path). */
  trackedCommits(project: string): CommitRecord[] {
    return this.commitsStartingWith(project, '', Number.MAX_SAFE_INTEGER);
  }

  /** The project's git-signal cache, from the buffer or the database. */
  gitSignalCache(project: string): GitSignalCache | undefined {
    const key = gitSignalCacheKey(project);
    const pending = this.buffer.mutations().find((m) => m.table === 'meta' && m.key === key);
    return (pending?.table === 'meta' ? pending.value : this.store.tables.meta.get(key)) as GitSignalCache | undefined;
  }

  /** Counts reverted / followed-up commits on the usage records of the setups that made them, with the cache, in one flush. */
  recordGitSignals(project: string, signals: readonly CommitSignal[], cache: GitSignalCache): void {
    for (const { commit, revertedCommits, followUpFixCommits } of signals) {
      this.count(commit.sessionId, { agent: commit.agent, model: commit.model, project: commit.project }, { revertedCommits, followUpFixCommits });
    }
    this.buffer.put({ table: 'meta', key: gitSignalCacheKey(project), value: cache });
    this.afterRecord();
  }

  /** The reverted messages were removed (or the user prompted on top of the revert): the undo is final. */
  confirmRevert(sessionId: string): void {
    const pending = this.pendingUndo.get(sessionId);
    if (!pending) return;
    this.pendingUndo.delete(sessionId);
    const kept = new Set(pending.turns.map((turn) => turn.messageId));
    this.finishedTurns.set(sessionId, (this.finishedTurns.get(sessionId) ?? []).filter((turn) => !kept.has(turn.messageId)));
  }

  private countUndo(sessionId: string, turns: readonly TurnRecord[], sign: 1 | -1): void {
    for (const { turn, count } of undoneBySetup(turns).values()) {
      this.count(sessionId, { agent: turn.agent, model: turn.model, project: turn.project }, { undoneTurns: sign * count });
    }
    // An undo is the user's act and no turn end follows it: written at once.
    if (turns.length > 0) this.flush('undo');
  }

  noteFileEdited(sessionId: string, file: string): void {
    this.turn(sessionId).files.add(file);
  }

  // ---- recording (memory only) -----------------------------------------------------------------

  /**
   * A finished tool call, keyed by the host's own unique id of the call (OpenCode's tool part id),
   * never by the provider's call id, which some providers restart in every response. A failure is
   * counted once per call, whichever event reports it, and a replay of the same call (backfill) adds nothing.
   */
  recordToolCall(sessionId: string, callId: string, tool: string, ok: boolean, event: HostEvent & { command?: string } = {}): void {
    let counted = this.countedCalls.get(sessionId);
    if (!counted) this.countedCalls.set(sessionId, (counted = new Set()));
    if (counted.has(callId)) return;
    counted.add(callId);
    const setup = this.setupOf(sessionId);
    const turn = this.turn(sessionId);
    turn.tools.set(tool, (turn.tools.get(tool) ?? 0) + 1);
    const legacy = event.legacyEventId === undefined ? undefined : `tool:${event.legacyEventId}`;
    if (ok) {
      // The tracker's own tools and shell commands that do nothing earn no XP (src/core/integrity/tool-credit.ts).
      const earns = !this.ownTools.has(tool) && !(event.command !== undefined && isNoOpCommand(event.command));
      const xp = earns ? [{ kind: 'xp' as const, amount: this.config.rules.xpPerToolCall }] : [];
      this.replay(sessionId, setup, `tool:${callId}`, { toolCalls: 1 }, xp, event.at, legacy);
    } else {
      turn.failures += 1;
      this.replay(sessionId, setup, `tool:${callId}`, { toolCalls: 1, toolFailures: 1 }, [], event.at, legacy);
    }
    this.afterRecord();
  }

  /** A slash command run in the session; with the host's message id it counts once however often it is replayed. */
  recordCommand(sessionId: string, event: HostEvent = {}): void {
    const setup = this.setupOf(sessionId);
    if (event.eventId) {
      this.replay(sessionId, setup, `command:${event.eventId}`, { commands: 1 }, [{ kind: 'xp', amount: this.config.rules.xpPerCommand }], event.at);
    } else {
      this.count(sessionId, setup, { commands: 1 });
      this.buffer.addAgentOp(setup.agent, { kind: 'xp', amount: this.config.rules.xpPerCommand });
    }
    this.afterRecord();
  }

  /**
   * New commits made by the session's agent. Commits already recorded are ignored. With the host's
   * call id (`event.eventId`) the call's commits count once however often it is replayed; `count`
   * then says how many commits the call made when not all of them are known by hash.
   */
  recordCommits(sessionId: string, commits: readonly GitCommit[], event: HostEvent & { count?: number } = {}): CommitRecord[] {
    const setup = this.setupOf(sessionId);
    const recorded: CommitRecord[] = [];
    const turn = this.turn(sessionId);
    // The per-turn limit is the user's turn: a subagent's commits count in its root session's turn.
    const credit = this.turn(this.rootSession(sessionId));
    // Every commit is a recorded fact; only work earns (src/core/integrity/commit-credit.ts).
    let earned = 0;
    for (const commit of commits) {
      const key: [string, string] = [setup.project, commit.hash];
      if (this.buffer.has('commits', key) || this.store.tables.commits.doesExist(key) || this.isKnownShortHash(setup.project, commit.hash)) continue;
      const { parents, patchId, whitespaceOnly, ...fact } = commit;
      const value: CommitRecord = { ...fact, message: this.maskText(fact.message), project: setup.project, agent: setup.agent, model: setup.model, sessionId };
      const revertOf = revertedHash(commit.message);
      const denial = commitCreditDenial(
        // A commit replayed from the host's history has no file list: that check cannot be made.
        { filesChanged: event.at !== undefined && fact.files.length === 0 ? undefined : fact.files.length, parentCount: parents?.length ?? 1, ...(revertOf ? { revertOf } : {}), ...(whitespaceOnly !== undefined ? { whitespaceOnly } : {}) },
        {
          earnedThisTurn: credit.earned,
          revertsOwnCommit: revertOf !== undefined && this.findCommit(setup.project, revertOf)?.agent === setup.agent,
          sameChangeCredited: this.creditedChanges.has(setup.project, patchId),
        },
      );
      this.buffer.put({ table: 'commits', key, value });
      if (denial === undefined) {
        earned += 1;
        credit.earned += 1;
        if (patchId !== undefined) this.buffer.put({ table: 'meta', ...this.creditedChanges.add(setup.project, patchId) });
      }
      if (!event.eventId) this.count(sessionId, setup, { commits: 1 }, event.at);
      turn.commits.push(commit.hash);
      recorded.push(value);
    }
    // Commits a replayed call made that git printed no hash for earn within the turn's limit.
    for (let unnamed = (event.count ?? 0) - commits.length; unnamed > 0 && credit.earned < EARNING_COMMITS_PER_TURN; unnamed -= 1) {
      earned += 1;
      credit.earned += 1;
    }
    const ops: AgentOp[] = earned > 0 ? [{ kind: 'commits', amount: earned }, { kind: 'xp', amount: this.config.rules.xpPerCommit * earned }] : [];
    const made = Math.max(event.count ?? 0, commits.length);
    if (event.eventId && made > 0) {
      this.replay(sessionId, setup, `commits:${event.eventId}`, { commits: made }, ops, event.at);
    } else {
      for (const op of ops) this.buffer.addAgentOp(setup.agent, op);
    }
    this.afterRecord();
    return recorded;
  }

  /**
   * A successful git push: awarded, then everything buffered is flushed. With the host's call id it
   * counts once however often it is replayed; `deferFlush` leaves the flush to a replay, which writes
   * a whole session at a time.
   */
  recordPush(sessionId: string, event: HostEvent & { deferFlush?: boolean } = {}): FlushOutcome {
    const setup = this.setupOf(sessionId);
    if (event.eventId) {
      this.replay(sessionId, setup, `push:${event.eventId}`, { pushes: 1 }, [{ kind: 'xp', amount: this.config.rules.xpPerPush }], event.at);
    } else {
      this.count(sessionId, setup, { pushes: 1 });
      this.buffer.addAgentOp(setup.agent, { kind: 'xp', amount: this.config.rules.xpPerPush });
    }
    return event.deferFlush ? { ok: true, mutations: 0, durationMs: 0 } : this.flush('push');
  }

  /**
   * Tokens and cost of an assistant message. The host reports a message several times while it
   * streams; only the growth since the last report is added.
   */
  recordAssistantMessage(
    sessionId: string,
    messageId: string,
    setup: { agent: string; model: string },
    tokens: TokenCounts,
    cost: number,
    event: HostEvent = {},
  ): void {
    const previous = this.messageTotals.get(messageId);
    const base = this.setupOf(sessionId);
    const changed =
      !previous ||
      tokens.input !== previous.tokens.input ||
      tokens.output !== previous.tokens.output ||
      tokens.reasoning !== previous.tokens.reasoning ||
      tokens.cacheRead !== previous.tokens.cacheRead ||
      tokens.cacheWrite !== previous.tokens.cacheWrite ||
      cost !== previous.cost;
    this.messageTotals.set(messageId, { tokens: { ...tokens }, cost });
    if (this.messageTotals.size > MAX_REMEMBERED_MESSAGES) {
      const oldest = this.messageTotals.keys().next().value;
      if (oldest !== undefined) this.messageTotals.delete(oldest);
    }
    if (!changed) return;
    // Totals keyed by the host's message id: the store adds only the growth beyond what it holds.
    const totals: CounterDeltas = {
      messages: 1,
      tokensInput: tokens.input,
      tokensOutput: tokens.output,
      tokensReasoning: tokens.reasoning,
      tokensCacheRead: tokens.cacheRead,
      tokensCacheWrite: tokens.cacheWrite,
      cost,
    };
    this.replay(sessionId, { ...base, agent: setup.agent, model: setup.model }, `message:${messageId}`, totals, [], event.at);
    this.afterRecord();
  }

  // ---- agent state (tools and CLI) --------------------------------------------------------------

  /** The agent's status including what is buffered and not yet flushed. */
  getAgentStatus(agentId: string): AgentStatus {
    const rules = this.config.rules;
    const stored = this.store.tables.agents.get(agentId);
    const agent = stored ? { ...stored } : newAgent(agentId, this.now().toISOString(), rules);
    for (const op of this.buffer.agentOps(agentId)) applyAgentOp(agent, op, rules);
    return toStatus(agent, rules);
  }

  /**
   * Whether the agent is halted, from memory on the hot path: a halt changes only with a bug report
   * or a revive here (which forget the agent's entry) or in another process (every flush forgets all).
   */
  isHalted(agentId: string): boolean {
    let halted = this.haltedCache.get(agentId);
    if (halted === undefined) {
      halted = this.getAgentStatus(agentId).halted;
      this.haltedCache.set(agentId, halted);
    }
    return halted;
  }

  /** Whether the agent exists in the database or the buffer. */
  knowsAgent(agentId: string): boolean {
    return this.buffer.agentOps(agentId).length > 0 || this.store.tables.agents.doesExist(agentId);
  }

  /**
   * A validated agent name that is tracked, or is the agent working in `sessionId` (which may not
   * have earned anything yet). Anything else is a typo, not a new agent.
   * @throws InputError naming the agent.
   */
  private trackedAgent(value: unknown, sessionId?: string): string {
    const agent = valid.agentName(value);
    const working = sessionId ? this.sessions.get(sessionId)?.agent : undefined;
    if (agent !== working && !this.knowsAgent(agent)) {
      throw new InputError(`no agent named "${agent}" has been tracked yet; check the name with: agent-tracker status`);
    }
    return agent;
  }

  /**
   * A bug report. Verified (see `judgeBugReport`: an agent's own work, or a commit of the accused agent
   * named): SP -1 and bugs +1, and the agent halts at SP <= 0. Unverified: only a journal entry that
   * says so, at no cost. Either way the report is kept.
   */
  reportBug(input: { agent: unknown; reporter?: string; commit?: unknown; sessionId?: string; project?: string; description: unknown }): { status: AgentStatus; verdict: BugReportVerdict } {
    const description = valid.text(input.description, 'description', { required: true });
    const agent = this.trackedAgent(input.agent, input.sessionId);
    const setup = input.sessionId ? this.setupOf(input.sessionId) : undefined;
    const project = input.project ?? setup?.project ?? this.project;
    const named = input.commit === undefined || input.commit === '' ? undefined : valid.commitHash(input.commit);
    const commit = named === undefined ? undefined : this.findCommit(project, named);
    const verdict = judgeBugReport({ reporter: input.reporter ?? agent, accused: agent, ...(named ? { named } : {}), ...(commit ? { commit } : {}) });
    if (verdict.verified) {
      this.buffer.addAgentOp(agent, { kind: 'bug' });
      this.haltedCache.delete(agent);
      if (input.sessionId && setup) this.count(input.sessionId, { ...setup, agent }, { bugs: 1 });
    }
    const task = verdict.verified
      ? `Bug reported: ${description}`
      : `Unverified bug report from ${input.reporter ?? 'an agent'} (not counted: ${verdict.reason}): ${description}`;
    this.addActivity({
      timestamp: this.now().toISOString(),
      agent,
      model: setup?.model ?? UNKNOWN,
      project,
      ...(input.sessionId ? { sessionId: input.sessionId } : {}),
      task: task.slice(0, valid.MAX_TEXT_LENGTH),
      actions: '',
      outcome: verdict.verified ? 'bug' : 'unverified bug report',
      decisions: '',
      automatic: false,
    });
    this.afterRecord();
    return { status: this.getAgentStatus(agent), verdict };
  }

  /**
   * Clears the halt and sets SP to 1, keeping XP and CS; flushed at once (it is the user's command).
   * An agent that is not halted is left alone (`revived: false`): revive never resets a working agent.
   * @throws InputError for a bad or unknown name; the flush error when the database refuses the write.
   */
  revive(agentInput: unknown): { status: AgentStatus; revived: boolean } {
    const agent = valid.agentName(agentInput);
    if (!this.knowsAgent(agent)) throw new InputError(`no agent named "${agent}" has been tracked yet; check the name with: agent-tracker status`);
    if (!this.getAgentStatus(agent).halted) return { status: this.getAgentStatus(agent), revived: false };
    this.buffer.addAgentOp(agent, { kind: 'revive' });
    this.haltedCache.delete(agent);
    const outcome = this.flush('revive');
    if (!outcome.ok) throw outcome.error;
    return { status: this.getAgentStatus(agent), revived: true };
  }

  /**
   * The agent's self-grade of a commit, with its retrospective: moves CS (bounded) and earns the
   * graded-commit XP. Counted as a self-grade on the usage record of the setup that made the commit.
   * No agent tool can give the user's grade: the user grades with `/grade` or `agent-tracker grade`.
   */
  gradeCommit(input: GradeInput): RetrospectiveEntry {
    const commit = valid.commitHash(input.commit);
    const agentGrade = valid.grade(input.agentGrade, 'agent grade');
    const task = valid.text(input.task, 'task');
    const agentNote = valid.text(input.agentNote, 'agent note');
    const caller = valid.agentName(input.agent);
    const made = this.findCommit(input.project, commit);
    if (!made) {
      throw new InputError(
        `commit ${commit.slice(0, 12)} was not made by a tracked session in this project; only commits the tracker recorded can be graded (nothing was written)`,
      );
    }
    const agent = made.agent !== UNKNOWN ? made.agent : caller;
    // A self-grade is an agent's word on its own work: another agent (a subagent, say) grading it
    // would be stored as the maker's self-grade and take the maker's own grade away.
    if (agent !== caller) {
      throw new InputError(`commit ${made.hash.slice(0, 12)} was made by ${agent}, not ${caller}: an agent grades only its own commits (use report-bug with the commit for a problem in it; nothing was written)`);
    }
    const fullHash = made?.hash ?? commit;
    if (this.isGraded(agent, fullHash)) throw new InputError(`commit ${fullHash.slice(0, 12)} was already graded for ${agent}`);

    const setup = input.sessionId ? this.setupOf(input.sessionId) : undefined;
    const model = made?.model ?? setup?.model ?? UNKNOWN;
    const timestamp = this.now().toISOString();
    const before = this.getAgentStatus(agent);
    const draft = {
      commit: fullHash,
      timestamp,
      task: this.maskText(task || made?.message.split('\n')[0] || ''),
      agent_grade: agentGrade,
      agent_note: this.maskText(agentNote),
      user_note: '',
      agent,
      model,
      project: input.project,
      ...(input.sessionId ? { sessionId: input.sessionId } : {}),
      provenance: 'self' as const,
    };
    this.buffer.addAgentOp(agent, { kind: 'grade', delta: agentGrade, retrospective: draft });
    const after = this.getAgentStatus(agent);
    this.buffer.put({
      table: 'communication',
      key: this.journalKey(agent, timestamp),
      value: { agent, commit: fullHash, project: input.project, source: 'agent', provenance: 'self', grade: agentGrade, timestamp },
    });
    const counters: CounterDeltas = { selfGradedCommits: 1, selfGradeSum: agentGrade, csDelta: after.cs - before.cs };
    if (made) this.count(made.sessionId, { agent: made.agent, model: made.model, project: made.project }, counters);
    else if (input.sessionId && setup) this.count(input.sessionId, { ...setup, agent, model }, counters);
    this.afterRecord();
    return { ...draft, score_before: before.cs, score_after: after.cs };
  }

  /**
   * The user's grade of a commit a tracked session made (`/grade`, `agent-tracker grade`): moves the
   * maker's CS, is counted as a user grade on the maker's usage record, and is flushed at once.
   * Without a commit, the most recent commit of the project the user has not graded yet.
   * @throws InputError (bad grade, unknown/ambiguous commit, already graded, nothing to grade); the flush error.
   */
  gradeAsUser(input: UserGradeInput): { grade: UserGradeRecord; status: AgentStatus } {
    const grade = valid.grade(input.grade, 'grade');
    const note = valid.text(input.note, 'note');
    const made = input.commit === undefined || input.commit === '' ? this.latestUserUngraded(input.project) : this.trackedCommit(input.project, valid.commitHash(input.commit));
    const previous = this.userGradeOf(made.project, made.hash);
    if (previous && !input.replace) {
      throw new InputError(
        `you already graded commit ${made.hash.slice(0, SHORT_HASH_LENGTH)} (${made.agent}, ${made.model}) ${previous.grade}; to correct it, grade it again with --replace`,
      );
    }
    const record: UserGradeRecord = {
      commit: made.hash,
      project: made.project,
      agent: made.agent,
      model: made.model,
      sessionId: made.sessionId,
      grade,
      note: this.maskText(note),
      timestamp: this.now().toISOString(),
      provenance: 'user',
      via: input.via,
    };
    const before = this.getAgentStatus(made.agent);
    // A correction moves CS and the sums by the difference; the count of graded commits stays.
    this.buffer.addAgentOp(made.agent, previous ? { kind: 'grade', delta: grade - previous.grade, userGrade: record, replaces: previous.grade } : { kind: 'grade', delta: grade, userGrade: record });
    const after = this.getAgentStatus(made.agent);
    this.buffer.put({
      table: 'communication',
      key: this.journalKey(made.agent, record.timestamp),
      value: { agent: made.agent, commit: made.hash, project: made.project, source: 'user', provenance: 'user', grade, timestamp: record.timestamp },
    });
    this.count(made.sessionId, { agent: made.agent, model: made.model, project: made.project }, {
      userGradedCommits: previous ? 0 : 1,
      userGradeSum: grade - (previous?.grade ?? 0),
      csDelta: after.cs - before.cs,
    });
    const outcome = this.flush('user grade');
    if (!outcome.ok) throw outcome.error;
    return { grade: record, status: this.getAgentStatus(made.agent) };
  }

  /** A tool call that edited an OpenCode config, the provisioned agents/skills or the tracker's AGENTS.md section. */
  noteTrackerFileEdit(sessionId: string): void {
    this.count(sessionId, this.setupOf(sessionId), { trackerFileEdits: 1 });
    this.afterRecord();
  }

  /** The record of a user-only action (how it came, whether suspect); the caller flushes. */
  recordUserAction(input: { agent: string; project: string; summary: string; provenance: UserActionProvenance }): void {
    this.addActivity({
      timestamp: this.now().toISOString(),
      task: this.maskText(input.summary).slice(0, valid.MAX_TEXT_LENGTH),
      actions: '',
      outcome: input.provenance.suspect ? 'suspect user action' : 'user action',
      decisions: '',
      agent: input.agent,
      model: UNKNOWN,
      project: input.project,
      automatic: false,
      userAction: input.provenance,
    });
  }

  /** A journal entry written by an agent. */
  logActivity(input: ActivityInput): ActivityEntry {
    const agent = valid.agentName(input.agent);
    const entry: ActivityEntry = {
      timestamp: this.now().toISOString(),
      task: valid.text(input.task, 'task', { required: true }),
      actions: valid.text(input.actions, 'actions'),
      outcome: valid.text(input.outcome, 'outcome'),
      decisions: valid.text(input.decisions, 'decisions'),
      agent,
      model: input.sessionId ? this.setupOf(input.sessionId).model : UNKNOWN,
      project: input.project,
      ...(input.sessionId ? { sessionId: input.sessionId } : {}),
      automatic: false,
    };
    this.addActivity(entry);
    this.afterRecord();
    return entry;
  }

  // ---- provisioning record ---------------------------------------------------------------------

  /** Item ids setup has put into an OpenCode config folder, stored or buffered (a later absence = the user removed it). */
  provisionedItems(configDir: string): string[] {
    const buffered = this.buffer.mutations().flatMap((m) => (m.table === 'provisioned' && m.key === configDir ? m.items : []));
    return [...new Set([...this.store.provisionedItems(configDir), ...buffered])];
  }

  /** Buffers item ids as provisioned into `configDir`; the flush adds them to the stored set. */
  recordProvisioned(configDir: string, items: readonly string[]): void {
    const known = new Set(this.buffer.mutations().flatMap((m) => (m.table === 'provisioned' && m.key === configDir ? m.items : [])));
    const fresh = items.filter((item) => !known.has(item));
    if (fresh.length === 0) return;
    this.buffer.put({ table: 'provisioned', key: configDir, items: [...known, ...fresh] });
  }

  // ---- turn end and flushing --------------------------------------------------------------------

  /**
   * The end of a turn (the session went idle): writes the turn's journal entry and flushes.
   * Idempotent: a second idle for the same turn finds nothing new.
   */
  endTurn(sessionId: string): FlushOutcome {
    const turn = this.turns.get(sessionId);
    this.turns.delete(sessionId);
    this.countedCalls.delete(sessionId);
    if (turn) this.finishTurn(sessionId, turn);
    if (turn && (turn.tools.size > 0 || turn.commits.length > 0)) {
      const setup = this.setupOf(sessionId);
      const actions = [...turn.tools].map(([tool, n]) => `${tool} x${n}`).join(', ');
      const outcome = [
        turn.commits.length > 0 ? `${turn.commits.length} commit(s): ${turn.commits.map((h) => h.slice(0, 7)).join(', ')}` : 'no commits',
        turn.failures > 0 ? `${turn.failures} failed tool call(s)` : 'no failures',
      ].join('; ');
      this.addActivity({
        timestamp: this.now().toISOString(),
        task: turn.task || '(no prompt recorded)',
        actions,
        outcome,
        decisions: '',
        agent: setup.agent,
        model: setup.model,
        project: setup.project,
        sessionId,
        ...(turn.files.size > 0 ? { files: [...turn.files].slice(0, 50) } : {}),
        automatic: true,
      });
    }
    return this.flush('turn');
  }

  /**
   * Writes everything buffered in one transaction. On failure the buffer is kept for the next
   * trigger and the error is reported once (repeats of the same error stay quiet). A store that is
   * not open for writing (still checked, damaged, newer) was reported when that was found out.
   * A `final` flush that fails leaves the buffer to `takePending` (final-flush.ts spills it).
   */
  flush(reason: string, options: { final?: boolean } = {}): FlushOutcome {
    void options;
    if (this.buffer.size === 0) return { ok: true, mutations: 0, durationMs: 0 };
    const mutations = this.buffer.mutations();
    try {
      const result = this.store.applyBatch(mutations, this.config.rules, this.now().toISOString());
      this.buffer.clear();
      this.refreshHaltedCache();
      this.heldEvents = undefined;
      this.lastFlushError = '';
      const agents = [...new Set(mutations.flatMap((m) => (m.table === 'agents' ? [m.key] : m.table === 'events' ? m.agentOps.map((o) => o.agent) : [])))];
      // Listeners see what was counted: a replayed event as the session counters it really added.
      const counted = result.counted.length > 0 ? [...mutations.filter((m) => m.table !== 'events'), ...result.counted] : mutations;
      for (const listener of this.afterFlush) {
        try {
          listener(agents, counted);
        } catch (error) {
          this.logger.warn(`agent-tracker: after-flush step failed: ${(error as Error).message}`);
        }
      }
      return { ok: true, mutations: result.mutations, durationMs: result.durationMs };
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      if (!(failure instanceof StoreNotWritableError) && failure.message !== this.lastFlushError) {
        this.lastFlushError = failure.message;
        this.logger.error(`agent-tracker: could not save tracking data (${reason}): ${failure.message}`);
      }
      return { ok: false, error: failure };
    }
  }

  /** Hands over (and forgets) every buffered mutation: the spill file keeps what a final flush could not write. */
  takePending(): Mutation[] {
    const mutations = this.buffer.mutations();
    this.buffer.clear();
    return mutations;
  }

  /** The store behind this service was opened late (it was checked first): forget what was read from nothing. */
  storeAttached(): void {
    this.haltedCache.clear();
  }

  // ---- internals ------------------------------------------------------------------------------

  /** Counts a finished turn for its setup and remembers where it started, for undo. */
  private finishTurn(sessionId: string, turn: TurnState): void {
    const setup = this.setupOf(sessionId);
    if (setup.agent === UNKNOWN) return;
    const kind = classifyTaskKind({ prompt: turn.task, filesEdited: [...turn.files] });
    this.count(sessionId, setup, { turns: 1, [TASK_KIND_COUNTERS[kind]]: 1 });
    if (!turn.messageId) return;
    const finished = this.finishedTurns.get(sessionId) ?? [];
    finished.push({ messageId: turn.messageId, agent: setup.agent, model: setup.model, project: setup.project });
    if (finished.length > MAX_REMEMBERED_TURNS) finished.shift();
    this.finishedTurns.set(sessionId, finished);
  }

  /**
   * Re-reads the halt of every agent the hooks asked about, right after a flush (which may also have
   * brought another process's bug report into view). Done here, at the turn's end, so the first tool
   * call of the next turn finds it in memory instead of reading the database just after a write.
   */
  private refreshHaltedCache(): void {
    const agents = [...this.haltedCache.keys()];
    this.haltedCache.clear();
    try {
      for (const agent of agents) this.haltedCache.set(agent, this.getAgentStatus(agent).halted);
    } catch {
      // Read again on the next isHalted (and reported there, if it keeps failing).
      this.haltedCache.clear();
    }
  }

  private afterRecord(): void {
    if (this.boundsHeld > 0) return;
    const { flushMaxMutations, flushMaxAgeMs } = this.config;
    if (this.buffer.size >= flushMaxMutations || this.buffer.ageMs(Date.now()) >= flushMaxAgeMs) this.flush('buffer limit');
  }

  private turn(sessionId: string): TurnState {
    let turn = this.turns.get(sessionId);
    if (!turn) {
      turn = { task: '', tools: new Map(), failures: 0, commits: [], earned: 0, files: new Set() };
      this.turns.set(sessionId, turn);
    }
    return turn;
  }

  private count(sessionId: string, setup: SessionSetup, counters: CounterDeltas, eventAt?: string): void {
    const key: SessionKey = [sessionId, setup.agent, setup.model];
    const at = eventAt ?? this.now().toISOString();
    this.buffer.addCounters(key, this.sessionInit(sessionId, setup, at), counters, at);
  }

  private sessionInit(sessionId: string, setup: SessionSetup, at: string): SessionInit {
    return {
      sessionId,
      source: setup.source ?? 'live',
      agent: setup.agent,
      model: setup.model,
      project: setup.project,
      firstAt: at,
      ...(setup.parentId ? { parentSessionId: setup.parentId } : {}),
    };
  }

  /** Buffers a host event with its totals: counted once per [session, event id], whoever reports it. */
  private replay(sessionId: string, setup: SessionSetup, eventId: string, totals: CounterDeltas, ops: AgentOp[], eventAt?: string, legacyEventId?: string): void {
    const at = eventAt ?? this.now().toISOString();
    // A replay (it carries the host's time) of what the store already holds in full buffers nothing.
    if (eventAt !== undefined) {
      const held = this.heldEvent(sessionId, eventId) ?? (legacyEventId === undefined ? undefined : this.heldEvent(sessionId, legacyEventId));
      if (held !== undefined && !replayDelta(held, totals).changed) return;
    }
    this.buffer.putReplay({
      table: 'events',
      key: [sessionId, eventId],
      totals,
      session: { key: [sessionId, setup.agent, setup.model], init: this.sessionInit(sessionId, setup, at), at },
      agentOps: ops.length > 0 ? [{ agent: setup.agent, ops }] : [],
    });
  }

  /**
   * What the store holds for a replayed event. A replay goes through one session's events at a time:
   * they are read in one range read per session, not one read each. Held totals only grow, so one
   * read a moment old can only make an event be buffered that the flush then finds held.
   */
  private heldEvent(sessionId: string, eventId: string): CounterDeltas | undefined {
    if (this.heldEvents?.sessionId !== sessionId) {
      const held = new Map<string, CounterDeltas>();
      for (const { key, value } of this.store.tables.events.getRange({ start: [sessionId, ''] })) {
        if (key[0] !== sessionId) break;
        held.set(key[1], value);
      }
      this.heldEvents = { sessionId, held };
    }
    return this.heldEvents.held.get(eventId);
  }

  /** The session at the top of a subagent chain (the user's own session), as far as this process knows it. */
  private rootSession(sessionId: string): string {
    let id = sessionId;
    for (let depth = 0; depth < MAX_SUBAGENT_DEPTH; depth += 1) {
      const parent = this.sessions.get(id)?.parentId;
      if (!parent) return id;
      id = parent;
    }
    return id;
  }

  /** Whether an abbreviated hash (as `git commit` prints it) names a commit already stored for the project. */
  private isKnownShortHash(project: string, hash: string): boolean {
    if (hash.length >= FULL_HASH_LENGTH) return false;
    for (const { key } of this.store.tables.commits.getRange({ start: [project, hash], limit: 1 })) {
      if (key[0] === project && key[1].startsWith(hash)) return true;
    }
    return false;
  }

  private addActivity(entry: ActivityEntry): void {
    const masked = { ...entry, task: this.maskText(entry.task), actions: this.maskText(entry.actions), outcome: this.maskText(entry.outcome), decisions: this.maskText(entry.decisions) };
    this.buffer.put({ table: 'activities', key: this.journalKey(entry.agent, entry.timestamp), value: masked });
  }

  /** [agent, time, suffix]: the suffix (process, random, sequence) keeps keys of one instant apart. */
  private journalKey(agent: string, timestamp: string): JournalKey {
    this.sequence += 1;
    return [agent, timestamp, `${this.uniquePrefix}${this.sequence.toString(36).padStart(6, '0')}`];
  }

  /** A tracked commit by full hash or unique prefix, from the buffer or the database. */
  private findCommit(project: string, hashOrPrefix: string): CommitRecord | undefined {
    for (const mutation of this.buffer.mutations()) {
      if (mutation.table === 'commits' && mutation.key[0] === project && mutation.key[1].startsWith(hashOrPrefix)) return mutation.value;
    }
    for (const { key, value } of this.store.tables.commits.getRange({ start: [project, hashOrPrefix], limit: 1 })) {
      if (key[0] === project && key[1].startsWith(hashOrPrefix)) return value;
    }
    return undefined;
  }

  /** The tracked commits of a project whose hash starts with `prefix`, from the buffer and the database. */
  private commitsStartingWith(project: string, prefix: string, limit: number): CommitRecord[] {
    const found: CommitRecord[] = [];
    for (const mutation of this.buffer.mutations()) {
      if (mutation.table === 'commits' && mutation.key[0] === project && mutation.key[1].startsWith(prefix)) found.push(mutation.value);
    }
    for (const { key, value } of this.store.tables.commits.getRange({ start: [project, prefix] })) {
      if (key[0] !== project || !key[1].startsWith(prefix) || found.length >= limit) break;
      found.push(value);
    }
    return found;
  }

  /** @throws InputError when no tracked session made the commit or the prefix is ambiguous. */
  private trackedCommit(project: string, hashOrPrefix: string): CommitRecord {
    return pickTrackedCommit(this.commitsStartingWith(project, hashOrPrefix, 2), hashOrPrefix);
  }

  /** @throws InputError when every tracked commit of the project is graded (or there is none). */
  private latestUserUngraded(project: string): CommitRecord {
    const latest = latestUngradedCommit(this.commitsStartingWith(project, '', Number.MAX_SAFE_INTEGER), (commit) => this.isUserGraded(commit.project, commit.hash));
    if (!latest) throw new InputError(`no commit made by a tracked session in ${project} is left for you to grade; name one: /grade N COMMIT`);
    return latest;
  }

  private isUserGraded(project: string, commit: string): boolean {
    return this.userGradeOf(project, commit) !== undefined;
  }

  /** The user's grade of a commit as it stands: the latest in the buffer, else the stored one. */
  private userGradeOf(project: string, commit: string): UserGradeRecord | undefined {
    let pending: UserGradeRecord | undefined;
    for (const m of this.buffer.mutations()) {
      if (m.table !== 'agents') continue;
      for (const op of m.ops) if (op.kind === 'grade' && 'userGrade' in op && op.userGrade.project === project && op.userGrade.commit === commit) pending = op.userGrade;
    }
    return pending ?? this.store.tables.userGrades.get([project, commit]);
  }

  private isGraded(agent: string, commit: string): boolean {
    if (this.store.tables.retrospectives.doesExist([agent, commit])) return true;
    return this.buffer.agentOps(agent).some((op) => op.kind === 'grade' && 'retrospective' in op && op.retrospective.commit === commit);
  }
}

/**
 * TrackingService decides what an event means (XP, counters, commits, journal) and buffers it.
 * Recording touches memory only; `flush` writes the buffer in one transaction. Host-agnostic.
 */
import { randomBytes } from 'node:crypto';
import type { TrackerConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { applyAgentOp, gradeDelta, newAgent, toStatus } from '../rules.js';
import { replayDelta } from '../store/replay.js';
import type { Store } from '../store/store.js';
import type { JournalKey, SessionInit, SessionKey } from '../store/mutations.js';
import type {
  ActivityEntry,
  AgentOp,
  AgentStatus,
  CommitRecord,
  CounterDeltas,
  Grade,
  RetrospectiveEntry,
  TokenCounts,
  UsageSource,
} from '../types.js';
import { UNKNOWN } from '../types.js';
import * as valid from '../validation.js';
import { InputError } from '../validation.js';
import { WriteBuffer } from './write-buffer.js';

const TASK_SUMMARY_LENGTH = 200;
const MAX_REMEMBERED_MESSAGES = 2000;
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

/**
 * The host's own identity and time of an event, so recording can be replayed (backfill, refill after
 * a crash) without counting twice: `eventId` is the host's id (call, message), `at` its ISO time.
 */
export interface HostEvent {
  at?: string;
  eventId?: string;
}

/** A commit as read from git, before it is attributed to an agent. */
export interface GitCommit {
  hash: string;
  message: string;
  files: string[];
  insertions: number;
  deletions: number;
  timestamp: string;
}

export interface GradeInput {
  sessionId?: string;
  /** The agent asking; used when the commit was not made by a tracked agent. */
  agent: string;
  project: string;
  commit: unknown;
  agentGrade: unknown;
  userGrade: unknown;
  task?: unknown;
  agentNote?: unknown;
  userNote?: unknown;
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

export type FlushOutcome = { ok: true; mutations: number; durationMs: number } | { ok: false; error: Error };

interface TurnState {
  task: string;
  tools: Map<string, number>;
  failures: number;
  commits: string[];
  files: Set<string>;
}

export interface TrackingOptions {
  store: Store;
  config: TrackerConfig;
  logger: Logger;
  /** The project of sessions that do not name their own directory. */
  project: string;
  /** Names of the tracker's own tools: they earn no XP. */
  ownTools?: readonly string[];
  now?: () => Date;
}

export class TrackingService {
  readonly store: Store;
  readonly config: TrackerConfig;
  private readonly logger: Logger;
  private readonly project: string;
  private readonly ownTools: ReadonlySet<string>;
  private readonly now: () => Date;
  private readonly buffer = new WriteBuffer();
  private readonly sessions = new Map<string, SessionSetup>();
  private readonly turns = new Map<string, TurnState>();
  /** Call ids already counted, per session; forgotten when the session's turn ends. */
  private readonly countedCalls = new Map<string, Set<string>>();
  private readonly messageTotals = new Map<string, { tokens: TokenCounts; cost: number }>();
  private readonly haltedCache = new Map<string, boolean>();
  private readonly afterFlush: ((agents: string[]) => void)[] = [];
  private readonly uniquePrefix = `${process.pid.toString(36)}${randomBytes(3).toString('hex')}`;
  private sequence = 0;
  private lastFlushError = '';

  constructor(options: TrackingOptions) {
    this.store = options.store;
    this.config = options.config;
    this.logger = options.logger;
    this.project = options.project;
    this.ownTools = new Set(options.ownTools ?? []);
    this.now = options.now ?? (() => new Date());
  }

  get pendingMutations(): number {
    return this.buffer.size;
  }

  /** Runs after every successful flush with the agents it touched (e.g. to export status files). */
  onFlushed(listener: (agents: string[]) => void): void {
    this.afterFlush.push(listener);
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
    this.sessions.delete(sessionId);
    this.turns.delete(sessionId);
    this.countedCalls.delete(sessionId);
  }

  /** The agent and model working in a session now (unknown until its first model request). */
  setupOf(sessionId: string): SessionSetup {
    return this.sessions.get(sessionId) ?? { agent: UNKNOWN, model: UNKNOWN, project: this.project };
  }

  /** Notes the user's prompt that starts a turn: the task of the turn's journal entry. */
  noteTurnTask(sessionId: string, prompt: string): void {
    const task = prompt.replace(/\s+/g, ' ').trim();
    if (task) this.turn(sessionId).task = task.slice(0, TASK_SUMMARY_LENGTH);
  }

  noteFileEdited(sessionId: string, file: string): void {
    this.turn(sessionId).files.add(file);
  }

  // ---- recording (memory only) -----------------------------------------------------------------

  /**
   * A finished tool call. A failure is counted once per call id, whichever event reports it; the
   * call id is the host's, so a replay of the same call (backfill) adds nothing.
   */
  recordToolCall(sessionId: string, callId: string, tool: string, ok: boolean, event: HostEvent = {}): void {
    let counted = this.countedCalls.get(sessionId);
    if (!counted) this.countedCalls.set(sessionId, (counted = new Set()));
    if (counted.has(callId)) return;
    counted.add(callId);
    const setup = this.setupOf(sessionId);
    const turn = this.turn(sessionId);
    turn.tools.set(tool, (turn.tools.get(tool) ?? 0) + 1);
    if (ok) {
      const xp = this.ownTools.has(tool) ? [] : [{ kind: 'xp' as const, amount: this.config.rules.xpPerToolCall }];
      this.replay(sessionId, setup, `tool:${callId}`, { toolCalls: 1 }, xp, event.at);
    } else {
      turn.failures += 1;
      this.replay(sessionId, setup, `tool:${callId}`, { toolCalls: 1, toolFailures: 1 }, [], event.at);
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
    for (const commit of commits) {
      const key: [string, string] = [setup.project, commit.hash];
      if (this.buffer.has('commits', key) || this.store.tables.commits.doesExist(key) || this.isKnownShortHash(setup.project, commit.hash)) continue;
      const value: CommitRecord = { ...commit, project: setup.project, agent: setup.agent, model: setup.model, sessionId };
      this.buffer.put({ table: 'commits', key, value });
      if (!event.eventId) {
        this.buffer.addAgentOp(setup.agent, { kind: 'commits', amount: 1 });
        this.buffer.addAgentOp(setup.agent, { kind: 'xp', amount: this.config.rules.xpPerCommit });
        this.count(sessionId, setup, { commits: 1 }, event.at);
      }
      this.turn(sessionId).commits.push(commit.hash);
      recorded.push(value);
    }
    const made = Math.max(event.count ?? 0, event.eventId ? commits.length : 0);
    if (event.eventId && made > 0) {
      const ops = [
        { kind: 'commits' as const, amount: made },
        { kind: 'xp' as const, amount: this.config.rules.xpPerCommit * made },
      ];
      this.replay(sessionId, setup, `commits:${event.eventId}`, { commits: made }, ops, event.at);
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

  /** SP -1 and bugs +1, with a journal entry describing the bug; the agent halts at SP <= 0. */
  reportBug(input: { agent: unknown; sessionId?: string; project?: string; description: unknown }): AgentStatus {
    const description = valid.text(input.description, 'description', { required: true });
    const agent = this.trackedAgent(input.agent, input.sessionId);
    const setup = input.sessionId ? this.setupOf(input.sessionId) : undefined;
    this.buffer.addAgentOp(agent, { kind: 'bug' });
    this.haltedCache.delete(agent);
    if (input.sessionId && setup) this.count(input.sessionId, { ...setup, agent }, { bugs: 1 });
    this.addActivity({
      timestamp: this.now().toISOString(),
      agent,
      model: setup?.model ?? UNKNOWN,
      project: input.project ?? setup?.project ?? this.project,
      ...(input.sessionId ? { sessionId: input.sessionId } : {}),
      task: `Bug reported: ${description}`.slice(0, valid.MAX_TEXT_LENGTH),
      actions: '',
      outcome: 'bug',
      decisions: '',
      automatic: false,
    });
    this.afterRecord();
    return this.getAgentStatus(agent);
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
   * Grades a commit: both grades move CS (bounded), the graded commit earns XP, the retrospective
   * and both communication events are buffered. A commit is graded once per agent.
   */
  gradeCommit(input: GradeInput): RetrospectiveEntry {
    const commit = valid.commitHash(input.commit);
    const agentGrade = valid.grade(input.agentGrade, 'agent grade');
    const userGrade = valid.grade(input.userGrade, 'user grade');
    const task = valid.text(input.task, 'task');
    const agentNote = valid.text(input.agentNote, 'agent note');
    const userNote = valid.text(input.userNote, 'user note');
    const caller = valid.agentName(input.agent);
    const made = this.findCommit(input.project, commit);
    const agent = made?.agent && made.agent !== UNKNOWN ? made.agent : caller;
    const fullHash = made?.hash ?? commit;
    if (this.isGraded(agent, fullHash)) throw new InputError(`commit ${fullHash.slice(0, 12)} was already graded for ${agent}`);

    const setup = input.sessionId ? this.setupOf(input.sessionId) : undefined;
    const model = made?.model ?? setup?.model ?? UNKNOWN;
    const timestamp = this.now().toISOString();
    const before = this.getAgentStatus(agent);
    const delta = gradeDelta(agentGrade, userGrade);
    const draft = {
      commit: fullHash,
      timestamp,
      task: task || made?.message.split('\n')[0] || '',
      agent_grade: agentGrade,
      user_grade: userGrade,
      agent_note: agentNote,
      user_note: userNote,
      agent,
      model,
      project: input.project,
      ...(input.sessionId ? { sessionId: input.sessionId } : {}),
    };
    this.buffer.addAgentOp(agent, { kind: 'grade', delta, retrospective: draft });
    const after = this.getAgentStatus(agent);
    for (const [source, value] of [['agent', agentGrade], ['user', userGrade]] as const) {
      this.buffer.put({
        table: 'communication',
        key: this.journalKey(agent, timestamp),
        value: { agent, commit: fullHash, project: input.project, source, grade: value as Grade, timestamp },
      });
    }
    if (input.sessionId && setup) {
      this.count(input.sessionId, { ...setup, agent, model }, { gradedCommits: 1, gradeSum: delta, csDelta: after.cs - before.cs });
    }
    this.afterRecord();
    return { ...draft, score_before: before.cs, score_after: after.cs };
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

  // ---- turn end and flushing --------------------------------------------------------------------

  /**
   * The end of a turn (the session went idle): writes the turn's journal entry and flushes.
   * Idempotent: a second idle for the same turn finds nothing new.
   */
  endTurn(sessionId: string): FlushOutcome {
    const turn = this.turns.get(sessionId);
    this.turns.delete(sessionId);
    this.countedCalls.delete(sessionId);
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
   * trigger and the error is reported once (repeats of the same error stay quiet). A `final` flush
   * (the process or the plugin is ending) is let past a full database: there is no next trigger.
   */
  flush(reason: string, options: { final?: boolean } = {}): FlushOutcome {
    if (this.buffer.size === 0) return { ok: true, mutations: 0, durationMs: 0 };
    const mutations = this.buffer.mutations();
    try {
      const result = this.store.applyBatch(mutations, this.config.rules, this.now().toISOString(), { pastSizeLimit: options.final === true });
      this.buffer.clear();
      this.haltedCache.clear();
      this.lastFlushError = '';
      const agents = [...new Set(mutations.flatMap((m) => (m.table === 'agents' ? [m.key] : m.table === 'events' ? m.agentOps.map((o) => o.agent) : [])))];
      for (const listener of this.afterFlush) {
        try {
          listener(agents);
        } catch (error) {
          this.logger.warn(`agent-tracker: after-flush step failed: ${(error as Error).message}`);
        }
      }
      return { ok: true, ...result };
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      if (failure.message !== this.lastFlushError) {
        this.lastFlushError = failure.message;
        this.logger.error(`agent-tracker: could not save tracking data (${reason}): ${failure.message}`);
      }
      return { ok: false, error: failure };
    }
  }

  // ---- internals ------------------------------------------------------------------------------

  private afterRecord(): void {
    const { flushMaxMutations, flushMaxAgeMs } = this.config;
    if (this.buffer.size >= flushMaxMutations || this.buffer.ageMs(Date.now()) >= flushMaxAgeMs) this.flush('buffer limit');
  }

  private turn(sessionId: string): TurnState {
    let turn = this.turns.get(sessionId);
    if (!turn) {
      turn = { task: '', tools: new Map(), failures: 0, commits: [], files: new Set() };
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
  private replay(sessionId: string, setup: SessionSetup, eventId: string, totals: CounterDeltas, ops: AgentOp[], eventAt?: string): void {
    const at = eventAt ?? this.now().toISOString();
    // A replay (it carries the host's time) of what the store already holds in full buffers nothing.
    if (eventAt !== undefined) {
      const held = this.store.tables.events.get([sessionId, eventId]);
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

  /** Whether an abbreviated hash (as `git commit` prints it) names a commit already stored for the project. */
  private isKnownShortHash(project: string, hash: string): boolean {
    if (hash.length >= FULL_HASH_LENGTH) return false;
    for (const { key } of this.store.tables.commits.getRange({ start: [project, hash], limit: 1 })) {
      if (key[0] === project && key[1].startsWith(hash)) return true;
    }
    return false;
  }

  private addActivity(entry: ActivityEntry): void {
    this.buffer.put({ table: 'activities', key: this.journalKey(entry.agent, entry.timestamp), value: entry });
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

  private isGraded(agent: string, commit: string): boolean {
    if (this.store.tables.retrospectives.doesExist([agent, commit])) return true;
    return this.buffer.agentOps(agent).some((op) => op.kind === 'grade' && 'retrospective' in op && op.retrospective.commit === commit);
  }
}

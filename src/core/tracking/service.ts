/**
 * TrackingService is the Recorder: it decides what an event means (XP, counters, commits, journal)
 * and buffers it; `flush` writes the buffer in one transaction. Host-agnostic. This facade composes
 * the parts in this folder, one job each, and keeps the surface every caller uses:
 * sessions.ts (who works where, open turns), ledger.ts (counting), journal.ts, flusher.ts,
 * tool-calls.ts, messages.ts, commits.ts, git-signals.ts, undo.ts, turns.ts, agents.ts,
 * bug-reports.ts, grading.ts, provisioned.ts; write-buffer.ts holds what is not written yet.
 */
import type { TrackerConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { GitSignalCache } from '../../contract/git-signal-cache.js';
import type { CommitSignal } from '../outcomes/git-outcomes.js';
import type { BugReportVerdict } from '../integrity/bug-evidence.js';
import type { StoreAccess } from '../store/access.js';
import type { Store } from '../store/store.js';
import type { JournalKey, Mutation } from '../store/mutations.js';
import type { ActivityEntry, AgentStatus, CommitRecord, TokenCounts, UserActionProvenance, UsageSource } from '../types.js';
import type { GitCommit, HostEvent, ReplayedTurn } from '../../contract/host-events.js';
import type { FlushOutcome, Recorder } from '../../contract/recorder.js';
import { Agents, haltsChangedBy } from './agents.js';
import { BugReports } from './bug-reports.js';
import type { BugReportInput } from './bug-reports.js';
import { Commits } from './commits.js';
import type { TrackingContext } from './context.js';
import { Flusher } from './flusher.js';
import type { FlushListener } from './flusher.js';
import { gitSignalCache, recordGitSignals } from './git-signals.js';
import { Grading } from './grading.js';
import type { GradeInput, SelfGradeResult, UserGradeInput, UserGradeResult } from './grading.js';
import { Journal } from './journal.js';
import type { ActivityInput } from './journal.js';
import { Ledger } from './ledger.js';
import { Messages } from './messages.js';
import { provisionedItems, recordProvisioned } from './provisioned.js';
import { Sessions } from './sessions.js';
import type { SessionSetup } from './sessions.js';
import { ToolCalls } from './tool-calls.js';
import { Turns } from './turns.js';
import { Undo } from './undo.js';
import { WriteBuffer } from './write-buffer.js';

/** `S`: the store it is given (a Store in the CLI and tests; the plugin's RemoteStore on OpenCode's main thread). */
export interface TrackingOptions<S extends StoreAccess = Store> {
  store: S;
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

export class TrackingService<S extends StoreAccess = Store> implements Recorder {
  readonly store: S;
  readonly config: TrackerConfig;
  private readonly ctx: TrackingContext;
  private readonly agents: Agents;
  private readonly commits: Commits;
  private readonly toolCalls: ToolCalls;
  private readonly messages: Messages;
  private readonly undo: Undo;
  private readonly turns: Turns;
  private readonly bugReports: BugReports;
  private readonly grading: Grading;

  constructor(options: TrackingOptions<S>) {
    this.store = options.store;
    this.config = options.config;
    const now = options.now ?? (() => new Date());
    const maskText = options.maskText ?? ((text: string) => text);
    const buffer = new WriteBuffer();
    const sessions = new Sessions(options.project, maskText);
    const flusher = new Flusher(options.store, buffer, options.config, options.logger, now);
    const ledger = new Ledger(options.store, buffer, now);
    const journal = new Journal(buffer, sessions, maskText, now);
    this.ctx = { store: options.store, config: options.config, project: options.project, now, maskText, buffer, sessions, ledger, journal, flusher };
    this.agents = new Agents(this.ctx);
    this.commits = new Commits(this.ctx);
    this.toolCalls = new ToolCalls(this.ctx, new Set(options.ownTools ?? []));
    this.messages = new Messages(this.ctx);
    this.undo = new Undo(this.ctx);
    this.turns = new Turns(this.ctx, this.undo);
    this.bugReports = new BugReports(this.ctx, this.agents, this.commits);
    this.grading = new Grading(this.ctx, this.agents, this.commits);
    // A write may bring other processes' bug reports into view and changes the events held.
    flusher.afterWrite(() => this.agents.refreshHalts());
    flusher.afterWrite(() => ledger.forgetHeld());
    flusher.onFlushed((_agents, mutations) => this.agents.keepKnownHalts(haltsChangedBy(mutations)));
  }

  get pendingMutations(): number {
    return this.ctx.flusher.pending;
  }

  /**
   * Runs after every successful flush with the agents it touched and the batch it wrote (status files,
   * telemetry); replayable events come as the session counters they added. Returns its removal.
   */
  onFlushed(listener: FlushListener): () => void {
    return this.ctx.flusher.onFlushed(listener);
  }

  /** Runs `record` with the buffer's bounds held: what it records lands in one flush transaction. */
  inOneFlush<T>(record: () => T): T {
    return this.ctx.flusher.inOneFlush(record);
  }

  // ---- sessions and turns ---------------------------------------------------------------------

  noteSession(sessionId: string, details: { parentId?: string; project?: string; source?: UsageSource }): void {
    this.ctx.sessions.note(sessionId, details);
  }

  noteModelRequest(sessionId: string, agent: string, model: string): void {
    this.ctx.sessions.noteModelRequest(sessionId, agent, model);
  }

  /** Forgets what memory holds about a session (a replayed session is done: nothing more will come). */
  forgetSession(sessionId: string): void {
    this.ctx.ledger.forgetHeld(sessionId);
    this.ctx.sessions.forget(sessionId);
    this.toolCalls.forget(sessionId);
  }

  setupOf(sessionId: string): SessionSetup {
    return this.ctx.sessions.setupOf(sessionId);
  }

  noteTurnTask(sessionId: string, prompt: string, messageId?: string): void {
    this.ctx.sessions.noteTurnTask(sessionId, prompt, messageId);
  }

  noteFileEdited(sessionId: string, file: string): void {
    this.ctx.sessions.turn(sessionId).files.add(file);
  }

  /** The end of a turn: writes the turn's journal entry and flushes. A second idle for the same turn finds nothing new. */
  endTurn(sessionId: string): FlushOutcome {
    this.turns.end(sessionId);
    return this.flush('turn');
  }

  /** A finished turn of a replayed session (backfill); the caller flushes. */
  recordTurn(sessionId: string, turn: ReplayedTurn): void {
    this.turns.replay(sessionId, turn);
  }

  recordRevert(sessionId: string, messageId: string | undefined): void {
    this.undo.recordRevert(sessionId, messageId);
  }

  confirmRevert(sessionId: string): void {
    this.undo.confirmRevert(sessionId);
  }

  // ---- what tools, commands and messages did --------------------------------------------------

  recordToolCall(sessionId: string, callId: string, tool: string, ok: boolean, event: HostEvent & { command?: string } = {}): void {
    this.toolCalls.recordToolCall(sessionId, callId, tool, ok, event);
  }

  recordShellCommand(sessionId: string, command: string, exitCode: number | undefined, event: HostEvent = {}): void {
    this.toolCalls.recordShellCommand(sessionId, command, exitCode, event);
  }

  recordCommand(sessionId: string, event: HostEvent & { command?: string; whileToolCallsRan?: boolean } = {}): void {
    this.toolCalls.recordCommand(sessionId, event);
  }

  recordPush(sessionId: string, event: HostEvent & { deferFlush?: boolean } = {}): FlushOutcome {
    return this.toolCalls.recordPush(sessionId, event);
  }

  noteTrackerFileEdit(sessionId: string): void {
    this.toolCalls.noteTrackerFileEdit(sessionId);
  }

  recordAssistantMessage(sessionId: string, messageId: string, setup: { agent: string; model: string }, tokens: TokenCounts, cost: number, event: HostEvent = {}): void {
    this.messages.record(sessionId, messageId, setup, tokens, cost, event);
  }

  // ---- commits and git ------------------------------------------------------------------------

  recordCommits(sessionId: string, commits: readonly GitCommit[], event: HostEvent & { count?: number } = {}): CommitRecord[] {
    return this.commits.record(sessionId, commits, event);
  }

  /** Whether the project has a tracked commit: without one there are no git signals to look for. */
  hasTrackedCommits(project: string): boolean {
    return this.commits.any(project);
  }

  /** The tracked commits of a project (git signals read them off the hot path). */
  trackedCommits(project: string): CommitRecord[] {
    return this.commits.all(project);
  }

  gitSignalCache(project: string): GitSignalCache | undefined {
    return gitSignalCache(this.ctx, project);
  }

  recordGitSignals(project: string, signals: readonly CommitSignal[], cache: GitSignalCache): void {
    recordGitSignals(this.ctx, project, signals, cache);
  }

  // ---- agents, bugs and grades ----------------------------------------------------------------

  getAgentStatus(agentId: string): AgentStatus {
    return this.agents.status(agentId);
  }

  isHalted(agentId: string): boolean {
    return this.agents.isHalted(agentId);
  }

  knowsAgent(agentId: string): boolean {
    return this.agents.knows(agentId);
  }

  reportBug(input: BugReportInput): { status: AgentStatus; verdict: BugReportVerdict } {
    return this.bugReports.report(input);
  }

  revive(agentInput: unknown): { status: AgentStatus; revived: boolean } {
    return this.bugReports.revive(agentInput);
  }

  gradeCommit(input: GradeInput): SelfGradeResult {
    return this.grading.gradeCommit(input);
  }

  gradeAsUser(input: UserGradeInput): UserGradeResult {
    return this.grading.gradeAsUser(input);
  }

  // ---- journal and provisioning record --------------------------------------------------------

  logActivity(input: ActivityInput): ActivityEntry {
    const entry = this.ctx.journal.logActivity(input);
    this.ctx.flusher.afterRecord();
    return entry;
  }

  /** The record of a user-only action; the caller flushes. */
  recordUserAction(input: { agent: string; project: string; summary: string; provenance: UserActionProvenance }): JournalKey {
    return this.ctx.journal.recordUserAction(input);
  }

  provisionedItems(configDir: string): string[] {
    return provisionedItems(this.ctx, configDir);
  }

  recordProvisioned(configDir: string, items: readonly string[]): void {
    recordProvisioned(this.ctx, configDir, items);
  }

  // ---- writing --------------------------------------------------------------------------------

  /** Writes everything buffered in one transaction; a `final` flush that fails leaves the buffer to `takePending`. */
  flush(reason: string, options: { final?: boolean } = {}): FlushOutcome {
    void options;
    return this.ctx.flusher.flush(reason);
  }

  /** Hands over (and forgets) every buffered mutation: the spill file keeps what a final flush could not write. */
  takePending(): Mutation[] {
    return this.ctx.flusher.takePending();
  }

  /** The store behind this service was opened late (it was checked first): forget what was read from nothing. */
  storeAttached(): void {
    this.agents.forgetHalts();
  }
}

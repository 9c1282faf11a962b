/**
 * What a session's tools and commands did: tool calls (XP for work, failures counted once), slash
 * commands, pushes, shell commands that run tests (runs, passes, recoveries) and edits of what
 * configures the tracker.
 */
import { isNoOpCommand } from '../integrity/tool-credit.js';
import { isTrackerCommand } from '../outcomes/grade-command.js';
import { INITIAL_TEST_STATE, nextTestState, recognizeTestRun } from '../outcomes/test-runs.js';
import type { TestState } from '../outcomes/test-runs.js';
import type { FlushOutcome } from '../../contract/recorder.js';
import type { HostEvent } from '../../contract/host-events.js';
import type { AgentOp } from '../types.js';
import type { TrackingContext } from './context.js';
import { pushEventId, testRunEventId, testRunTotals, toolCallTotals, toolEventId } from './event-ids.js';

export class ToolCalls {
  private readonly testStates = new Map<string, TestState>();

  /** @param ownTools names of the tracker's own tools: they earn no XP */
  constructor(
    private readonly ctx: TrackingContext,
    private readonly ownTools: ReadonlySet<string>,
  ) {}

  /**
   * A finished tool call, keyed by the host's own unique id of the call (OpenCode's tool part id),
   * never by the provider's call id, which some providers restart in every response. A failure is
   * counted once per call, whichever event reports it, and a replay of the same call (backfill) adds nothing.
   */
  recordToolCall(sessionId: string, callId: string, tool: string, ok: boolean, event: HostEvent & { command?: string } = {}): void {
    const { ctx } = this;
    if (!ctx.sessions.firstReportOf(sessionId, callId)) return;
    const setup = ctx.sessions.setupOf(sessionId);
    const turn = ctx.sessions.turn(sessionId);
    turn.tools.set(tool, (turn.tools.get(tool) ?? 0) + 1);
    const legacy = event.legacyEventId === undefined ? undefined : toolEventId(event.legacyEventId);
    if (ok) {
      // The tracker's own tools and shell commands that do nothing earn no XP (src/core/integrity/tool-credit.ts).
      const earns = !this.ownTools.has(tool) && !(event.command !== undefined && isNoOpCommand(event.command));
      const xp = earns ? [{ kind: 'xp' as const, amount: ctx.config.rules.xpPerToolCall }] : [];
      ctx.ledger.replay(sessionId, setup, toolEventId(callId), toolCallTotals(true), xp, { at: event.at, legacyEventId: legacy });
    } else {
      turn.failures += 1;
      ctx.ledger.replay(sessionId, setup, toolEventId(callId), toolCallTotals(false), [], { at: event.at, legacyEventId: legacy });
    }
    ctx.flusher.afterRecord();
  }

  /**
   * A slash command run in the session; with the host's message id it counts once however often it is
   * replayed. The tracker's own command (the user's `/grade`) is not counted and earns nothing. One that
   * came while an agent's tool call ran is counted but earns no XP: the agent's shell can send commands
   * through the host's own server, one XP award after another.
   */
  recordCommand(sessionId: string, event: HostEvent & { command?: string; whileToolCallsRan?: boolean } = {}): void {
    const { ctx } = this;
    if (event.command !== undefined && isTrackerCommand(event.command)) return;
    const setup = ctx.sessions.setupOf(sessionId);
    const xp: AgentOp[] = event.whileToolCallsRan ? [] : [{ kind: 'xp', amount: ctx.config.rules.xpPerCommand }];
    if (event.eventId) {
      ctx.ledger.replay(sessionId, setup, `command:${event.eventId}`, { commands: 1 }, xp, { at: event.at });
    } else {
      ctx.ledger.count(sessionId, setup, { commands: 1 });
      for (const op of xp) ctx.buffer.addAgentOp(setup.agent, op);
    }
    ctx.flusher.afterRecord();
  }

  /**
   * A successful git push: awarded, then everything buffered is flushed. With the host's call id it
   * counts once however often it is replayed; `deferFlush` leaves the flush to a replay, which writes
   * a whole session at a time.
   */
  recordPush(sessionId: string, event: HostEvent & { deferFlush?: boolean } = {}): FlushOutcome {
    const { ctx } = this;
    const setup = ctx.sessions.setupOf(sessionId);
    if (event.eventId) {
      ctx.ledger.replay(sessionId, setup, pushEventId(event.eventId), { pushes: 1 }, [{ kind: 'xp', amount: ctx.config.rules.xpPerPush }], { at: event.at });
    } else {
      ctx.ledger.count(sessionId, setup, { pushes: 1 });
      ctx.buffer.addAgentOp(setup.agent, { kind: 'xp', amount: ctx.config.rules.xpPerPush });
    }
    return event.deferFlush ? { ok: true, mutations: 0, durationMs: 0 } : ctx.flusher.flush('push');
  }

  /**
   * A bash command and its exit code. When it runs a test suite: a test run, a pass when it exited 0,
   * and the session's recovery (green after red) kept up to date. With the host's id of the call it
   * counts once however often it is reported, live or replayed; a replay (it carries the host's time)
   * also leaves out a run an older version counted live without a key (Ledger.countedWithoutKey):
   * keying both paths, rather than skipping live-tracked sessions in backfill, keeps a session that was
   * backfilled and then went on live (or the other way round) counted once, call by call.
   */
  recordShellCommand(sessionId: string, command: string, exitCode: number | undefined, event: HostEvent = {}): void {
    const { ctx } = this;
    if (exitCode === undefined || !recognizeTestRun(command, ctx.config.testCommandPatterns)) return;
    const passed = exitCode === 0;
    const next = nextTestState(this.testStates.get(sessionId) ?? INITIAL_TEST_STATE, passed);
    this.testStates.set(sessionId, next.state);
    const setup = ctx.sessions.setupOf(sessionId);
    const totals = testRunTotals(passed, next.recoveryDelta);
    if (event.eventId === undefined) {
      ctx.ledger.count(sessionId, setup, totals);
    } else {
      const eventId = testRunEventId(event.eventId);
      const anchors = [toolEventId(event.eventId), ...(event.legacyEventId === undefined ? [] : [toolEventId(event.legacyEventId)])];
      if (event.at !== undefined && ctx.ledger.countedWithoutKey(sessionId, setup, eventId, anchors)) return;
      ctx.ledger.replay(sessionId, setup, eventId, totals, [], { at: event.at });
    }
    ctx.flusher.afterRecord();
  }

  /** Forgets a session's test state (a replayed session is done). */
  forget(sessionId: string): void {
    this.testStates.delete(sessionId);
  }

  /** A tool call that edited an OpenCode config, the provisioned agents/skills or the tracker's AGENTS.md section. */
  noteTrackerFileEdit(sessionId: string): void {
    this.ctx.ledger.count(sessionId, this.ctx.sessions.setupOf(sessionId), { trackerFileEdits: 1 });
    this.ctx.flusher.afterRecord();
  }
}

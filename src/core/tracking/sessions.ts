/**
 * What this process remembers about live sessions: who works in each (agent, model, project,
 * parent, source), the open turn (task, tools used, failures, commits, files) and the call ids
 * already counted in it. Memory only; nothing here is written.
 */
import { UNKNOWN } from '../types.js';
import type { UsageSource } from '../types.js';

const TASK_SUMMARY_LENGTH = 200;
/** Subagents nest; a chain longer than this is not followed further (a loop in bad data ends here). */
const MAX_SUBAGENT_DEPTH = 16;

/** Who is working in a session: the agent and model of its latest model request, and where. */
export interface SessionSetup {
  agent: string;
  model: string;
  project: string;
  parentId?: string;
  /** Where the session's records come from; live unless a backfill says otherwise. */
  source?: UsageSource;
}

/** The turn a session is in: from the user's prompt to the session going idle. */
export interface TurnState {
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

/** A user's prompt as a turn's task: one line, secrets masked, truncated (live and replayed turns alike). */
export function turnTask(prompt: string, maskText: (text: string) => string): string {
  const task = prompt.replace(/\s+/g, ' ').trim();
  return task ? maskText(task).slice(0, TASK_SUMMARY_LENGTH) : '';
}

export class Sessions {
  private readonly setups = new Map<string, SessionSetup>();
  private readonly turns = new Map<string, TurnState>();
  /** Call ids already counted, per session; forgotten when the session's turn ends. */
  private readonly countedCalls = new Map<string, Set<string>>();

  /**
   * @param project the project of sessions that do not name their own directory
   * @param maskText masks secrets in the turn's task before it is kept
   */
  constructor(
    private readonly project: string,
    private readonly maskText: (text: string) => string,
  ) {}

  /** Notes a session's place and parent (subagent sessions have one). */
  note(sessionId: string, details: { parentId?: string; project?: string; source?: UsageSource }): void {
    const known = this.setups.get(sessionId);
    const setup: SessionSetup = known ?? { agent: UNKNOWN, model: UNKNOWN, project: details.project ?? this.project };
    if (details.parentId) setup.parentId = details.parentId;
    if (details.project) setup.project = details.project;
    if (details.source) setup.source = details.source;
    this.setups.set(sessionId, setup);
  }

  /** Notes the agent and model of a model request: the source of truth for who works in a session. */
  noteModelRequest(sessionId: string, agent: string, model: string): void {
    const setup = this.setups.get(sessionId);
    if (setup) {
      setup.agent = agent;
      setup.model = model;
    } else {
      this.setups.set(sessionId, { agent, model, project: this.project });
    }
  }

  /** The agent and model working in a session now (unknown until its first model request). */
  setupOf(sessionId: string): SessionSetup {
    return this.setups.get(sessionId) ?? { agent: UNKNOWN, model: UNKNOWN, project: this.project };
  }

  /** The agent of a session this process has seen a model request of; undefined otherwise. */
  workingAgent(sessionId: string): string | undefined {
    return this.setups.get(sessionId)?.agent;
  }

  /** Forgets the session's setup, turn and counted calls. */
  forget(sessionId: string): void {
    this.setups.delete(sessionId);
    this.turns.delete(sessionId);
    this.countedCalls.delete(sessionId);
  }

  /** The session's open turn, started empty when there is none. */
  turn(sessionId: string): TurnState {
    let turn = this.turns.get(sessionId);
    if (!turn) {
      turn = { task: '', tools: new Map(), failures: 0, commits: [], earned: 0, files: new Set() };
      this.turns.set(sessionId, turn);
    }
    return turn;
  }

  /** Closes the session's turn: hands it over (undefined when nothing opened one) and forgets its counted calls. */
  closeTurn(sessionId: string): TurnState | undefined {
    const turn = this.turns.get(sessionId);
    this.turns.delete(sessionId);
    this.countedCalls.delete(sessionId);
    return turn;
  }

  /** Notes the user's prompt that starts a turn: the task of the turn's journal entry. */
  noteTurnTask(sessionId: string, prompt: string, messageId?: string): void {
    const task = turnTask(prompt, this.maskText);
    if (task) this.turn(sessionId).task = task;
    if (messageId) this.turn(sessionId).messageId = messageId;
  }

  /** True the first time a call id is reported in the session's turn; every later report is a repeat. */
  firstReportOf(sessionId: string, callId: string): boolean {
    let counted = this.countedCalls.get(sessionId);
    if (!counted) this.countedCalls.set(sessionId, (counted = new Set()));
    if (counted.has(callId)) return false;
    counted.add(callId);
    return true;
  }

  /** The session at the top of a subagent chain (the user's own session), as far as this process knows it. */
  rootSession(sessionId: string): string {
    let id = sessionId;
    for (let depth = 0; depth < MAX_SUBAGENT_DEPTH; depth += 1) {
      const parent = this.setups.get(id)?.parentId;
      if (!parent) return id;
      id = parent;
    }
    return id;
  }
}

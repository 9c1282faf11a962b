/**
 * OpenCode's undo: the finished turns of each session (where each started, who worked it) and the
 * revert not yet made final. Undone turns count against the setups that worked them; a revert the
 * user takes back takes the count back.
 */
import { undoneBySetup, undoneTurns } from '../outcomes/undo.js';
import type { TurnRecord } from '../outcomes/undo.js';
import type { TrackingContext } from './context.js';
import type { SessionSetup } from './sessions.js';

/** Turns per session remembered for undo: an undo further back than this finds nothing to count. */
const MAX_REMEMBERED_TURNS = 500;

export class Undo {
  private readonly finishedTurns = new Map<string, TurnRecord[]>();
  private readonly pendingUndo = new Map<string, { messageId: string; turns: TurnRecord[] }>();

  constructor(private readonly ctx: TrackingContext) {}

  /** Remembers a finished turn and the user's message that started it, for a later undo. */
  rememberTurn(sessionId: string, messageId: string, setup: SessionSetup): void {
    const finished = this.finishedTurns.get(sessionId) ?? [];
    finished.push({ messageId, agent: setup.agent, model: setup.model, project: setup.project });
    if (finished.length > MAX_REMEMBERED_TURNS) finished.shift();
    this.finishedTurns.set(sessionId, finished);
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
      this.ctx.ledger.count(sessionId, { agent: turn.agent, model: turn.model, project: turn.project }, { undoneTurns: sign * count });
    }
    // An undo is the user's act and no turn end follows it: written at once.
    if (turns.length > 0) this.ctx.flusher.flush('undo');
  }
}

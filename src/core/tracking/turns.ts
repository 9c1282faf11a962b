/**
 * The end of a turn (the session went idle): the turn counted for its setup under its task kind,
 * remembered for undo, and summed up in an automatic journal entry.
 */
import type { ReplayedTurn } from '../../contract/host-events.js';
import { classifyTaskKind } from '../outcomes/task-kind.js';
import { UNKNOWN } from '../types.js';
import type { TrackingContext } from './context.js';
import { messageEventId, turnEventId, turnTotals } from './event-ids.js';
import { turnTask } from './sessions.js';
import type { TurnState } from './sessions.js';
import type { Undo } from './undo.js';

/** Files named in a turn's journal entry; the rest of a large change is left out. */
const MAX_JOURNALLED_FILES = 50;
/** Characters of a commit hash shown in the journal. */
const JOURNAL_HASH_LENGTH = 7;

export class Turns {
  constructor(
    private readonly ctx: TrackingContext,
    private readonly undo: Undo,
  ) {}

  /** Closes the session's turn, counts it and journals what it did; the caller flushes. */
  end(sessionId: string): void {
    const turn = this.ctx.sessions.closeTurn(sessionId);
    if (!turn) return;
    this.count(sessionId, turn);
    if (turn.tools.size > 0 || turn.commits.length > 0) this.journal(sessionId, turn);
  }

  /**
   * A finished turn of a replayed session (backfill), counted for the session's setup now (the agent ×
   * model of its last answer, as at live's turn end) and classified from the same facts as live. Keyed
   * by the user's message id, as live keys it; a turn an older version counted live without a key
   * (its answering messages are held, recorded live) is left out.
   */
  replay(sessionId: string, turn: ReplayedTurn): void {
    const setup = this.ctx.sessions.setupOf(sessionId);
    if (setup.agent === UNKNOWN) return;
    const eventId = turnEventId(turn.messageId);
    if (this.ctx.ledger.countedWithoutKey(sessionId, setup, eventId, turn.answeredBy.map(messageEventId))) return;
    const kind = classifyTaskKind({ prompt: turnTask(turn.prompt, this.ctx.maskText), filesEdited: turn.filesEdited });
    this.ctx.ledger.replay(sessionId, setup, eventId, turnTotals(kind), [], turn.at);
    this.ctx.flusher.afterRecord();
  }

  /**
   * Counts a finished turn for its setup and remembers where it started, for undo. Keyed by the user's
   * message id when the host gave it, so a backfill of the same session counts the turn once.
   */
  private count(sessionId: string, turn: TurnState): void {
    const setup = this.ctx.sessions.setupOf(sessionId);
    if (setup.agent === UNKNOWN) return;
    const kind = classifyTaskKind({ prompt: turn.task, filesEdited: [...turn.files] });
    if (turn.messageId) this.ctx.ledger.replay(sessionId, setup, turnEventId(turn.messageId), turnTotals(kind), []);
    else this.ctx.ledger.count(sessionId, setup, turnTotals(kind));
    if (turn.messageId) this.undo.rememberTurn(sessionId, turn.messageId, setup);
  }

  private journal(sessionId: string, turn: TurnState): void {
    const setup = this.ctx.sessions.setupOf(sessionId);
    const actions = [...turn.tools].map(([tool, n]) => `${tool} x${n}`).join(', ');
    const outcome = [
      turn.commits.length > 0 ? `${turn.commits.length} commit(s): ${turn.commits.map((h) => h.slice(0, JOURNAL_HASH_LENGTH)).join(', ')}` : 'no commits',
      turn.failures > 0 ? `${turn.failures} failed tool call(s)` : 'no failures',
    ].join('; ');
    this.ctx.journal.add({
      timestamp: this.ctx.now().toISOString(),
      task: turn.task || '(no prompt recorded)',
      actions,
      outcome,
      decisions: '',
      agent: setup.agent,
      model: setup.model,
      project: setup.project,
      sessionId,
      ...(turn.files.size > 0 ? { files: [...turn.files].slice(0, MAX_JOURNALLED_FILES) } : {}),
      automatic: true,
    });
  }
}

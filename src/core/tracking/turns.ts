/**
 * The end of a turn (the session went idle): the turn counted for its setup under its task kind,
 * remembered for undo, and summed up in an automatic journal entry.
 */
import { classifyTaskKind, TASK_KIND_COUNTERS } from '../outcomes/task-kind.js';
import { UNKNOWN } from '../types.js';
import type { TrackingContext } from './context.js';
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

  /** Counts a finished turn for its setup and remembers where it started, for undo. */
  private count(sessionId: string, turn: TurnState): void {
    const setup = this.ctx.sessions.setupOf(sessionId);
    if (setup.agent === UNKNOWN) return;
    const kind = classifyTaskKind({ prompt: turn.task, filesEdited: [...turn.files] });
    this.ctx.ledger.count(sessionId, setup, { turns: 1, [TASK_KIND_COUNTERS[kind]]: 1 });
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

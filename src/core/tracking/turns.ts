/**
 * The end of a turn (the session went idle, or a replay of history reached the next prompt): the turn
 * counted for its setup under its task kind, remembered for undo, and summed up in an automatic journal
 * entry that rides on the turn's keyed event, so live tracking and a backfill of the same turn write it once.
 */
import type { ReplayedTurn } from '../../contract/host-events.js';
import { classifyTaskKind } from '../outcomes/task-kind.js';
import type { ActivityEntry } from '../types.js';
import { UNKNOWN } from '../types.js';
import type { TrackingContext } from './context.js';
import { messageEventId, turnEventId, turnTotals } from './event-ids.js';
import { turnTask } from './sessions.js';
import type { SessionSetup } from './sessions.js';
import type { Undo } from './undo.js';

/** Files named in a turn's journal entry; the rest of a large change is left out. */
const MAX_JOURNALLED_FILES = 50;
/** Characters of a commit hash shown in the journal. */
const JOURNAL_HASH_LENGTH = 7;

/** What a turn did, as its journal entry tells it: live's turn state or a replayed turn's facts. */
interface TurnWork {
  /** The user's prompt as a task (turnTask: one line, masked, truncated); '' when none was seen. */
  task: string;
  tools: ReadonlyMap<string, number>;
  failures: number;
  /** Commits made, and the hashes known of them: live knows each one, a replay what git printed. */
  commits: number;
  hashes: readonly string[];
  files: Iterable<string>;
}

/** A turn is journalled when it used a tool or committed; a turn of talk only is not. */
function worthJournalling(work: TurnWork): boolean {
  return work.tools.size > 0 || work.commits > 0;
}

/** The automatic journal entry of a turn, before masking (Journal.prepare masks it). */
function turnEntry(sessionId: string, setup: SessionSetup, work: TurnWork, timestamp: string): ActivityEntry {
  const actions = [...work.tools].map(([tool, n]) => `${tool} x${n}`).join(', ');
  const hashes = work.hashes.map((hash) => hash.slice(0, JOURNAL_HASH_LENGTH)).join(', ');
  const outcome = [
    work.commits > 0 ? `${work.commits} commit(s)${hashes ? `: ${hashes}` : ''}` : 'no commits',
    work.failures > 0 ? `${work.failures} failed tool call(s)` : 'no failures',
  ].join('; ');
  const files = [...new Set(work.files)];
  return {
    timestamp,
    task: work.task || '(no prompt recorded)',
    actions,
    outcome,
    decisions: '',
    agent: setup.agent,
    model: setup.model,
    project: setup.project,
    sessionId,
    ...(files.length > 0 ? { files: files.slice(0, MAX_JOURNALLED_FILES) } : {}),
    automatic: true,
  };
}

export class Turns {
  constructor(
    private readonly ctx: TrackingContext,
    private readonly undo: Undo,
  ) {}

  /**
   * Closes the session's turn, counts it and journals what it did; the caller flushes. Keyed by the
   * user's message id when the host gave it (a backfill of the same session then counts the turn and
   * writes its entry once) and remembered where it started, for undo.
   */
  end(sessionId: string): void {
    const turn = this.ctx.sessions.closeTurn(sessionId);
    if (!turn) return;
    const setup = this.ctx.sessions.setupOf(sessionId);
    const work: TurnWork = { task: turn.task, tools: turn.tools, failures: turn.failures, commits: turn.commits.length, hashes: turn.commits, files: turn.files };
    const entry = worthJournalling(work) ? turnEntry(sessionId, setup, work, this.ctx.now().toISOString()) : undefined;
    if (setup.agent === UNKNOWN) {
      if (entry) this.ctx.journal.add(entry);
      return;
    }
    const kind = classifyTaskKind({ prompt: turn.task, filesEdited: [...turn.files] });
    if (turn.messageId) {
      this.ctx.ledger.replay(sessionId, setup, turnEventId(turn.messageId), turnTotals(kind), [], { activity: entry && (() => this.ctx.journal.prepare(entry)) });
      this.undo.rememberTurn(sessionId, turn.messageId, setup);
    } else {
      this.ctx.ledger.count(sessionId, setup, turnTotals(kind));
      if (entry) this.ctx.journal.add(entry);
    }
  }

  /**
   * A finished turn of a replayed session (backfill), counted for the session's setup now (the agent ×
   * model of its last answer, as at live's turn end), classified from the same facts as live and
   * journalled as live journals it, at the turn's own time. Keyed by the user's message id, as live keys
   * it; a turn an older version counted live without a key (its answering messages are held, recorded
   * live) is left out, its entry with it (that version journalled the turn live).
   */
  replay(sessionId: string, turn: ReplayedTurn): void {
    // The turn ends here as a live turn ends at idle: what its calls left in the session's open turn (the
    // commits it earned, held to EARNING_COMMITS_PER_TURN) starts again with the next prompt.
    this.ctx.sessions.closeTurn(sessionId);
    const setup = this.ctx.sessions.setupOf(sessionId);
    if (setup.agent === UNKNOWN) return;
    const eventId = turnEventId(turn.messageId);
    if (this.ctx.ledger.countedWithoutKey(sessionId, setup, eventId, turn.answeredBy.map(messageEventId))) return;
    const task = turnTask(turn.prompt, this.ctx.maskText);
    const kind = classifyTaskKind({ prompt: task, filesEdited: turn.filesEdited });
    const work: TurnWork = { task, tools: turn.tools, failures: turn.failures, commits: turn.commits, hashes: turn.commitHashes, files: turn.filesEdited };
    const activity = worthJournalling(work) ? () => this.ctx.journal.prepare(turnEntry(sessionId, setup, work, turn.at)) : undefined;
    this.ctx.ledger.replay(sessionId, setup, eventId, turnTotals(kind), [], { at: turn.at, activity });
    this.ctx.flusher.afterRecord();
  }
}

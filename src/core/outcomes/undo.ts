/**
 * Which turns an OpenCode undo (revert of a session's messages) takes back. Message ids in OpenCode
 * sort by time, so a turn is undone when the revert point lies before the start of the turn after it:
 * every message of the turn is then at or after the revert point, or the turn is cut in the middle.
 */

/** A finished turn: the id of the user's message that started it, and who answered it. */
export interface TurnRecord {
  messageId: string;
  agent: string;
  model: string;
  project: string;
}

/** The turns a revert to `revertMessageId` undoes, oldest first. */
export function undoneTurns<T extends Pick<TurnRecord, 'messageId'>>(turns: readonly T[], revertMessageId: string): T[] {
  return turns.filter((_turn, index) => {
    const next = turns[index + 1];
    return next === undefined || revertMessageId < next.messageId;
  });
}

/** Undone turns per setup (`agent\u0000model\u0000project`), to count against each setup its own. */
export function undoneBySetup(turns: readonly TurnRecord[]): Map<string, { turn: TurnRecord; count: number }> {
  const bySetup = new Map<string, { turn: TurnRecord; count: number }>();
  for (const turn of turns) {
    const key = `${turn.agent}\u0000${turn.model}\u0000${turn.project}`;
    const entry = bySetup.get(key);
    if (entry) entry.count += 1;
    else bySetup.set(key, { turn, count: 1 });
  }
  return bySetup;
}

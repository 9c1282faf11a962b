/**
 * The user-only records stored as suspect (made without a terminal while a tracked session of the
 * same project was running), for `report` and `recommend` to show apart. Read from the revive
 * journal entries (`ActivityEntry.userAction`) and the import records (`ImportRecord.userAction`).
 * A report already reads every usage record; this reads the journal once more, in the CLI only.
 */
import type { Store } from '../store/store.js';
import type { UserActionProvenance } from '../types.js';

export interface SuspectUserAction {
  action: string;
  at: string;
  /** The agent the action was about (revive), when there is one. */
  agent?: string;
  project?: string;
}

/** Every suspect user-only record, oldest first. */
export function suspectUserActions(store: Store): SuspectUserAction[] {
  const found: SuspectUserAction[] = [];
  for (const { value } of store.tables.activities.getRange({})) {
    if (value.userAction?.suspect) found.push({ action: value.userAction.action, at: value.timestamp, agent: value.agent, project: value.project });
  }
  for (const { value } of store.tables.migrations.getRange({ start: 'import:', end: 'import;' })) {
    const provenance = (value as { userAction?: UserActionProvenance }).userAction;
    if (provenance?.suspect) found.push({ action: provenance.action, at: value.at });
  }
  return found.sort((a, b) => a.at.localeCompare(b.at));
}

/** One line per suspect action for the terminal, or '' when there are none. */
export function formatSuspectUserActions(actions: readonly SuspectUserAction[]): string {
  if (actions.length === 0) return '';
  const lines = actions.map((a) => `  ${a.at.slice(0, 19)}  ${a.action}${a.agent && a.agent !== 'unknown' ? ` ${a.agent}` : ''}`);
  return [
    `Suspect user-only actions (${actions.length}): made without a terminal while an agent session of the project was running.`,
    'Check you made them yourself:',
    ...lines,
  ].join('\n');
}

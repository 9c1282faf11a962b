/**
 * `agent-tracker review [--confirm ID | --drop ID] [--json]`: the suspect user-only records (made the
 * way an agent could: user-only.ts and provenance.ts say which) and the user's decision on each. A
 * confirmed or dropped record stops warning in every later report; the record itself stays.
 * Confirming a held revive (one that came the way an agent's would) lifts the halt it left.
 * Without a flag it lists them, and asks about each when stdin and stdout are a terminal.
 */
import { createInterface } from 'node:readline/promises';
import { formatSuspectUserActions, reviewSuspectAction, suspectUserActions } from '../../core/integrity/suspect-actions.js';
import type { ReviewDecision, SuspectUserAction } from '../../core/integrity/suspect-actions.js';
import type { Store } from '../../core/store/store.js';
import type { ProcessFacts } from '../../core/integrity/user-only.js';
import type { UserActionProvenance } from '../../core/types.js';
import type { TrackerConfig } from '../../core/config.js';
import { silentLogger } from '../../core/logger.js';
import { TrackingService } from '../../core/tracking/service.js';
import { CliError, loadConfig, parseCommandArgs, withStore } from '../context.js';
import type { Output } from '../context.js';
import { confirmUserOnly, currentProcessFacts } from '../user-only.js';

/** Asks about one record: the decision, or undefined to leave it for later. */
export type AskDecision = (action: SuspectUserAction) => Promise<ReviewDecision | undefined>;

const terminalAsk: AskDecision = async (action) => {
  const reader = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = (await reader.question(`${action.id}  ${action.at.slice(0, 19)}  ${action.action}${action.agent ? ` ${action.agent}` : ''}: did you make it? [c]onfirm / [d]rop / [s]kip: `)).trim();
    if (/^c(onfirm)?$/i.test(answer)) return 'confirmed';
    if (/^d(rop)?$/i.test(answer)) return 'dropped';
    return undefined;
  } finally {
    reader.close();
  }
};

/** A review settles suspicion, so it must not be suspect itself: only from a terminal, never under an agent or from a session's processes. */
function reviewerProvenance(store: Store, facts: ProcessFacts): UserActionProvenance {
  const provenance = confirmUserOnly('review', { store, project: process.cwd(), facts });
  if (provenance.via !== 'terminal-tty') {
    throw new CliError('a review settles suspect records, so it is taken only in a terminal window (stdin and stdout a terminal); nothing was changed');
  }
  if (provenance.suspect) {
    throw new CliError(`a review settles suspect records, so it is refused when it comes the way an agent's would (${(provenance.signs ?? []).join('; ')}); nothing was changed. Run it in a terminal window outside OpenCode`);
  }
  return provenance;
}

/** Records the decision; confirming a held revive lifts the halt it left in place. */
function decide(store: Store, config: TrackerConfig, id: string, decision: ReviewDecision, via: UserActionProvenance['via']): SuspectUserAction {
  let reviewed: SuspectUserAction;
  try {
    reviewed = reviewSuspectAction(store, id, { decision, at: new Date().toISOString(), via });
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  if (decision === 'confirmed' && reviewed.heldRevive && reviewed.agent) {
    new TrackingService({ store, config, logger: silentLogger, project: reviewed.project ?? process.cwd() }).revive(reviewed.agent);
  }
  return reviewed;
}

/** What the command asks the terminal; tests hand their own. */
export interface ReviewDeps {
  ask: AskDecision;
  facts: ProcessFacts;
}

export async function run(args: string[], output: Output, deps: ReviewDeps = { ask: terminalAsk, facts: currentProcessFacts() }): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, { confirm: { type: 'string' }, drop: { type: 'string' } }, false);
  if (positionals.length > 0) throw new CliError(`takes no positional arguments (use --confirm ID or --drop ID), got "${positionals[0]}"`);
  if (values.confirm !== undefined && values.drop !== undefined) throw new CliError('choose one of --confirm and --drop');
  const config = loadConfig(values.db);
  const chosen: { id: string; decision: ReviewDecision } | undefined =
    values.confirm !== undefined ? { id: values.confirm, decision: 'confirmed' } : values.drop !== undefined ? { id: values.drop, decision: 'dropped' } : undefined;

  const result = await withStore(config, async (store) => {
    if (chosen) {
      const { via } = reviewerProvenance(store, deps.facts);
      return { reviewed: [decide(store, config, chosen.id, chosen.decision, via)], open: suspectUserActions(store) };
    }
    const open = suspectUserActions(store);
    if (!deps.facts.hasTty || open.length === 0 || values.json) return { reviewed: [], open };
    const { via } = reviewerProvenance(store, deps.facts);
    const reviewed: SuspectUserAction[] = [];
    for (const action of open) {
      const decision = await deps.ask(action);
      if (decision) reviewed.push(decide(store, config, action.id, decision, via));
    }
    return { reviewed, open: suspectUserActions(store) };
    // No database there: nothing to review, and none is created.
  }, 'update');

  if (values.json) {
    output.out(JSON.stringify(result, null, 2));
    return;
  }
  const lines = result.reviewed.map(
    (action) =>
      `${action.id} ${action.action}${action.agent ? ` ${action.agent}` : ''} (${action.at.slice(0, 19)}): ${action.review?.decision}; it no longer warns.` +
      (action.heldRevive && action.review?.decision === 'confirmed' ? ` ${action.agent} is revived.` : ''),
  );
  if (result.open.length === 0) lines.push('No suspect user-only records are waiting for review.');
  else lines.push(formatSuspectUserActions(result.open), '', 'Settle one with: agent-tracker review --confirm ID (you made it) or --drop ID (you did not).');
  output.out(lines.join('\n'));
}

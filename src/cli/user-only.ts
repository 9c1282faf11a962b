/**
 * The CLI's gate for user-only actions (revive, the user's grade, import, repair, deletion): it
 * refuses when it can tell an agent runs it, and otherwise says how the request came, so the record
 * stays tamper-evident when a determined model gets past the refusal: suspect when it came without
 * a terminal while a session of the project ran, or when its process ancestry leads into an agent
 * session (provenance.ts), a detached process planted during one included.
 *
 * Called by `revive`, `import`, `grade` and `recommend --apply`:
 *   const provenance = confirmUserOnly('revive', { store, project });
 *   service.recordUserAction({ agent, project, summary, provenance });
 * `repair` opens no readable store to record in, so it only refuses: `refuseUnderAgent('repair')`.
 */
import { agentSigns, isSuspectUserAction, RUNNING_SESSION_WINDOW_MS, sessionRunning, terminalVia } from '../core/integrity/user-only.js';
import type { ProcessFacts } from '../core/integrity/user-only.js';
import { isOpencodeProcess, readAncestry, sessionProvenanceSigns } from '../core/integrity/provenance.js';
import type { SessionSpan } from '../core/integrity/provenance.js';
import type { Store } from '../core/store/store.js';
import type { UserActionProvenance } from '../core/types.js';
import { CliError } from './context.js';

/** The facts about the running CLI process. */
export function currentProcessFacts(): ProcessFacts {
  const ancestry = readAncestry(process.pid);
  return {
    env: process.env,
    hasTty: Boolean(process.stdin.isTTY) && Boolean(process.stdout.isTTY),
    opencodeAncestor: ancestry.chain.slice(1).some(isOpencodeProcess),
    ancestry,
  };
}

/** A tracked session's span, with its project. */
interface TrackedSpan extends SessionSpan {
  project: string;
}

/** The spans of the tracked (not backfilled) sessions: a rare user action, so a bounded scan is fine. */
function trackedSessionSpans(store: Store): TrackedSpan[] {
  const spans: TrackedSpan[] = [];
  for (const { value } of store.tables.usage.getRange({})) {
    if (value.source !== 'backfill') spans.push({ firstAt: value.firstAt, lastAt: value.lastAt, project: value.project });
  }
  return spans;
}

/** Whether a tracked session of `project` recorded something recently. */
export function trackedSessionRunning(store: Store, project: string, now: Date = new Date()): boolean {
  return trackedSessionSpans(store).some((span) => span.project === project && sessionRunning(span.lastAt, now));
}

/** The last record time of the most recent tracked session of `project` still counted as running at `now`. */
function latestRunning(spans: readonly TrackedSpan[], project: string, now: Date): string | undefined {
  let latest: string | undefined;
  for (const span of spans) {
    if (span.project === project && sessionRunning(span.lastAt, now) && (latest === undefined || span.lastAt > latest)) latest = span.lastAt;
  }
  return latest;
}

export interface UserOnlyOptions {
  store: Store;
  project: string;
  facts?: ProcessFacts;
  now?: Date;
}

/** Refuses a user-only action when an agent seems to run it: throws CliError, nothing changed. */
export function refuseUnderAgent(action: string, facts: ProcessFacts = currentProcessFacts()): void {
  const signs = agentSigns(facts);
  if (signs.length === 0) return;
  throw new CliError(
    `"agent-tracker ${action}" is the user's decision, and this looks like an agent running it (${signs.join('; ')}); nothing was changed. ` +
      `If you are the user, run "agent-tracker ${action} …" yourself in a terminal window outside OpenCode.`,
  );
}

/**
 * Refuses a user-only action when an agent seems to run it (throws CliError, nothing changed);
 * otherwise returns the provenance to store on the action's record.
 */
export function confirmUserOnly(action: string, options: UserOnlyOptions): UserActionProvenance {
  const facts = options.facts ?? currentProcessFacts();
  refuseUnderAgent(action, facts);
  const via = terminalVia(facts);
  const now = options.now ?? new Date();
  const spans = trackedSessionSpans(options.store);
  const latest = via === 'terminal-no-tty' ? latestRunning(spans, options.project, now) : undefined;
  const running = latest !== undefined;
  // Why it is suspect is kept with it, so `review` and the revive's reply can say it.
  const signs = [
    ...(running ? [`made without a terminal within ${RUNNING_SESSION_WINDOW_MS / 60_000} minutes of a tracked session of this project, whose last record was at ${latest}`] : []),
    ...(facts.ancestry ? sessionProvenanceSigns(facts.ancestry, spans) : []),
  ];
  return { action, via, suspect: isSuspectUserAction(via, running) || signs.length > 0, ...(signs.length > 0 ? { signs } : {}) };
}

/**
 * The CLI's gate for user-only actions (revive, the user's grade, import, repair, deletion): it
 * refuses when it can tell an agent runs it, and otherwise says how the request came, so the record
 * stays tamper-evident when a determined model gets past the refusal.
 *
 * Called by `revive`, `import`, `grade` and `recommend --apply`:
 *   const provenance = confirmUserOnly('revive', { store, project });
 *   service.recordUserAction({ agent, project, summary, provenance });
 * `repair` opens no readable store to record in, so it only refuses: `refuseUnderAgent('repair')`.
 */
import fs from 'node:fs';
import { agentSigns, isSuspectUserAction, sessionRunning, terminalVia } from '../core/integrity/user-only.js';
import type { ProcessFacts } from '../core/integrity/user-only.js';
import type { Store } from '../core/store/store.js';
import type { UserActionProvenance } from '../core/types.js';
import { CliError } from './context.js';

/** How far up the process tree to look for an `opencode` parent (a bound, not a guess at depth). */
const MAX_ANCESTORS = 32;

/** The parent pid and command name of a Linux process from /proc; undefined elsewhere or when gone. */
function procEntry(pid: number): { parent: number; name: string } | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split at the last ")".
    const close = stat.lastIndexOf(')');
    const name = stat.slice(stat.indexOf('(') + 1, close);
    const parent = Number(stat.slice(close + 2).split(' ')[1]);
    return Number.isInteger(parent) ? { parent, name } : undefined;
  } catch {
    return undefined;
  }
}

/** Whether an `opencode` process is among this process's ancestors (Linux /proc; false elsewhere). */
export function hasOpencodeAncestor(startPid: number = process.ppid): boolean {
  let pid = startPid;
  for (let depth = 0; depth < MAX_ANCESTORS && pid > 1; depth += 1) {
    const entry = procEntry(pid);
    if (!entry) return false;
    if (/^(opencode|\.opencode)$/.test(entry.name)) return true;
    pid = entry.parent;
  }
  return false;
}

/** The facts about the running CLI process. */
export function currentProcessFacts(): ProcessFacts {
  return {
    env: process.env,
    hasTty: Boolean(process.stdin.isTTY) && Boolean(process.stdout.isTTY),
    opencodeAncestor: hasOpencodeAncestor(),
  };
}

/** Whether a tracked session of `project` recorded something recently (a rare user action: a bounded scan is fine). */
export function trackedSessionRunning(store: Store, project: string, now: Date = new Date()): boolean {
  for (const { value } of store.tables.sessions.getRange({})) {
    if (value.project === project && value.source !== 'backfill' && sessionRunning(value.lastAt, now)) return true;
  }
  return false;
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
  const running = via === 'terminal-no-tty' && trackedSessionRunning(options.store, options.project, options.now);
  return { action, via, suspect: isSuspectUserAction(via, running) };
}

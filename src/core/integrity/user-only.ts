/**
 * User-only actions (revive, the user's grade, import, repair, deletion, backfill from another
 * folder) and what marks a request for one as coming from an agent. Pure functions over a shell
 * command, a tool call and process facts; the adapters (the plugin's tool guard, the CLI) gather the facts.
 *
 * Every check here is a speed bump, not a wall: a model can hide a command from a pattern, strip
 * variables and fake a terminal. That is why each user-only record also stores how it came.
 */
import path from 'node:path';
import type { Ancestry } from './provenance.js';
import type { UserOnlyVia } from '../types.js';

/** CLI sub-commands only the user may run. */
export const USER_ONLY_COMMANDS: ReadonlySet<string> = new Set(['revive', 'grade', 'import', 'repair', 'delete', 'forget', 'reset']);
/** Program words that run the tracker's CLI: the bin names and the built entry file. */
const CLI_PROGRAM = /(^|\/)(opencode-)?agent-tracker$|(^|\/)cli\/main\.[cm]?[jt]s$/;
/**
 * `backfill --from` another folder: a copy of OpenCode's history under fresh ids (or anyone's store)
 * would be replayed into the record, so it is the user's; a dry run writes nothing and stays open, as
 * does a plain `backfill` (OpenCode's own folder, which the plugin reads too). Shown as this action.
 */
const FOREIGN_BACKFILL = 'backfill --from';
/** CLI options that take a value (so the value is not mistaken for the sub-command). */
const OPTIONS_WITH_VALUE: ReadonlySet<string> = new Set(['--db']);
/** Where one shell command ends and the next begins. */
const COMMAND_BREAK = /[;&|\n()`]+|\$\(/;
/** Shell commands that change files. */
const WRITING_COMMAND = /(^|[\s;&|(])(rm|mv|cp|truncate|dd|tee|ln|sed\s+-i|perl|python3?|node|bun|chmod|install)(\s|$)|>/;
/** Tools whose `filePath` argument names a file they change. */
const EDITING_TOOLS: ReadonlySet<string> = new Set(['edit', 'write', 'patch', 'multiedit']);


function words(segment: string): string[] {
  return segment
    .split(/\s+/)
    .map((word) => word.replace(/^['"]+|['"]+$/g, ''))
    .filter((word) => word !== '');
}

/** Whether a `backfill`'s arguments name another folder to read (`--from X`, `--from=X`) for real. */
function backfillsForeignHistory(args: readonly string[]): boolean {
  return args.some((word) => word === '--from' || word.startsWith('--from=')) && !args.includes('--dry-run');
}

/** The user-only sub-command a shell command runs through the tracker's CLI, if any. */
export function userOnlyCommandIn(command: string): string | undefined {
  // A word CLI_PROGRAM matches holds one of these, and so does the command (most commands: done here).
  if (!command.includes('agent-tracker') && !command.includes('cli/main.')) return undefined;
  for (const segment of command.split(COMMAND_BREAK)) {
    const list = words(segment);
    const start = list.findIndex((word) => CLI_PROGRAM.test(word));
    if (start < 0) continue;
    for (let i = start + 1; i < list.length; i += 1) {
      const word = list[i] as string;
      if (OPTIONS_WITH_VALUE.has(word)) {
        i += 1;
        continue;
      }
      if (word.startsWith('-')) continue;
      if (USER_ONLY_COMMANDS.has(word)) return word;
      if (word === 'backfill' && backfillsForeignHistory(list.slice(i + 1))) return FOREIGN_BACKFILL;
      break;
    }
  }
  return undefined;
}

/**
 * Whether a path is one of the tracker's files (the database, its lock, spill files and snapshots
 * beside it), for one database whose path is resolved once: a tool guard runs it on every edit.
 */
export function trackerFileCheck(databasePath: string): (filePath: string) => boolean {
  const database = path.resolve(databasePath);
  const folder = path.dirname(database);
  const name = path.basename(database);
  return (filePath) => {
    const file = path.resolve(filePath);
    return path.dirname(file) === folder && path.basename(file).startsWith(name);
  };
}

function stringArg(args: unknown, name: string): string | undefined {
  if (typeof args !== 'object' || args === null) return undefined;
  const value = (args as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * A tool guard (for `tool.execute.before`) that refuses user-only CLI commands and writes to the
 * tracker's files; the returned text tells the model to ask the user.
 */
export function userOnlyGuard(databasePath: string): (tool: string, args: unknown) => string | undefined {
  const databaseName = path.basename(databasePath);
  const isDatabaseFile = trackerFileCheck(databasePath);
  return (tool, args) => {
    if (tool === 'bash') {
      const command = stringArg(args, 'command') ?? '';
      const action = userOnlyCommandIn(command);
      if (action) {
        return (
          `"agent-tracker ${action}" is the user's decision, not an agent's. Stop and ask the user to run it ` +
          'themselves in a terminal if they agree; do not try another way.'
        );
      }
      if (command.includes(databaseName) && WRITING_COMMAND.test(command)) {
        return "The tracker's database belongs to the user; agents may not change, move or delete it. Ask the user.";
      }
      return undefined;
    }
    const file = EDITING_TOOLS.has(tool) ? stringArg(args, 'filePath') : undefined;
    if (file && isDatabaseFile(file)) {
      return "The tracker's database belongs to the user; agents may not write it. Ask the user.";
    }
    return undefined;
  };
}

/** What the CLI can tell about who runs it. */
export interface ProcessFacts {
  env: Readonly<Record<string, string | undefined>>;
  /** Whether stdin and stdout are terminals. */
  hasTty: boolean;
  /** Whether an `opencode` process is among the ancestors. */
  opencodeAncestor: boolean;
  /** The process and its ancestors as /proc tells them (provenance.ts judges them); absent: not examined. */
  ancestry?: Ancestry;
}

/** The signs that an agent runs this process, as short phrases; empty when there are none. */
export function agentSigns(facts: ProcessFacts): string[] {
  const signs: string[] = [];
  for (const name of ['AGENT', 'OPENCODE', 'OPENCODE_PID'] as const) {
    const value = facts.env[name];
    if (value !== undefined && value !== '' && value !== '0') signs.push(`${name}=${value}`);
  }
  if (facts.opencodeAncestor) signs.push('an opencode process is among its parents');
  return signs;
}

/** How a CLI request came: with or without a terminal. */
export function terminalVia(facts: ProcessFacts): UserOnlyVia {
  return facts.hasTty ? 'terminal-tty' : 'terminal-no-tty';
}

/**
 * A user-only record is suspect when it came without a terminal while a tracked session of the
 * same project was running: that is exactly what an agent getting past the checks looks like.
 */
export function isSuspectUserAction(via: UserOnlyVia, trackedSessionRunning: boolean): boolean {
  return via === 'terminal-no-tty' && trackedSessionRunning;
}

/** A tracked session counts as running when it recorded something this recently. */
export const RUNNING_SESSION_WINDOW_MS = 15 * 60 * 1000;

/** Whether a session last active at `lastAt` (ISO) is still running at `now`. */
export function sessionRunning(lastAt: string, now: Date): boolean {
  const last = Date.parse(lastAt);
  return Number.isFinite(last) && now.getTime() - last <= RUNNING_SESSION_WINDOW_MS && now.getTime() >= last - RUNNING_SESSION_WINDOW_MS;
}

/**
 * What every CLI command shares: the global flags, the resolved settings (the same resolution as
 * the plugin, including the plugin's options from the global opencode.json) and the store.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { opencodeConfigDir, resolveSessionConfig } from '../core/config.js';
import type { TrackerConfig } from '../core/config.js';
import { neutralizeControls } from '../core/report/terminal-text.js';
import { isDatabaseFile } from '../core/store/database-files.js';
import type { Store } from '../core/store/store.js';
import { pinnedPluginOptions } from '../opencode/option-trust.js';
import { readPluginOptions } from '../provisioning/opencode-json.js';
import { closest } from './suggest.js';

/** A failure the user caused or can fix: printed as one line, exit code 1. */
export class CliError extends Error {
  override name = 'CliError';
}

export interface Output {
  out(text: string): void;
  err(text: string): void;
}

/** Every line the CLI prints goes through here: text from the record cannot drive the terminal (terminal-text.ts). */
export const processOutput: Output = {
  out: (text) => process.stdout.write(neutralizeControls(text.endsWith('\n') ? text : `${text}\n`)),
  err: (text) => process.stderr.write(neutralizeControls(text.endsWith('\n') ? text : `${text}\n`)),
};

export const GLOBAL_OPTIONS = {
  db: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies ParseArgsConfig['options'];

/** Node's words for an option it does not know: `Unknown option '--jsn'`. */
const UNKNOWN_OPTION = /^Unknown option '(-{1,2})([^']*)'/;

/** Node's error for an unknown option, cut to one line that names the closest known option. */
function unknownOptionMessage(message: string, known: readonly string[]): string | undefined {
  const match = UNKNOWN_OPTION.exec(message);
  if (!match) return undefined;
  const [, dashes, name = ''] = match;
  const guess = closest(name, known);
  return `Unknown option '${dashes}${name}'. ${guess ? `Did you mean --${guess}? ` : ''}Add --help for every option.`;
}

const NEGATIVE_NUMBER = /^-\d/;

/** Whether `arg` is `--name` of an option that takes a value. */
function valueOption(options: NonNullable<ParseArgsConfig['options']>, arg: string | undefined): boolean {
  return arg !== undefined && arg.startsWith('--') && !arg.includes('=') && options[arg.slice(2)]?.type === 'string';
}

/** Parses a command's arguments (its own options plus the global ones); unknown flags are errors. */
export function parseCommandArgs<O extends ParseArgsConfig['options']>(args: string[], options: O, allowPositionals = true) {
  const all = { ...GLOBAL_OPTIONS, ...options };
  // `--max -1`: a negative number after an option that takes a value is its value (parseArgs would
  // call it ambiguous), so the option's own check can say what it accepts.
  const joined = args.flatMap((arg, i) => {
    const next = args[i + 1];
    if (i > 0 && NEGATIVE_NUMBER.test(arg) && valueOption(all, args[i - 1])) return [];
    return next !== undefined && NEGATIVE_NUMBER.test(next) && valueOption(all, arg) ? [`${arg}=${next}`] : [arg];
  });
  try {
    return parseArgs({ args: joined, options: all, allowPositionals, strict: true });
  } catch (error) {
    const message = (error as Error).message;
    throw new CliError(unknownOptionMessage(message, Object.keys(all)) ?? message);
  }
}

/**
 * The tracker's settings as the plugin would resolve them; `--db` (relative to the current folder)
 * wins over `AGENT_TRACKER_DB_PATH` and the plugin's options.
 */
export function loadConfig(dbFlag: string | undefined): TrackerConfig {
  // `--db ""` (an unset shell variable) must not quietly mean the default database.
  if (dbFlag !== undefined && dbFlag.trim() === '') throw new CliError(`--db needs the path of a database, got ${JSON.stringify(dbFlag)}`);
  let options: Record<string, unknown> = {};
  try {
    options = readPluginOptions(opencodeConfigDir()) ?? {};
  } catch (error) {
    // The tracker's options (and OpenCode's whole config) are in that file: nothing can be trusted until it parses.
    throw new CliError(`${(error as Error).message}; OpenCode cannot read it either: fix it (setup's backups are in agent-tracker-backups/ beside it), then run the command again`);
  }
  // The same pins as the plugin (`agent-tracker config`): a differing restraining option gets the stricter value.
  const pinned = pinnedPluginOptions(options);
  if (pinned.lines.length > 0) processOutput.err(`agent-tracker: ${pinned.lines.length} restraining option(s) differ from what you pinned; "agent-tracker config list" shows them.`);
  try {
    const { config, warnings } = resolveSessionConfig({ options: pinned.options });
    for (const warning of warnings) processOutput.err(warning);
    // A path typed on the command line means what the shell means: relative to the current folder.
    return dbFlag ? { ...config, databasePath: path.resolve(dbFlag) } : config;
  } catch (error) {
    throw new CliError(`agent-tracker is off: ${(error as Error).message}`);
  }
}

/** Whether nothing is at `file` (ENOENT); anything else (a file in the way of its folder, no access) is the preflight's to explain. */
export function isAbsent(file: string): boolean {
  try {
    return fs.statSync(file, { throwIfNoEntry: false }) === undefined;
  } catch {
    return false;
  }
}

/**
 * Readers (status, report, doctor, ...) open the database read-only; `update` writes to a database that
 * must exist already (revive, review: changing what is recorded); writers may create it.
 */
export type StoreAccess = 'read' | 'update' | 'write';

/** The one line a reader prints when its path holds no database: it creates nothing there. */
export function noDatabaseMessage(databasePath: string): string {
  return `no agent-tracker database at ${databasePath}: nothing is recorded there yet. Check --db (or AGENT_TRACKER_DB_PATH), or import OpenCode's past sessions with "agent-tracker backfill"`;
}

/** Refuses a file the CLI would write for the user (an export, a page) when it is the database's own file. */
export function refuseDatabaseFile(target: string, databasePath: string, example: string): void {
  if (isDatabaseFile(target, databasePath)) {
    throw new CliError(`refusing to write ${target}: it is a file of the agent-tracker database ${databasePath}, which this would replace; choose another name, such as ${example}`);
  }
}

/**
 * Opens the configured database (checked first, and read in a child process when it changed since
 * it was last verified: a damaged file never crashes the CLI), runs `action`, and always closes it.
 * `read` opens it read-only and never creates it: a missing file is a CliError and nothing is
 * written; so is it for `update`, which then opens it to write. A file of a newer schema is only
 * read: one warning line, and any write fails with that line (printed once: see repeatsWarning).
 */
export async function withStore<T>(config: TrackerConfig, action: (store: Store) => T | Promise<T>, access: StoreAccess = 'write'): Promise<T> {
  const readOnly = access === 'read';
  if (access !== 'write' && isAbsent(config.databasePath)) throw new CliError(noDatabaseMessage(config.databasePath));
  // Loaded here, not with this module: `--help` and argument errors never load lmdb.
  const [{ openCheckedSync }, { termIndexer }] = await Promise.all([
    import('../core/store/open-checked.js'),
    // Only a writer keeps the term index in step; a reader never loads it.
    readOnly ? Promise.resolve({ termIndexer: undefined }) : import('../core/search/indexer.js'),
  ]);
  const openStore = (asReader: boolean): Store => {
    try {
      return openCheckedSync({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, ...(termIndexer ? { indexer: termIndexer } : {}), ...(asReader ? { readOnly: true } : {}) });
    } catch (error) {
      throw new CliError(`agent-tracker is off: ${(error as Error).message}`);
    }
  };
  let store = openStore(readOnly);
  if (store.olderSchema) store = await stampedForReading(store, openStore);
  if (store.refusal) warnOnce(store.refusal);
  try {
    const result = await action(store);
    if (!readOnly) await keepVerified(store);
    return result;
  } finally {
    store.close();
  }
}

/** Warnings printed by this run: a command that opens the database twice says it once. */
const warned = new Set<string>();

function warnOnce(message: string): void {
  if (warned.has(message)) return;
  warned.add(message);
  processOutput.err(`agent-tracker: ${message}`);
}

/** The warnings printed so far, to hand to a worker thread of the same run (its module state is its own). */
export function printedWarnings(): string[] {
  return [...warned];
}

/** Takes the warnings the thread that started this one printed already. */
export function notePrintedWarnings(messages: readonly string[]): void {
  for (const message of messages) warned.add(message);
}

/** Whether an error's message only repeats a warning this run printed already (then it is not printed again). */
export function repeatsWarning(message: string): boolean {
  return [...warned].some((warning) => message.includes(warning));
}

/**
 * A file of an earlier schema, opened to read: stamped first by one writable open (what the new
 * schema counts, such as commits graded by both, is counted then), so the answer is the one a writer
 * would see. A file that cannot be written is read as it is.
 */
async function stampedForReading(store: Store, openStore: (asReader: boolean) => Store): Promise<Store> {
  store.close();
  let writer: Store | undefined;
  try {
    writer = openStore(false);
    await keepVerified(writer);
  } catch {
    // Not writable here (a read-only copy, another user's file): read it unstamped.
  } finally {
    writer?.close();
  }
  return openStore(true);
}

/**
 * After a writer's clean commits the file stays verified, as after a plugin session (verify.ts):
 * its pages were verified at open and lmdb wrote the rest. Without this, the next command would
 * read the whole file again in a child process (seconds after a large backfill).
 */
async function keepVerified(store: Store): Promise<void> {
  if (!store.attached || store.refusal) return;
  const [{ recordVerified }, { salvagedCounts }] = await Promise.all([import('../core/store/verify.js'), import('../core/store/salvage.js')]);
  recordVerified(store.path, salvagedCounts(store.tables));
}

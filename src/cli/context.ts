/**
 * What every CLI command shares: the global flags, the resolved settings (the same resolution as
 * the plugin, including the plugin's options from the global opencode.json) and the store.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { opencodeConfigDir, resolveSessionConfig } from '../core/config.js';
import type { TrackerConfig } from '../core/config.js';
import { neutralizeControls } from '../core/report/terminal-text.js';
import type { Store } from '../core/store/store.js';
import { pinnedPluginOptions } from '../opencode/option-trust.js';
import { readPluginOptions } from '../setup/opencode-json.js';
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

/** Parses a command's arguments (its own options plus the global ones); unknown flags are errors. */
export function parseCommandArgs<O extends ParseArgsConfig['options']>(args: string[], options: O, allowPositionals = true) {
  const all = { ...GLOBAL_OPTIONS, ...options };
  try {
    return parseArgs({ args, options: all, allowPositionals, strict: true });
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
  let options: Record<string, unknown> = {};
  try {
    options = readPluginOptions(opencodeConfigDir()) ?? {};
  } catch (error) {
    throw new CliError((error as Error).message);
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

/**
 * Opens the configured database (checked first, and read in a child process when it changed since
 * it was last verified: a damaged file never crashes the CLI), runs `action`, and always closes it.
 * A file of a newer schema is only read: one warning line, and any write fails with that line.
 */
export async function withStore<T>(config: TrackerConfig, action: (store: Store) => T | Promise<T>): Promise<T> {
  // Loaded here, not with this module: `--help` and argument errors never load lmdb.
  const [{ openCheckedSync }, { termIndexer }] = await Promise.all([import('../core/store/open-checked.js'), import('../core/query/indexer.js')]);
  let store: Store;
  try {
    // Every command that writes (import, migrate, backfill, grade, ...) keeps the term index in step.
    store = openCheckedSync({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
  } catch (error) {
    throw new CliError(`agent-tracker is off: ${(error as Error).message}`);
  }
  if (store.refusal) processOutput.err(`agent-tracker: ${store.refusal}`);
  try {
    return await action(store);
  } finally {
    store.close();
  }
}

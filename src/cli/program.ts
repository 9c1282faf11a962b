/**
 * `agent-tracker <command> [options]`: exit 0 on success, 1 on error with one clear line.
 * Commands load lazily, one file each, so `status` never pays for `report`. Separate from the bin
 * entry (main.ts) so tests run the CLI in-process.
 */
import { COMMAND_SPECS } from './command-specs.js';
import { CliError, processOutput, repeatsWarning } from './context.js';
import type { Output } from './context.js';
import { commandHelp, shortHelp } from './help.js';
import { closest } from './suggest.js';
import { packageVersion } from '../provisioning/package-root.js';

export type { CommandRun as Command } from './command-specs.js';

const HELP_WORDS = new Set(['--help', '-h', 'help']);
const VERSION_WORDS = new Set(['--version', '-V', 'version']);

function unknownCommand(name: string): string {
  const guess = closest(name, Object.keys(COMMAND_SPECS));
  return `agent-tracker: unknown command ${JSON.stringify(name)}.${guess ? ` Did you mean "${guess}"?` : ''} Run "agent-tracker --help" for the list.`;
}

export async function main(argv: string[], output: Output = processOutput): Promise<number> {
  const [name, ...args] = argv;
  // Bare `agent-tracker` is a question, not a mistake: the short help, exit 0.
  if (name === undefined || HELP_WORDS.has(name)) {
    const topic = name === undefined ? undefined : args[0];
    const spec = topic !== undefined && Object.hasOwn(COMMAND_SPECS, topic) ? COMMAND_SPECS[topic] : undefined;
    output.out(spec && topic ? commandHelp(topic, spec) : shortHelp());
    return 0;
  }
  if (VERSION_WORDS.has(name)) {
    output.out(`agent-tracker ${packageVersion()}`);
    return 0;
  }
  // Own keys only: "constructor" and friends are not commands.
  const spec = Object.hasOwn(COMMAND_SPECS, name) ? COMMAND_SPECS[name] : undefined;
  if (!spec) {
    output.err(unknownCommand(name));
    return 1;
  }
  // Options end at `--`: after it `--help` is a word (`prior-art -- --help` searches for it).
  const end = args.indexOf('--');
  const options = end === -1 ? args : args.slice(0, end);
  if (options.includes('--help') || options.includes('-h')) {
    output.out(commandHelp(name, spec));
    return 0;
  }
  try {
    const { run } = await spec.load();
    await run(args, output);
    return 0;
  } catch (error) {
    const message = error instanceof CliError ? error.message : `${(error as Error).message ?? String(error)}`;
    // The warning already printed says it (a write to a database of a newer schema): one line, not two.
    if (repeatsWarning(message)) return 1;
    // One line, as the CLI contract promises (Node's argument errors span several).
    output.err(`agent-tracker ${name}: ${message.replace(/\s*\n\s*/g, ' ').trim()}`);
    return 1;
  }
}

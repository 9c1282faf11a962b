/**
 * The help text, rendered from the one table of command specs (src/cli/command-specs.ts): the short
 * list of commands, and per command every option with its default and examples.
 */
import { COMMAND_SPECS, GLOBAL_OPTION_SPECS } from './command-specs.js';
import type { CommandSpec, OptionSpec } from './command-specs.js';

/** The column where option descriptions start. */
const OPTION_COLUMN = 28;

function optionLine(option: OptionSpec): string {
  const flag = `  --${option.name}${option.value ? ` ${option.value}` : ''}`;
  const about = `${option.about}${option.default ? ` (default: ${option.default})` : ''}`;
  return flag.length < OPTION_COLUMN ? `${flag.padEnd(OPTION_COLUMN)}${about}` : `${flag}\n${' '.repeat(OPTION_COLUMN)}${about}`;
}

/** `agent-tracker` with no command, or `--help`: every command on one line, and where to read more. */
export function shortHelp(): string {
  const width = Math.max(...Object.keys(COMMAND_SPECS).map((name) => name.length)) + 2;
  return [
    'usage: agent-tracker <command> [options]',
    '',
    'commands:',
    ...Object.entries(COMMAND_SPECS).map(([name, spec]) => `  ${name.padEnd(width)}${spec.about}`),
    '',
    'options of every command:',
    ...GLOBAL_OPTION_SPECS.map(optionLine),
    '',
    'agent-tracker <command> --help   every option of a command, its default and examples',
    'agent-tracker --version          the installed version',
    'start with: agent-tracker report, then agent-tracker recommend',
  ].join('\n');
}

/** One command's help: usage, what it does, every option with its default, examples. */
export function commandHelp(name: string, spec: CommandSpec): string {
  return [
    `usage: agent-tracker ${name}${spec.args ? ` ${spec.args}` : ''} [options]`,
    spec.about,
    '',
    'options:',
    ...spec.options.map(optionLine),
    ...GLOBAL_OPTION_SPECS.map(optionLine),
    '',
    'examples:',
    ...spec.examples.map((example) => `  ${example}`),
  ].join('\n');
}

#!/usr/bin/env node
/**
 * `agent-tracker <command> [--db PATH] [--json]`: exit 0 on success, 1 on error with one clear line.
 * Commands load lazily, one file each, so `status` never pays for `report`.
 */
import { CliError, processOutput } from './context.js';
import type { Output } from './context.js';

export type Command = (args: string[], output: Output) => Promise<void>;

const COMMANDS: Record<string, { usage: string; about: string; load: () => Promise<{ run: Command }> }> = {
  status: { usage: 'status [AGENT] [--json]', about: 'health sheet of one or all agents', load: () => import('./commands/status.js') },
  doctor: { usage: 'doctor [--json]', about: 'database path, size, schema, counts, flushes', load: () => import('./commands/doctor.js') },
  'prior-art': { usage: 'prior-art "TEXT" [--project PATH] [--scope S] [--agent A] [--max N] [--json]', about: 'what worked and what failed before', load: () => import('./commands/prior-art.js') },
  setup: { usage: 'setup [--dry-run] [--json] [--mcp opencode|claude-code]', about: 'set up OpenCode: plugin folder, config entry, skills, agents, AGENTS.md (--mcp: register the MCP server with a client)', load: () => import('./commands/setup.js') },
  'init-project': { usage: 'init-project [PATH] [--json]', about: 'classify a project folder and store its profile', load: () => import('./commands/init-project.js') },
  migrate: { usage: 'migrate [DIR] [--json]', about: 'merge a legacy DIR/~/.config/opencode database', load: () => import('./commands/migrate.js') },
  grade: { usage: 'grade COMMIT N [--note TEXT] [--project PATH] [--json]', about: "your own grade (-1, 1, 2, 5) of a commit a tracked session made", load: () => import('./commands/grade.js') },
  revive: { usage: 'revive AGENT [--json]', about: 'put a halted agent back to work (SP 1)', load: () => import('./commands/revive.js') },
  report: { usage: 'report [--project P] [--since ISO] [--source live|backfill] [--by agent|model|project] [--json|--csv] [--html FILE]', about: 'outcomes per agent x model', load: () => import('./commands/report.js') },
  recommend: { usage: 'recommend [--project PATH] [--prefer quality|balanced|cheap] [--json] [--apply [--global] [--dry-run] [--yes] [--include-uncertain]] [--backtest]', about: 'the best model per agent for a project, --apply to write it into opencode.json, --backtest to replay your history', load: () => import('./commands/recommend.js') },
  export: { usage: 'export [FILE]', about: 'all records as NDJSON (stdout without FILE)', load: () => import('./commands/export.js') },
  import: { usage: 'import FILE', about: 'merge an export: only absent records are added', load: () => import('./commands/import.js') },
  mcp: { usage: 'mcp', about: 'serve the read-only tools (report, recommend, prior_art, status, project_profile) to MCP clients over stdio', load: () => import('./commands/mcp.js') },
  repair: { usage: 'repair [--dry-run] [--json]', about: 'rebuild a damaged database from what can be read and the newest snapshot', load: () => import('./commands/repair.js') },
  backfill: { usage: 'backfill [--since ISO] [--project PATH] [--from DIR] [--dry-run] [--json]', about: "import OpenCode's past sessions (read-only); running it again adds nothing twice", load: () => import('./commands/backfill.js') },
};

function usage(): string {
  return [
    'usage: agent-tracker <command> [--db PATH] [--json]',
    '',
    'commands:',
    ...Object.values(COMMANDS).flatMap((command) => [`  ${command.usage}`, `      ${command.about}`]),
  ].join('\n');
}

export async function main(argv: string[], output: Output = processOutput): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    output.out(usage());
    return name ? 0 : 1;
  }
  // Own keys only: "constructor" and friends are not commands.
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    output.err(`agent-tracker: unknown command ${JSON.stringify(name)}. Run "agent-tracker --help" for the list.`);
    return 1;
  }
  if (args.includes('--help') || args.includes('-h')) {
    output.out(`usage: agent-tracker ${command.usage} [--db PATH]\n${command.about}`);
    return 0;
  }
  try {
    const { run } = await command.load();
    await run(args, output);
    return 0;
  } catch (error) {
    const message = error instanceof CliError ? error.message : `${(error as Error).message ?? String(error)}`;
    // One line, as the CLI contract promises (Node's argument errors span several).
    output.err(`agent-tracker ${name}: ${message.replace(/\s*\n\s*/g, ' ').trim()}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));

#!/usr/bin/env node
/**
 * `agent-tracker <command> [--db PATH] [--json]`: exit 0 on success, 1 on error with one clear line.
 * Commands load lazily, one file each, so `status` never pays for `report`.
 */
import { CliError, processOutput } from './context.js';
import type { Output } from './context.js';

export type Command = (args: string[], output: Output) => Promise<void>;

const COMMANDS: Record<string, { summary: string; load: () => Promise<{ run: Command }> }> = {
  status: { summary: 'status [AGENT] [--json]            health sheet of one or all agents', load: () => import('./commands/status.js') },
  doctor: { summary: 'doctor [--json]                    database path, size, schema, counts, flushes', load: () => import('./commands/doctor.js') },
  'prior-art': { summary: 'prior-art "TEXT" [--project PATH] [--scope S] [--agent A] [--max N] [--json]  what worked and what failed before', load: () => import('./commands/prior-art.js') },
  setup: { summary: 'setup [--dry-run] [--json]         set up OpenCode: plugin folder, config entry, skills, agents, AGENTS.md', load: () => import('./commands/setup.js') },
  'init-project': { summary: 'init-project [PATH] [--json]       classify a project folder and store its profile', load: () => import('./commands/init-project.js') },
  migrate: { summary: 'migrate [DIR] [--json]             merge a legacy DIR/~/.config/opencode database', load: () => import('./commands/migrate.js') },
  revive: { summary: 'revive AGENT [--json]              put a halted agent back to work (SP 1)', load: () => import('./commands/revive.js') },
  report: { summary: 'report [--project P] [--since ISO] [--by agent|model|project] [--json|--csv] [--html FILE]  outcomes per agent x model', load: () => import('./commands/report.js') },
  recommend: { summary: 'recommend [--project PATH] [--json]  the best agent x model setup for a project', load: () => import('./commands/recommend.js') },
  export: { summary: 'export [FILE]                      all records as NDJSON (stdout without FILE)', load: () => import('./commands/export.js') },
  import: { summary: 'import FILE                        merge an export: only absent records are added', load: () => import('./commands/import.js') },
};

function usage(): string {
  return [
    'usage: agent-tracker <command> [--db PATH] [--json]',
    '',
    'commands:',
    ...Object.values(COMMANDS).map((command) => `  ${command.summary}`),
  ].join('\n');
}

export async function main(argv: string[], output: Output = processOutput): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    output.out(usage());
    return name ? 0 : 1;
  }
  const command = COMMANDS[name];
  if (!command) {
    output.err(`agent-tracker: unknown command "${name}". Run "agent-tracker --help" for the list.`);
    return 1;
  }
  try {
    const { run } = await command.load();
    await run(args, output);
    return 0;
  } catch (error) {
    const message = error instanceof CliError ? error.message : `${(error as Error).message ?? String(error)}`;
    output.err(`agent-tracker ${name}: ${message}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));

/**
 * `agent-tracker mcp [--db PATH]`: serves the tracker's read-only tools (report, recommend,
 * prior_art, status, project_profile) over stdio to any MCP client, until the client hangs up.
 * Register it with `agent-tracker setup --mcp opencode|claude-code`.
 */
import path from 'node:path';
import { packageVersion } from '../../provisioning/package-root.js';
import { CliError, parseCommandArgs } from '../context.js';
import type { Output } from '../context.js';

export async function run(args: string[], _output: Output): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, {}, false);
  if (positionals.length > 0) throw new CliError(`takes no positional arguments, got "${positionals[0]}"`);
  // The server speaks JSON-RPC on stdout; a JSON document (--json) is not something it can print.
  if (values.json) throw new CliError('mcp speaks the MCP protocol on stdout; --json does not apply (the tools already answer in JSON)');
  // stdout is the protocol's channel: nothing else may be printed on it.
  const { serveStdio } = await import('../../mcp/server.js');
  await serveStdio({ version: packageVersion(), ...(values.db ? { db: path.resolve(values.db) } : {}) });
}

/**
 * `agent-tracker setup [--dry-run] [--json]`: the same provisioning as `npm install` runs.
 * `agent-tracker setup --mcp opencode|claude-code [--dry-run]`: registers the MCP server with that client instead.
 */
import { opencodeConfigDir } from '../../core/config.js';
import { formatReport, isInteractive, provision } from '../../provisioning/index.js';
import { CliError, parseCommandArgs } from '../context.js';
import type { Output } from '../context.js';

async function registerMcp(client: string, dryRun: boolean, json: boolean, output: Output): Promise<void> {
  const { MCP_CLIENTS, registerMcpServer } = await import('../../provisioning/mcp-clients.js');
  const known = (MCP_CLIENTS as readonly string[]).includes(client);
  if (!known) throw new CliError(`--mcp must be one of ${MCP_CLIENTS.join(', ')}, got "${client}"`);
  let registration;
  try {
    registration = registerMcpServer(client as (typeof MCP_CLIENTS)[number], { configDir: opencodeConfigDir(), dryRun });
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  output.out(json ? JSON.stringify(registration, null, 2) : [registration.message, ...(registration.backup ? [`backup: ${registration.backup}`] : [])].join('\n'));
}

export async function run(args: string[], output: Output): Promise<void> {
  const { values } = parseCommandArgs(args, { 'dry-run': { type: 'boolean', default: false }, mcp: { type: 'string' } }, false);
  if (values.mcp !== undefined) return registerMcp(values.mcp, values['dry-run'], values.json, output);
  const report = provision({ dryRun: values['dry-run'] });
  const blocked = report.steps.find((step) => step.step === 'config-folder' && step.status === 'failed');
  if (blocked && !values.json) throw new CliError(blocked.messages.join('; '));
  if (values.json) {
    output.out(JSON.stringify(report, null, 2));
  } else {
    // Someone typed this command, so they get the details even without a terminal on stdin.
    const { out, err } = formatReport(report, isInteractive(process.env, true));
    output.out(out);
    if (err) output.err(err);
  }
  const failed = report.steps.filter((step) => step.status === 'failed').map((step) => step.step);
  if (blocked) throw new CliError(blocked.messages.join('; '));
  if (failed.length > 0) throw new CliError(`${failed.join(', ')} failed (the other steps ran); see the messages above`);
}

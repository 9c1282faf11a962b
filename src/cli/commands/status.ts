/**
 * `agent-tracker status [AGENT] [--json]`: the health sheet of one agent or of all, with the
 * pending changes of the git repository in the current folder when there is one.
 */
import { agentSummaries } from '../../core/report/status.js';
import { CliError, loadConfig, parseCommandArgs, withStore } from '../context.js';
import type { Output } from '../context.js';

export async function run(args: string[], output: Output): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, {});
  if (positionals.length > 1) throw new CliError('expects at most one AGENT name');
  const agent = positionals[0];
  const config = loadConfig(values.db);
  const summaries = await withStore(config, (store) => agentSummaries(store, config.rules, agent), 'read');
  if (agent && summaries.length === 0) throw new CliError(`no agent named "${agent}" has been tracked yet`);
  if (values.json) {
    output.out(JSON.stringify({ agents: summaries }, null, 2));
    return;
  }
  if (summaries.length === 0) {
    output.out('No agents tracked yet. Work in OpenCode with the agent-tracker plugin enabled, then look again.');
    return;
  }
  // The sheet (figlet and its fonts) and git load only for the text output.
  const [{ readWorkingTreeChanges }, { formatHealthStatus }] = await Promise.all([import('../../core/projects/git.js'), import('../../core/report/sheet.js')]);
  const pendingChanges = await readWorkingTreeChanges(process.cwd());
  const details = pendingChanges ? { pendingChanges } : {};
  output.out(summaries.map((summary) => formatHealthStatus(summary, details)).join('\n\n'));
}

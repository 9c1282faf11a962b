/**
 * `agent-tracker status [AGENT] [--json]`: the health sheet of one agent or of all, with the models
 * each worked with; the figures are the status answer's (src/core/answers/status.ts).
 */
import { statusAnswer } from '../../core/answers/status.js';
import { formatSuspectUserActions, suspectUserActions } from '../../core/integrity/suspect-actions.js';
import { CliError, loadConfig, parseCommandArgs, withStore } from '../context.js';
import type { Output } from '../context.js';

export async function run(args: string[], output: Output): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, {});
  if (positionals.length > 1) throw new CliError('expects at most one AGENT name');
  const agent = positionals[0];
  const config = loadConfig(values.db);
  // Suspect user-only records (a held revive among them) are named under the sheet until reviewed.
  const { answer, suspect } = await withStore(config, (store) => ({ answer: statusAnswer(store, config.rules, agent), suspect: suspectUserActions(store) }), 'read');
  if (agent && answer.agents.length === 0) throw new CliError(`no agent named "${agent}" has been tracked yet`);
  if (values.json) {
    output.out(JSON.stringify(answer, null, 2));
    return;
  }
  if (answer.agents.length === 0) {
    output.out('No agents tracked yet. Work in OpenCode with the agent-tracker plugin enabled, then look again.');
    return;
  }
  // The sheet (figlet and its fonts) loads only for the text output, with the pending changes of the
  // repository in the current folder (none outside one).
  const [{ formatHealthStatus }, { readWorkingTreeChanges }] = await Promise.all([import('../../core/report/sheet.js'), import('../../core/projects/git.js')]);
  const pendingChanges = await readWorkingTreeChanges(process.cwd());
  const footer = formatSuspectUserActions(suspect);
  const sheets = answer.agents.map((summary) => formatHealthStatus(summary, { models: summary.models, ...(pendingChanges ? { pendingChanges } : {}) }));
  output.out(sheets.join('\n\n') + (footer ? `\n\n${footer}` : ''));
}

/**
 * `agent-tracker revive AGENT [--json]`: the user's decision to put a halted agent back to work.
 * SP becomes 1 and the halt is cleared; XP and CS are kept. An agent that is not halted is left alone.
 * A suspect revive (provenance says an agent could have made it) is recorded and lifts nothing until
 * the user confirms it with `agent-tracker review`.
 */
import { silentLogger } from '../../core/logger.js';
import { formatHealthStatus } from '../../core/report/sheet.js';
import { TrackingService } from '../../core/tracking/service.js';
import { InputError } from '../../core/validation.js';
import * as valid from '../../core/validation.js';
import { heldReviveSummary, suspectId } from '../../core/integrity/suspect-actions.js';
import type { AgentStatus } from '../../core/types.js';
import { CliError, loadConfig, parseCommandArgs, withStore } from '../context.js';
import type { Output } from '../context.js';
import { confirmUserOnly } from '../user-only.js';

/** What a revive did: revived, left alone (not halted), or held as suspect until the user reviews it. */
interface ReviveResult {
  status: AgentStatus;
  revived: boolean;
  /** The suspect record's id: the halt stays until `agent-tracker review --confirm ID`. */
  heldForReview?: string;
  /** Why the revive was held (its provenance's signs). */
  signs?: string[];
}

export async function run(args: string[], output: Output): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, {});
  if (positionals.length !== 1) throw new CliError('expects exactly one AGENT name, e.g. agent-tracker revive build');
  const config = loadConfig(values.db);
  const result = await withStore(config, (store): ReviveResult => {
    const project = process.cwd();
    const provenance = confirmUserOnly('revive', { store, project });
    const service = new TrackingService({ store, config, logger: silentLogger, project });
    try {
      if (provenance.suspect) {
        // A revive an agent could have made lifts nothing: the halt stays until the user confirms it.
        const agent = valid.agentName(positionals[0]);
        if (!service.knowsAgent(agent)) throw new InputError(`no agent named "${agent}" has been tracked yet; check the name with: agent-tracker status`);
        const status = service.getAgentStatus(agent);
        if (!status.halted) return { status, revived: false };
        const key = service.recordUserAction({ agent: status.id, project, summary: heldReviveSummary(status.id, provenance.via), provenance });
        const outcome = service.flush('user action');
        if (!outcome.ok) throw outcome.error;
        return { status, revived: false, heldForReview: suspectId('activities', key), ...(provenance.signs ? { signs: provenance.signs } : {}) };
      }
      const result = service.revive(positionals[0]);
      if (result.revived) {
        service.recordUserAction({ agent: result.status.id, project, summary: `User revived ${result.status.id} (${provenance.via})`, provenance });
        const outcome = service.flush('user action');
        if (!outcome.ok) throw outcome.error;
      }
      return result;
    } catch (error) {
      if (error instanceof InputError) throw new CliError(error.message);
      throw error;
    }
    // No database there: no agent to revive, and none is created.
  }, 'update');
  if (values.json) {
    output.out(JSON.stringify({ revived: result.revived, agent: result.status, ...(result.heldForReview ? { heldForReview: result.heldForReview } : {}) }, null, 2));
    return;
  }
  const headline = result.heldForReview
    ? `${result.status.id} stays halted: this revive came the way an agent's would${result.signs ? ` (${result.signs.join('; ')})` : ''}, so it is recorded as suspect ${result.heldForReview}. ` +
      `If you made it, run "agent-tracker review --confirm ${result.heldForReview}" in a terminal outside OpenCode.`
    : result.revived
      ? `${result.status.id} is revived: SP ${result.status.sp}, XP and CS kept.`
      : `${result.status.id} is not halted; nothing changed.`;
  output.out(`${headline}\n\n${formatHealthStatus(result.status)}`);
}

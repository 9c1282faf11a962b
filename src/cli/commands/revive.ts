/**
 * `agent-tracker revive AGENT [--json]`: the user's decision to put a halted agent back to work.
 * SP becomes 1 and the halt is cleared; XP and CS are kept. An agent that is not halted is left alone.
 */
import { silentLogger } from '../../core/logger.js';
import { formatHealthStatus } from '../../core/report/sheet.js';
import { TrackingService } from '../../core/tracking/service.js';
import { InputError } from '../../core/validation.js';
import { CliError, loadConfig, parseCommandArgs, withStore } from '../context.js';
import type { Output } from '../context.js';
import { confirmUserOnly } from '../user-only.js';

export async function run(args: string[], output: Output): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, {});
  if (positionals.length !== 1) throw new CliError('expects exactly one AGENT name, e.g. agent-tracker revive build');
  const config = loadConfig(values.db);
  const result = await withStore(config, (store) => {
    const project = process.cwd();
    const provenance = confirmUserOnly('revive', { store, project });
    const service = new TrackingService({ store, config, logger: silentLogger, project });
    try {
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
  });
  if (values.json) {
    output.out(JSON.stringify({ revived: result.revived, agent: result.status }, null, 2));
    return;
  }
  const headline = result.revived
    ? `${result.status.id} is revived: SP ${result.status.sp}, XP and CS kept.`
    : `${result.status.id} is not halted; nothing changed.`;
  output.out(`${headline}\n\n${formatHealthStatus(result.status)}`);
}

/**
 * `agent-tracker repair [--dry-run] [--json]`: rebuilds a damaged database from every record that can
 * still be read (crash-isolated) plus the newest good snapshot; the damaged file is kept aside.
 * Close OpenCode first: a session that has the old file open keeps writing to it.
 */
import type { TrackerConfig } from '../../core/config.js';
import { silentLogger } from '../../core/logger.js';
import { termIndexer } from '../../core/search/indexer.js';
import { repairDatabase } from '../../core/store/repair.js';
import type { RefillStep, RepairReport } from '../../core/store/repair.js';
import { TrackingService } from '../../core/tracking/service.js';
import { historyMasker } from '../../opencode/history/history-masker.js';
import { importHistory } from '../../opencode/history/import.js';
import { NoHistoryError, opencodeDataDir } from '../../opencode/history/locate.js';
import { CliError, loadConfig, parseCommandArgs } from '../context.js';
import { refuseUnderAgent } from '../user-only.js';
import type { Output } from '../context.js';

/**
 * Refills the fresh database from OpenCode's own history (the backfill, all of it): sessions,
 * tokens, tool calls, commits and pushes the damage took. Replay counts each host event once, so
 * what was salvaged is not counted twice. A history that cannot be read, or the importHistory option
 * turned off, leaves repair's result as is.
 */
function historyRefill(config: TrackerConfig, location = opencodeDataDir()): RefillStep {
  return async (store) => {
    if (!config.importHistory) return { name: `session(s): importing OpenCode's history is turned off (importHistory)`, added: 0 };
    // Masked as every import masks what it stores (history-masker.ts).
    const masker = config.protectEnvFiles ? await historyMasker(store, undefined) : undefined;
    const service = new TrackingService({ store, config, logger: silentLogger, project: process.cwd(), ...(masker ? { maskText: masker.mask } : {}) });
    try {
      const outcome = await importHistory(service, location, { full: true, ...(masker ? { beforeProject: masker.learnProject } : {}) });
      return { name: `session(s) replayed from OpenCode's history at ${location}`, added: outcome.upToDate ? 0 : outcome.summary.sessions };
    } catch (error) {
      const why = error instanceof NoHistoryError ? 'none found' : `not readable: ${(error as Error).message}`;
      return { name: `session(s): OpenCode's history at ${location} ${why}`, added: 0 };
    }
  };
}

function describe(report: RepairReport): string {
  const rows = Object.entries(report.tables).map(
    ([table, counts]) =>
      `  ${table.padEnd(15)}${String(counts.kept).padStart(8)}${String(counts.recovered).padStart(11)}${String(counts.lost ?? 'unknown').padStart(9)}`,
  );
  return [
    `${report.dryRun ? 'repair (dry run: nothing written) of' : 'repaired'} ${report.database}`,
    `snapshot merged  ${report.snapshot ?? 'none (no snapshot passed its check)'}`,
    ...(report.damagedFileKeptAt ? [`damaged file     kept at ${report.damagedFileKeptAt}`] : []),
    ...report.refilled.map((step) => `refilled         ${step.added} ${step.name}`),
    `  ${'records'.padEnd(15)}${'kept'.padStart(8)}${'recovered'.padStart(11)}${'lost'.padStart(9)}`,
    ...rows,
  ].join('\n');
}

export async function run(args: string[], output: Output): Promise<void> {
  const { values } = parseCommandArgs(args, { 'dry-run': { type: 'boolean', default: false } }, false);
  const config = loadConfig(values.db);
  // Replacing the database is the user's decision; a dry run changes nothing and stays open to anyone.
  if (!values['dry-run']) refuseUnderAgent('repair');
  let report: RepairReport;
  try {
    report = await repairDatabase({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, dryRun: values['dry-run'], refill: [historyRefill(config)], indexer: termIndexer });
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  output.out(values.json ? JSON.stringify(report, null, 2) : describe(report));
}

/**
 * `agent-tracker repair [--dry-run] [--json]`: rebuilds a damaged database from every record that can
 * still be read (crash-isolated) plus the newest good snapshot; the damaged file is kept aside.
 * Close OpenCode first: a session that has the old file open keeps writing to it.
 */
import { repairDatabase } from '../../core/store/repair.js';
import type { RefillStep, RepairReport } from '../../core/store/repair.js';
import { CliError, loadConfig, parseCommandArgs } from '../context.js';
import type { Output } from '../context.js';

/**
 * The refill steps repair runs on the fresh database. The import from OpenCode's own history
 * store (backfill) belongs here: it refills what neither the file nor the snapshot had.
 */
export const REFILL_STEPS: readonly RefillStep[] = [];

function describe(report: RepairReport): string {
  const rows = Object.entries(report.tables).map(
    ([table, counts]) =>
      `  ${table.padEnd(15)}${String(counts.kept).padStart(8)}${String(counts.recovered).padStart(11)}${String(counts.lost ?? 'unknown').padStart(9)}`,
  );
  return [
    `${report.dryRun ? 'repair (dry run: nothing written) of' : 'repaired'} ${report.database}`,
    `snapshot merged  ${report.snapshot ?? 'none (no snapshot passed its check)'}`,
    ...(report.damagedFileKeptAt ? [`damaged file     kept at ${report.damagedFileKeptAt}`] : []),
    ...report.refilled.map((step) => `refilled         ${step.added} record(s) from ${step.name}`),
    `  ${'records'.padEnd(15)}${'kept'.padStart(8)}${'recovered'.padStart(11)}${'lost'.padStart(9)}`,
    ...rows,
  ].join('\n');
}

export async function run(args: string[], output: Output): Promise<void> {
  const { values } = parseCommandArgs(args, { 'dry-run': { type: 'boolean', default: false } }, false);
  const config = loadConfig(values.db);
  let report: RepairReport;
  try {
    report = repairDatabase({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, dryRun: values['dry-run'], refill: REFILL_STEPS });
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  output.out(values.json ? JSON.stringify(report, null, 2) : describe(report));
}

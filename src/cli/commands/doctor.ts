/** `agent-tracker doctor [--json]`: where the database is, how big it may get, what it holds. */
import { opencodeConfigDir } from '../../core/config.js';
import { opencodeDataDir } from '../../opencode/history/locate.js';
import { describeHistoryLayout } from '../../opencode/history/v2-open.js';
import { cliCommand } from '../../provisioning/cli-location.js';
import { databaseHealthAnswer } from '../../core/answers/doctor.js';
import { describeCapacity } from '../../core/store/size-limit.js';
import { describeProvisioning, inspectProvisioning } from '../../provisioning/inspect.js';
import { backupFolder, listBackups } from '../../provisioning/backups.js';
import path from 'node:path';
import { packageRoot } from '../../provisioning/package-root.js';
import { inspectItems } from '../../provisioning/presence.js';
import { describeChainCheck } from '../../core/integrity/chain-check.js';
import { formatSuspectUserActions } from '../../core/integrity/suspect-actions.js';
import { loadConfig, parseCommandArgs, withStore } from '../context.js';
import type { Output } from '../context.js';
import { kindNote } from '../record-kinds.js';

/** Items the plugin recorded as provisioned that are gone now: it will not put them back. Doctor never fails on it. */
function removedByUser(configDir: string, recorded: ReadonlySet<string>): string[] {
  try {
    return inspectItems(configDir, packageRoot())
      .filter((item) => !item.present && recorded.has(item.id))
      .map((item) => item.id);
  } catch {
    return [];
  }
}

export async function run(args: string[], output: Output): Promise<void> {
  const { values } = parseCommandArgs(args, {}, false);
  const config = loadConfig(values.db);
  const configDir = opencodeConfigDir();
  const { recordedItems, ...health } = await withStore(config, (store) => databaseHealthAnswer(store, config, configDir, Date.now()), 'read');
  const report = { ...health, removedByUser: removedByUser(configDir, new Set(recordedItems)) };
  // What setup has put in place in the OpenCode config folder (src/provisioning/inspect.ts).
  const provisioning = inspectProvisioning(configDir);
  const history = await describeHistoryLayout(opencodeDataDir());
  // The old text of every config file the tracker replaced (setup, recommend --apply).
  const backups = { folder: backupFolder(configDir), files: listBackups(backupFolder(configDir)) };
  if (values.json) {
    output.out(JSON.stringify({ ...report, provisioning, history, backups, cli: cliCommand() }, null, 2));
    return;
  }
  const lines = [
    `database        ${report.databasePath}`,
    `size            ${report.fileSize} bytes of at most ${report.maxDatabaseSize}`,
    `room            ${describeCapacity(report.capacity)}`,
    `schema version  ${report.schemaVersion}`,
    `flushes         ${report.flushes}${report.lastFlushAt ? ` (last at ${report.lastFlushAt})` : ''}`,
    ...(report.sizeWarning ? [`warning         ${report.sizeWarning}`] : []),
    ...(report.readOnlyBecause ? [`read-only       ${report.readOnlyBecause}`] : []),
    `record chain    ${describeChainCheck(report.recordChain)}`,
    ...(report.suspectUserActions.length > 0 ? [formatSuspectUserActions(report.suspectUserActions)] : []),
    ...(report.spilled.files > 0 ? [`waiting         ${report.spilled.mutations} change(s) in ${report.spilled.files} spill file(s), merged at the next OpenCode start`] : []),
    `snapshots       ${report.snapshots.length === 0 ? 'none yet (one is taken at the end of a session, at most once a day)' : ''}`,
    ...report.snapshots.map((snapshot) => `  ${snapshot.file}  ${snapshot.ageHours} h old, ${snapshot.size} bytes`),
    'entries',
    ...Object.entries(report.counts).map(([name, count]) => `  ${name.padEnd(15)}${count}${kindNote(name)}`),
    ...describeProvisioning(provisioning),
    `  removed by you ${report.removedByUser.length > 0 ? `${report.removedByUser.join(', ')} (not put back at start; ${provisioning.managed ? 'copy them from the package\'s skills/ and agents/ folders to add them again' : '"agent-tracker setup" adds them again'})` : 'nothing'}`,
    `history         ${history}`,
    `backups         ${backups.files.length === 0 ? `none (kept in ${backups.folder} when a config file is replaced)` : `${backups.files.length} in ${backups.folder}`}`,
    ...backups.files.map((backup) => `  ${path.basename(backup.file)}  ${backup.size} bytes, ${backup.takenAt.slice(0, 19)}`),
    `cli             ${cliCommand()} <command>`,
  ];
  output.out(lines.join('\n'));
}

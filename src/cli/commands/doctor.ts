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
import { isAbsent, loadConfig, parseCommandArgs, withStore } from '../context.js';
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

/** The facts about the OpenCode side, which hold with or without a database. */
async function installFacts(configDir: string) {
  return {
    // What setup has put in place in the OpenCode config folder (src/provisioning/inspect.ts).
    provisioning: inspectProvisioning(configDir),
    history: await describeHistoryLayout(opencodeDataDir()),
    // The old text of every config file the tracker replaced (setup, recommend --apply).
    backups: { folder: backupFolder(configDir), files: listBackups(backupFolder(configDir)) },
    cli: cliCommand(),
  };
}

/** The lines about the OpenCode side: what setup put in place, what the user removed, OpenCode's history, backups, the CLI. */
function installLines(facts: Awaited<ReturnType<typeof installFacts>>, removed: readonly string[]): string[] {
  const { provisioning, history, backups, cli } = facts;
  return [
    ...describeProvisioning(provisioning),
    `  removed by you ${removed.length > 0 ? `${removed.join(', ')} (not put back at start; ${provisioning.managed ? 'copy them from the package\'s skills/ and agents/ folders to add them again' : '"agent-tracker setup" adds them again'})` : 'nothing'}`,
    `history         ${history}`,
    `backups         ${backups.files.length === 0 ? `none (kept in ${backups.folder} when a config file is replaced)` : `${backups.files.length} in ${backups.folder}`}`,
    ...backups.files.map((backup) => `  ${path.basename(backup.file)}  ${backup.size} bytes, ${backup.takenAt.slice(0, 19)}`),
    `cli             ${cli} <command>`,
  ];
}

export async function run(args: string[], output: Output): Promise<void> {
  const { values } = parseCommandArgs(args, {}, false);
  const config = loadConfig(values.db);
  const configDir = opencodeConfigDir();
  // Right after setup no session has made the database yet: at its usual place that is a state to
  // report with the rest of the install. A path named by --db or AGENT_TRACKER_DB_PATH that holds
  // nothing is more likely a typo: withStore refuses it in one line, as every reader does.
  const named = values.db !== undefined || process.env.AGENT_TRACKER_DB_PATH !== undefined;
  if (!named && isAbsent(config.databasePath)) {
    const facts = await installFacts(configDir);
    if (values.json) {
      output.out(JSON.stringify({ databasePath: config.databasePath, exists: false, maxDatabaseSize: config.maxDatabaseSize, ...facts }, null, 2));
      return;
    }
    output.out(
      [
        `database        ${config.databasePath}: not created yet. The plugin makes it at the first OpenCode session; "agent-tracker backfill" imports your past sessions now.`,
        `size limit      ${config.maxDatabaseSize} bytes`,
        ...installLines(facts, []),
      ].join('\n'),
    );
    return;
  }
  const { recordedItems, ...health } = await withStore(config, (store) => databaseHealthAnswer(store, config, configDir, Date.now()), 'read');
  const report = { ...health, removedByUser: removedByUser(configDir, new Set(recordedItems)) };
  const facts = await installFacts(configDir);
  if (values.json) {
    output.out(JSON.stringify({ ...report, exists: true, ...facts }, null, 2));
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
    ...installLines(facts, report.removedByUser),
  ];
  output.out(lines.join('\n'));
}

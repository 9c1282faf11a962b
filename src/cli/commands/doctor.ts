/** `agent-tracker doctor [--json]`: where the database is, how big it may get, what it holds. */
import fs from 'node:fs';
import { opencodeConfigDir } from '../../core/config.js';
import { cliCommand } from '../../setup/cli-location.js';
import { describeProvisioning, inspectProvisioning } from '../../setup/inspect.js';
import { packageRoot } from '../../setup/package-root.js';
import { inspectItems } from '../../setup/presence.js';
import { loadConfig, parseCommandArgs, withStore } from '../context.js';
import type { Output } from '../context.js';

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
  const report = await withStore(config, (store) => {
    const meta = store.meta();
    const recorded = new Set(store.provisionedItems(configDir));
    return {
      databasePath: store.path,
      maxDatabaseSize: config.maxDatabaseSize,
      fileSize: fs.statSync(store.path).size,
      schemaVersion: meta.schemaVersion,
      flushes: meta.flushes,
      lastFlushAt: meta.lastFlushAt || null,
      counts: store.counts(),
      removedByUser: removedByUser(configDir, recorded),
    };
  });
  // What setup has put in place in the OpenCode config folder (src/setup/inspect.ts).
  const provisioning = inspectProvisioning(configDir);
  if (values.json) {
    output.out(JSON.stringify({ ...report, provisioning, cli: cliCommand() }, null, 2));
    return;
  }
  const lines = [
    `database        ${report.databasePath}`,
    `size            ${report.fileSize} bytes of at most ${report.maxDatabaseSize}`,
    `schema version  ${report.schemaVersion}`,
    `flushes         ${report.flushes}${report.lastFlushAt ? ` (last at ${report.lastFlushAt})` : ''}`,
    'entries',
    ...Object.entries(report.counts).map(([name, count]) => `  ${name.padEnd(15)}${count}`),
    ...describeProvisioning(provisioning),
    `  removed by you ${report.removedByUser.length > 0 ? `${report.removedByUser.join(', ')} (not put back at start; "agent-tracker setup" adds them again)` : 'nothing'}`,
    `cli             ${cliCommand()} <command>`,
  ];
  output.out(lines.join('\n'));
}

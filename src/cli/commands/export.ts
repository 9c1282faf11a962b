/**
 * `agent-tracker export [FILE]`: every record as NDJSON (`{"kind","key","value"}` per line), to
 * FILE or to stdout. A file is written to a temporary name first and renamed when complete.
 */
import fs from 'node:fs';
import path from 'node:path';
import { exportRecords } from '../../core/store/transfer.js';
import { CliError, loadConfig, parseCommandArgs, withStore } from '../context.js';
import type { Output } from '../context.js';
import { openAtomic } from '../../core/fs/atomic-write.js';

export async function run(args: string[], output: Output): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, {});
  if (positionals.length > 1) throw new CliError('expects at most one FILE');
  const target = positionals[0] === undefined ? undefined : path.resolve(positionals[0]);
  const config = loadConfig(values.db);
  if (target === undefined) {
    await withStore(config, (store) => exportRecords(store, (chunk) => fs.writeSync(process.stdout.fd, chunk)), 'read');
    return;
  }
  if (!fs.existsSync(path.dirname(target))) throw new CliError(`cannot write ${target}: its folder does not exist`);
  // A temporary sibling renamed over the target: a symlink at the target is replaced, never followed.
  const file = openAtomic(target);
  let summary;
  try {
    summary = await withStore(config, (store) => exportRecords(store, (chunk) => file.write(chunk)), 'read');
  } catch (error) {
    file.abort();
    throw error;
  }
  file.commit();
  if (values.json) {
    output.out(JSON.stringify({ file: target, ...summary }, null, 2));
    return;
  }
  const kinds = Object.entries(summary.byKind).map(([kind, count]) => `${count} ${kind}`).join(', ');
  output.out(`Exported ${summary.records} records to ${target} (${kinds}).`);
}

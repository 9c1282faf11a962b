/**
 * `agent-tracker export [FILE]`: every record as NDJSON (`{"kind","key","value"}` per line), to
 * FILE or to stdout. A file is written to a temporary name first and renamed when complete; only a
 * regular file or a missing path is replaced. Every byte reaches stdout or the command fails loudly.
 */
import path from 'node:path';
import { plural } from '../../core/report/numbers.js';
import { exportRecords } from '../../core/store/transfer.js';
import { CliError, loadConfig, parseCommandArgs, refuseDatabaseFile, withStore } from '../context.js';
import type { Output } from '../context.js';
import { openAtomic, UnsafeWriteError } from '../../core/fs/atomic-write.js';
import { writeAllSync } from '../../core/fs/write-all.js';
import fs from 'node:fs';
import { kindCount } from '../record-kinds.js';

/** Standard output by number: reading `process.stdout` would turn a pipe non-blocking. */
const STDOUT_FD = 1;

/** The one line a failed write becomes: what happened to the export and why. */
function writeFailure(where: string, written: number, error: unknown): CliError {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = code === 'EPIPE' ? 'the reader closed the pipe' : code === 'ENOSPC' ? 'no space left on the device' : (code ?? (error as Error).message);
  return new CliError(`writing the export to ${where} failed after ${written} bytes (${reason}); the export is incomplete`);
}

export async function run(args: string[], output: Output): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, {});
  if (positionals.length > 1) throw new CliError('expects at most one FILE');
  const target = positionals[0] === undefined ? undefined : path.resolve(positionals[0]);
  const config = loadConfig(values.db);
  if (target === undefined) {
    let written = 0;
    await withStore(
      config,
      (store) =>
        exportRecords(store, (chunk) => {
          try {
            writeAllSync(STDOUT_FD, chunk);
          } catch (error) {
            throw writeFailure('standard output', written, error);
          }
          written += Buffer.byteLength(chunk);
        }),
      'read',
    );
    return;
  }
  if (!fs.existsSync(path.dirname(target))) throw new CliError(`cannot write ${target}: its folder does not exist`);
  refuseDatabaseFile(target, config.databasePath, 'agent-tracker-export.ndjson');
  let file;
  try {
    // A temporary sibling renamed over the target: anything but a regular file there is refused.
    file = openAtomic(target);
  } catch (error) {
    if (error instanceof UnsafeWriteError) throw new CliError(error.message);
    throw new CliError(`cannot write ${target}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let summary;
  let written = 0;
  try {
    summary = await withStore(
      config,
      (store) =>
        exportRecords(store, (chunk) => {
          try {
            file.write(chunk);
          } catch (error) {
            throw writeFailure(target, written, error);
          }
          written += Buffer.byteLength(chunk);
        }),
      'read',
    );
    file.commit();
  } catch (error) {
    file.abort();
    if (error instanceof UnsafeWriteError) throw new CliError(error.message);
    throw error;
  }
  if (values.json) {
    output.out(JSON.stringify({ file: target, ...summary }, null, 2));
    return;
  }
  const kinds = Object.entries(summary.byKind).map(([kind, count]) => kindCount(kind, count)).join(', ');
  // The git-signal bookkeeping travels too, so the kinds add up to the count.
  const signals = summary.gitSignals > 0 ? `, the git signals of ${plural(summary.gitSignals, 'project')}` : '';
  output.out(`Exported ${plural(summary.records, 'record')} to ${target} (${kinds}${signals}).`);
}

/**
 * `agent-tracker import FILE`: merges an export into the database. Additive and idempotent: only
 * records whose key is absent are written, in one transaction; a bad line writes nothing. The file is
 * read piece by piece, once to check it and once to write it, so its size does not set the memory.
 */
import path from 'node:path';
import { plural } from '../../core/report/numbers.js';
import { UnreadableFileError } from '../../core/fs/read-bounded.js';
import { exportFileSource, importExportFrom } from '../../core/store/transfer.js';
import type { ExportSource } from '../../core/store/transfer.js';
import { InputError } from '../../core/validation.js';
import { CliError, loadConfig, parseCommandArgs, withStore } from '../context.js';
import type { Output } from '../context.js';
import { confirmUserOnly } from '../user-only.js';
import { kindCount } from '../record-kinds.js';

/** The largest export read (it is read piece by piece, twice: once to check, once to write); a larger file is refused with its size. */
export const MAX_IMPORT_FILE_BYTES = 256 * 1024 * 1024;

/** A failure to read the file (not the database's) as one line; anything else as it is. */
function readError(source: string, error: unknown): unknown {
  if (error instanceof UnreadableFileError) return new CliError(`cannot import ${error.message}. Nothing was imported.`);
  const { code, path: failed } = error as NodeJS.ErrnoException;
  return typeof code === 'string' && failed === source ? new CliError(`cannot read ${source}: ${code}. Nothing was imported.`) : error;
}

export async function run(args: string[], output: Output): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, {});
  if (positionals.length !== 1) throw new CliError('expects one FILE (an NDJSON export made by "agent-tracker export")');
  const source = path.resolve(positionals[0] as string);
  let file: ExportSource;
  try {
    file = exportFileSource(source, MAX_IMPORT_FILE_BYTES);
  } catch (error) {
    throw readError(source, error);
  }
  const config = loadConfig(values.db);
  const result = await withStore(config, (store) => {
    const project = process.cwd();
    const provenance = confirmUserOnly('import', { store, project });
    try {
      // The import's own record (migrations) keeps how it came.
      return importExportFrom(store, file, source, undefined, provenance, config.rules);
    } catch (error) {
      if (error instanceof InputError) throw new CliError(`${source}: ${error.message}`);
      throw readError(source, error);
    }
  });
  if (values.json) {
    output.out(JSON.stringify(result, null, 2));
    return;
  }
  const kinds = Object.entries(result.addedByKind)
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => kindCount(kind, count))
    .join(', ');
  const before = result.importedBefore ? ` This file was first imported at ${result.importedBefore}.` : '';
  const signals = result.gitSignals > 0 ? `; the git signals of ${plural(result.gitSignals, 'project')} merged` : '';
  output.out(`Imported ${plural(result.added, 'record')} from ${source}${kinds ? ` (${kinds})` : ''}; ${result.skipped} were already present${signals}.${before}`);
}

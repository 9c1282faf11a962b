/**
 * `agent-tracker import FILE`: merges an export into the database. Additive and idempotent: only
 * records whose key is absent are written, in one transaction; a bad line writes nothing.
 */
import path from 'node:path';
import { readBoundedRegularFile, UnreadableFileError } from '../../core/fs/read-bounded.js';
import { importExport } from '../../core/store/transfer.js';
import { InputError } from '../../core/validation.js';
import { CliError, loadConfig, parseCommandArgs, withStore } from '../context.js';
import type { Output } from '../context.js';
import { confirmUserOnly } from '../user-only.js';
import { kindCount } from '../record-kinds.js';

/** The largest export read: well within what one JavaScript string can hold (about 512 MiB); a larger file is refused with its size. */
export const MAX_IMPORT_FILE_BYTES = 256 * 1024 * 1024;

export async function run(args: string[], output: Output): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, {});
  if (positionals.length !== 1) throw new CliError('expects one FILE (an NDJSON export made by "agent-tracker export")');
  const source = path.resolve(positionals[0] as string);
  let text: string;
  try {
    text = readBoundedRegularFile(source, MAX_IMPORT_FILE_BYTES);
  } catch (error) {
    if (error instanceof UnreadableFileError) throw new CliError(`cannot import ${error.message}. Nothing was imported.`);
    throw new CliError(`cannot read ${source}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const config = loadConfig(values.db);
  const result = await withStore(config, (store) => {
    const project = process.cwd();
    const provenance = confirmUserOnly('import', { store, project });
    try {
      // The import's own record (migrations) keeps how it came.
      return importExport(store, text, source, undefined, provenance, config.rules);
    } catch (error) {
      if (error instanceof InputError) throw new CliError(`${source}: ${error.message}`);
      throw error;
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
  output.out(`Imported ${result.added} records from ${source}${kinds ? ` (${kinds})` : ''}; ${result.skipped} were already present.${before}`);
}

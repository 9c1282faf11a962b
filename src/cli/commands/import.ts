/**
 * `agent-tracker import FILE`: merges an export into the database. Additive and idempotent: only
 * records whose key is absent are written, in one transaction, and an agent sheet both hold is pooled
 * (src/core/pooled-sheet.ts); a bad line writes nothing. The file is
 * read piece by piece, once to check it and once to write it, so its size does not set the memory.
 * `import -` takes the export from standard input (`ssh other agent-tracker export | agent-tracker import -`):
 * it is first kept in a private temporary file, since the import reads it twice.
 */
import fs from 'node:fs';
import os from 'node:os';
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

/** A failure to read the file at `at` (not the database's) as one line, naming it `name`; anything else as it is. */
function readError(at: string, name: string, error: unknown): unknown {
  if (error instanceof UnreadableFileError) return new CliError(`cannot import ${error.message}. Nothing was imported.`);
  const { code, path: failed } = error as NodeJS.ErrnoException;
  return typeof code === 'string' && failed === at ? new CliError(`cannot read ${name}: ${code}. Nothing was imported.`) : error;
}

/** What `-` names in the summary and the import's own record. */
const STDIN_NAME = 'standard input';

/** Copies standard input into a private temporary file, refusing more than `limit` bytes; the caller removes its folder. */
async function stdinToFile(limit: number): Promise<{ file: string; folder: string }> {
  if (process.stdin.isTTY) throw new CliError('"-" reads an export from standard input: pipe one in, e.g. agent-tracker export | agent-tracker import -');
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-import-'));
  const file = path.join(folder, 'export.ndjson');
  const out = fs.openSync(file, 'wx', 0o600);
  try {
    let size = 0;
    for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw new CliError(`cannot import ${STDIN_NAME}: more than ${limit} bytes (the largest export this imports). Nothing was imported.`);
      fs.writeSync(out, chunk);
    }
    return { file, folder };
  } catch (error) {
    fs.rmSync(folder, { recursive: true, force: true });
    throw error;
  } finally {
    fs.closeSync(out);
  }
}

export async function run(args: string[], output: Output): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, {});
  if (positionals.length !== 1) throw new CliError('expects one FILE (an NDJSON export made by "agent-tracker export"; - for standard input)');
  const fromStdin = positionals[0] === '-';
  const piped = fromStdin ? await stdinToFile(MAX_IMPORT_FILE_BYTES) : undefined;
  try {
    await importFrom(piped?.file ?? path.resolve(positionals[0] as string), fromStdin ? STDIN_NAME : undefined, values, output);
  } finally {
    if (piped) fs.rmSync(piped.folder, { recursive: true, force: true });
  }
}

/** Imports the export at `file`, named `name` in what it says (the file's path by default). */
async function importFrom(at: string, name: string | undefined, values: { db?: string; json?: boolean }, output: Output): Promise<void> {
  const source = name ?? at;
  let file: ExportSource;
  try {
    file = exportFileSource(at, MAX_IMPORT_FILE_BYTES);
  } catch (error) {
    throw readError(at, source, error);
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
      throw readError(at, source, error);
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
  const before = result.importedBefore ? ` The same export was first imported at ${result.importedBefore}.` : '';
  const signals = result.gitSignals > 0 ? `; the git signals of ${plural(result.gitSignals, 'project')} merged` : '';
  const sheets = result.pooledSheets.length > 0 ? `; the sheet of ${result.pooledSheets.join(', ')} now counts the work of both (agent-tracker status)` : '';
  output.out(`Imported ${plural(result.added, 'record')} from ${source}${kinds ? ` (${kinds})` : ''}; ${result.skipped} were already present${signals}${sheets}.${before}`);
}

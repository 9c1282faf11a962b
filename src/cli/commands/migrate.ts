/**
 * `agent-tracker migrate [DIR] [--json]`: merges the legacy database of a folder
 * (`DIR/~/.config/opencode/agent-tracker.lmdb`, DIR defaulting to the current folder) into the
 * central one. DIR may also name a legacy `.lmdb` file directly. Additive and idempotent.
 */
import fs from 'node:fs';
import path from 'node:path';
import { legacyPathIn, migrateLegacy } from '../../core/store/legacy.js';
import { CliError, loadConfig, parseCommandArgs, withStore } from '../context.js';
import type { Output } from '../context.js';

function sourceOf(target: string): string {
  const resolved = path.resolve(target);
  const isFile = fs.existsSync(resolved) && fs.statSync(resolved).isFile();
  return isFile ? resolved : legacyPathIn(resolved);
}

export async function run(args: string[], output: Output): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, {});
  if (positionals.length > 1) throw new CliError('expects at most one DIR (the folder the old plugin ran in)');
  const source = sourceOf(positionals[0] ?? process.cwd());
  if (!fs.existsSync(source)) throw new CliError(`no legacy database at ${source}; nothing to migrate`);
  const config = loadConfig(values.db);
  const result = await withStore(config, (store) => {
    try {
      return migrateLegacy(store, source);
    } catch (error) {
      throw new CliError(`migration from ${source} failed, the central database is unchanged: ${(error as Error).message}`);
    }
  });
  if (values.json) {
    output.out(JSON.stringify(result, null, 2));
    return;
  }
  const kinds = Object.entries(result.addedByKind).map(([kind, count]) => `${count} ${kind}`).join(', ');
  output.out(
    [
      `Migrated ${result.added} ${result.added === 1 ? 'entry' : 'entries'} from ${result.source} (${kinds}).`,
      `${result.skipped} already present, ${result.unrecognized} not recognized. The legacy file was left in place.`,
    ].join('\n'),
  );
}

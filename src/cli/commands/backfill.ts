/**
 * `agent-tracker backfill [--since ISO] [--project PATH] [--from PATH] [--dry-run] [--json]`:
 * imports OpenCode's past sessions (read-only) as if they had been tracked live. Running it again,
 * or after live tracking of the same sessions, adds nothing twice: it starts from the watermark the
 * plugin's background import keeps, and a store unchanged since then is known from two `stat` calls
 * and a read-only look at the database, before the writer, the history readers or sql.js load.
 * Anything else is imported in a process of its own with a small young generation (backfill-import.ts).
 *
 * `--from` a folder that is not OpenCode's own data folder is a user-only action: what such a store
 * holds is whatever was written there (an agent can copy its own history under fresh ids), so the
 * CLI refuses it under an agent and records how the request came, like `import`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { summaryLine } from '../../core/backfill/summary.js';
import type { BackfillSummary } from '../../core/backfill/summary.js';
import { readWatermark } from '../../core/backfill/watermark.js';
import { historySignature, opencodeDataDir } from '../../opencode/history/locate.js';
import { CliError, loadConfig, parseCommandArgs, withStore } from '../context.js';
import type { Output } from '../context.js';
import type { ImportRequest, ImportResult } from './backfill-import.js';

/** The summary of a run that found the store unchanged since the last import. */
function nothingNew(location: string, dryRun: boolean): BackfillSummary {
  return { source: `OpenCode's history at ${location} (unchanged since the last import)`, sessions: 0, messages: 0, toolCalls: 0, commits: 0, pushes: 0, skipped: {}, latestUpdate: 0, dryRun };
}

export async function run(args: string[], output: Output): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    args,
    { since: { type: 'string' }, project: { type: 'string' }, from: { type: 'string' }, 'dry-run': { type: 'boolean', default: false } },
    false,
  );
  if (positionals.length > 0) throw new CliError(`takes no positional arguments, got "${positionals[0]}"`);
  // The nothing-new answer below loads only what it needs: the rest is imported once there is work.
  const since = values.since === undefined ? undefined : (await import('../report-args.js')).parseSince(values.since);
  const ownFolder = path.resolve(opencodeDataDir());
  const location = path.resolve(values.from ?? ownFolder);
  const userOnly = location !== ownFolder && !values['dry-run'];
  // Refused before anything is read when an agent runs it; otherwise its provenance is recorded below.
  const userOnlyChecks = userOnly ? await import('../user-only.js') : undefined;
  userOnlyChecks?.refuseUnderAgent('backfill');
  const config = loadConfig(values.db);
  const print = (summary: BackfillSummary): void => output.out(values.json ? JSON.stringify(summary, null, 2) : summaryLine(summary));
  // Nothing new since the last import (the plugin's or this command's): a read-only look, no write.
  if (fs.existsSync(config.databasePath)) {
    const signature = historySignature(location);
    const unchanged = await withStore(config, (store) => readWatermark(store, location)?.signature === signature, 'read');
    if (unchanged) return print(nothingNew(location, values['dry-run']));
  }
  const [{ importInChild }, { progressReporter }] = await Promise.all([import('./backfill-import.js'), import('./progress.js')]);
  const progress = values.json ? undefined : progressReporter(process.stderr);
  const request: ImportRequest = {
    config,
    location,
    project: process.cwd(),
    dryRun: values['dry-run'],
    ...(since !== undefined ? { createdSince: Date.parse(since) } : {}),
    ...(values.project !== undefined ? { directory: path.resolve(values.project) } : {}),
    // Read here: the import process has no terminal of its own (its stdin is closed) to tell who runs the command.
    ...(userOnlyChecks ? { userOnlyFacts: userOnlyChecks.currentProcessFacts() } : {}),
  };
  let result: ImportResult;
  try {
    result = await importInChild(request, progress);
  } finally {
    progress?.finish();
  }
  print(result ?? nothingNew(location, values['dry-run']));
}

/**
 * `agent-tracker prior-art "TEXT" [--project PATH] [--scope S] [--agent A] [--max N] [--json]`:
 * what worked and what failed before on work like TEXT, looking first at the project's (the current
 * folder's) scope, then at similar projects, then at their git history; see core/projects/cross-project-search.ts.
 */
import path from 'node:path';
import { priorArtAnswer } from '../../core/answers/prior-art.js';
import { formatCrossProjectPriorArt } from '../../core/projects/cross-project-search.js';
import { rebuildStaleTermIndex, termIndexIsCurrent } from '../../core/search/reindex.js';
import { validatePriorArtQuery } from '../../core/search/service.js';
import { InputError } from '../../core/validation.js';
import { CliError, loadConfig, parseCommandArgs, withStore } from '../context.js';
import { refreshProjectGitSignals } from '../git-signals.js';
import type { Output } from '../context.js';
import { reindexProgress } from '../reindex-progress.js';

function parseMax(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed)) throw new CliError(`--max expects a whole number, got "${value}"`);
  return parsed;
}

export async function run(args: string[], output: Output): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, {
    project: { type: 'string' },
    scope: { type: 'string' },
    agent: { type: 'string' },
    max: { type: 'string' },
  });
  const text = positionals.join(' ').trim();
  if (!text) throw new CliError('expects the task to search for, e.g. agent-tracker prior-art "add rate limiting to the login endpoint"');
  const maxResults = parseMax(values.max);
  // Bad input is refused before the database is looked at.
  try {
    validatePriorArtQuery({ taskDescription: text, scope: values.scope ?? '', ...(maxResults === undefined ? {} : { maxResults }) });
  } catch (error) {
    if (error instanceof InputError) throw new CliError(error.message);
    throw error;
  }
  const project = path.resolve(values.project ?? process.cwd());
  const config = loadConfig(values.db);
  // Work reverted since the last look is a mistake, not a pattern: git's word on tracked commits first (as report does).
  await refreshProjectGitSignals(config);
  // Once after an upgrade changed the search rules, a short write (the rebuild); otherwise only reads.
  if (!(await withStore(config, termIndexIsCurrent, 'read'))) await withStore(config, (store) => rebuildStaleTermIndex(store, reindexProgress(output)));
  const result = await withStore(config, async (store) => {
    try {
      const query = {
        taskDescription: text,
        ...(values.scope ? { scope: values.scope } : {}),
        ...(values.agent ? { agentId: values.agent } : {}),
        ...(maxResults === undefined ? {} : { maxResults }),
      };
      return await priorArtAnswer(store, query, project);
    } catch (error) {
      if (error instanceof InputError) throw new CliError(error.message);
      throw error;
    }
  }, 'read');
  output.out(values.json ? JSON.stringify(result, null, 2) : formatCrossProjectPriorArt(result));
}

/**
 * `agent-tracker recommend [--project PATH] [--json]`: classifies the project (the current folder
 * by default), weights all history by how alike its projects are, and ranks agent × model setups.
 */
import path from 'node:path';
import { recommendForProject } from '../../core/report/recommend-project.js';
import { formatRecommendation } from '../../core/report/recommend-text.js';
import { CliError, loadConfig, parseCommandArgs, withStore } from '../context.js';
import type { Output } from '../context.js';
import { InputError } from '../../core/validation.js';

export async function run(args: string[], output: Output): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, { project: { type: 'string' } }, false);
  if (positionals.length > 0) throw new CliError(`takes no positional arguments (use --project PATH), got "${positionals[0]}"`);
  const project = path.resolve(values.project ?? process.cwd());
  const config = loadConfig(values.db);
  const recommendation = await withStore(config, async (store) => {
    try {
      return await recommendForProject(store, project);
    } catch (error) {
      if (error instanceof InputError) throw new CliError(error.message);
      throw error;
    }
  });
  output.out(values.json ? JSON.stringify(recommendation, null, 2) : formatRecommendation(recommendation));
}

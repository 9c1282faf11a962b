/** `agent-tracker init-project [PATH] [--json]`: classify a project folder and store its profile. */
import path from 'node:path';
import { describeProfile } from '../../core/projects/describe.js';
import { initProject } from '../../core/projects/init-project.js';
import { findSimilarProjects } from '../../core/projects/similarity.js';
import { InputError } from '../../core/validation.js';
import { CliError, loadConfig, parseCommandArgs, withStore } from '../context.js';
import type { Output } from '../context.js';

const SIMILAR_SHOWN = 5;

export async function run(args: string[], output: Output): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, {});
  if (positionals.length > 1) throw new CliError('expects at most one PATH (quote a path that contains spaces)');
  const projectPath = path.resolve(positionals[0] ?? process.cwd());
  const config = loadConfig(values.db);
  const result = await withStore(config, async (store) => {
    try {
      const { status, profile } = await initProject(store, projectPath);
      return { status, profile, similar: findSimilarProjects(store, profile, { limit: SIMILAR_SHOWN }) };
    } catch (error) {
      if (error instanceof InputError) throw new CliError(`${error.message}. Pass the path of a project folder.`);
      throw error;
    }
  });
  if (values.json) {
    const similar = result.similar.map(({ profile, score }) => ({ ...profile, score }));
    output.out(JSON.stringify({ status: result.status, project: result.profile, similar }, null, 2));
    return;
  }
  output.out(describeProfile(result.profile, result.status, result.similar));
}

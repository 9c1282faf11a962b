/**
 * `agent-tracker grade COMMIT N [--note TEXT] [--project PATH] [--json]`: the user's own grade of a
 * commit a tracked session made (N: -1 bad, 1 neutral, 2 good, 5 excellence). COMMIT is a hash, a
 * short hash, HEAD or HEAD~N, resolved by git in the project. Counted on the usage record of the
 * setup that made the commit.
 */
import path from 'node:path';
import { silentLogger } from '../../core/logger.js';
import { runGit } from '../../core/projects/git.js';
import { TrackingService } from '../../core/tracking/service.js';
import { GRADE_LABELS } from '../../core/types.js';
import { notCreditedText } from '../../core/integrity/commit-credit.js';
import { InputError } from '../../core/validation.js';
import { CliError, loadConfig, parseCommandArgs, withStore } from '../context.js';
import { confirmUserOnly } from '../user-only.js';
import { namesCommit, resolveCommitRef } from '../../core/projects/commit-ref.js';
import type { Output } from '../context.js';

/** The project a folder belongs to as the plugin records it: the repository's top folder, else the folder. */
async function projectOf(folder: string): Promise<string> {
  try {
    const top = (await runGit(folder, ['rev-parse', '--show-toplevel'])).trim();
    return top || folder;
  } catch {
    return folder;
  }
}

/** `-1` would parse as a short option: it is set aside as a positional before parsing. */
const MINUS_ONE = '-1';
const MINUS_ONE_STAND_IN = '\u0000minus-one';

export async function run(args: string[], output: Output): Promise<void> {
  const parsed = parseCommandArgs(args.map((arg) => (arg === MINUS_ONE ? MINUS_ONE_STAND_IN : arg)), { note: { type: 'string' }, project: { type: 'string' }, replace: { type: 'boolean', default: false } });
  const values = parsed.values;
  const positionals = parsed.positionals.map((arg) => (arg === MINUS_ONE_STAND_IN ? MINUS_ONE : arg));
  if (positionals.length !== 2) throw new CliError('expects a COMMIT and a grade N (-1, 1, 2 or 5), e.g. agent-tracker grade HEAD 5 --note "clean fix"');
  // `grade 5 HEAD` as well as `grade HEAD 5`: no grade is a commit name (those are HEAD… or 4+ hex digits).
  const [first = '', second = ''] = positionals;
  const [ref, grade] = !namesCommit(first) && namesCommit(second) ? [second, first] : [first, second];
  const project = await projectOf(path.resolve(values.project ?? process.cwd()));
  const commit = await resolveCommitRef(project, ref);
  const config = loadConfig(values.db);
  const result = await withStore(config, (store) => {
    // The user's grade is the user's: refused when an agent runs this, and the record says how it came.
    const provenance = confirmUserOnly('grade', { store, project });
    const service = new TrackingService({ store, config, logger: silentLogger, project });
    try {
      const graded = service.gradeAsUser({ project, commit, grade, note: values.note, via: 'cli', replace: values.replace });
      service.recordUserAction({ agent: graded.grade.agent, project, summary: `User graded ${graded.grade.commit.slice(0, 12)} ${graded.grade.grade} (${provenance.via})`, provenance });
      const outcome = service.flush('user action');
      if (!outcome.ok) throw outcome.error;
      return graded;
    } catch (error) {
      if (error instanceof InputError) throw new CliError(error.message);
      throw error;
    }
  });
  if (values.json) {
    output.out(JSON.stringify({ grade: result.grade, agent: { id: result.status.id, cs: result.status.cs }, ...(result.noCredit ? { noCredit: result.noCredit } : {}) }, null, 2));
    return;
  }
  const g = result.grade;
  output.out(`Your grade ${g.grade} (${GRADE_LABELS[g.grade]}) for commit ${g.commit.slice(0, 12)} by ${g.agent} (${g.model}) is recorded. ${g.agent}'s CS is now ${result.status.cs.toFixed(1)}.`);
  // The user's grade of a commit that earned nothing still counts as their judgement; only a bad one moves CS.
  if (result.noCredit) output.out(`The commit is ${notCreditedText(result.noCredit)}: a bad grade still costs CS, a good one earns no CS and no XP.`);
}

/**
 * `agent-tracker recommend [--project PATH] [--prefer quality|balanced|cheap] [--json]
 * [--apply [--global] [--dry-run] [--yes] [--include-uncertain]] [--backtest]`: classifies the project (the
 * current folder by default), weights all history by how alike its projects are, recommends a model
 * per role, and with `--apply` writes it into OpenCode's config.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { opencodeConfigDir } from '../../core/config.js';
import { getProject, projectKey } from '../../core/projects/profiles.js';
import { recommendAnswer } from '../../core/answers/recommend.js';
import { backtestForStore } from '../../core/report/recommend-project.js';
import type { Backtest, OutcomeKind } from '../../core/report/recommend-backtest.js';
import { DEFAULT_PREFERENCE, PREFERENCES } from '../../core/report/recommend.js';
import type { Preference } from '../../core/report/recommend.js';
import { plural } from '../../core/report/numbers.js';
import { formatRecommendation } from '../../core/report/recommend-text.js';
import { CliError, loadConfig, parseCommandArgs, withStore } from '../context.js';
import { refreshProjectGitSignals } from '../git-signals.js';
import type { Output } from '../context.js';
import { InputError } from '../../core/validation.js';
import { applyRecommendation, describeOutcome } from './recommend-apply.js';
import { confirmUserOnly } from '../user-only.js';
import type { ApplyResult, Prompt } from './recommend-apply.js';
import { backupFolder } from '../../provisioning/backups.js';

/** Said before `--apply --global` asks: the picks were made from one project's history. */
export function globalApplyWarning(project: string): string {
  return `--global: these picks were made for ${project} (projects like it), and the global opencode.json applies them to EVERY project without its own agent models. Without --yes you are asked first.`;
}

/** `--prefer` checked; undefined means the default. */
export function parsePreference(value: string | undefined): Preference {
  if (value === undefined) return DEFAULT_PREFERENCE;
  if (!(PREFERENCES as readonly string[]).includes(value)) throw new CliError(`--prefer must be one of ${PREFERENCES.join(', ')}, got "${value}"`);
  return value as Preference;
}

const terminalPrompt: Prompt = {
  interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
  async confirm(question) {
    const reader = createInterface({ input: process.stdin, output: process.stdout });
    try {
      return /^y(es)?$/i.test((await reader.question(question)).trim());
    } finally {
      reader.close();
    }
  },
};

const OUTCOME_KIND_NAMES: Readonly<Record<OutcomeKind, string>> = { grade: 'your grade', commits: 'commits that held', turns: 'turns not undone' };

/** The backtest in words. */
export function formatBacktest(result: Backtest): string {
  const share = (outcome: number | null) => (outcome === null ? '-' : `${Math.round(outcome * 100)}%`);
  const kinds = result.byKind.map((row) => {
    const name = `${OUTCOME_KIND_NAMES[row.kind]}:`.padEnd(19);
    const alone = row.weight === 0 ? ' (only one group: not compared)' : '';
    return `    ${name}${row.followed.sessions} vs ${plural(row.other.sessions, 'session')}, ${share(row.followed.outcome)} vs ${share(row.other.outcome)}${alone}`;
  });
  return [
    `Backtest: your history replayed at ${result.points} points in time, ${plural(result.judged, 'session')} judged.`,
    `  used what recommend would have said: ${plural(result.followed.sessions, 'session')}, outcome ${share(result.followed.outcome)}`,
    `  used something else:                 ${plural(result.other.sessions, 'session')}, outcome ${share(result.other.outcome)}`,
    ...(kinds.length > 0 ? ['  by kind of outcome (followed vs other):', ...kinds] : []),
    result.verdict,
    'Outcome: the user\'s grade where graded, else the share of commits that held, else of turns not undone. ' +
      'Each kind is compared only with the same kind (a grade of "good" is 50%, a commit that held 100%), and a group\'s outcome is over the kinds both groups have. ' +
      'This compares what was done, not what the other model would have done.',
  ].join('\n');
}

const APPLY_ONLY = ['global', 'dry-run', 'yes', 'include-uncertain'] as const;

export async function run(args: string[], output: Output, prompt: Prompt = terminalPrompt): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    args,
    {
      project: { type: 'string' },
      prefer: { type: 'string' },
      apply: { type: 'boolean', default: false },
      global: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      yes: { type: 'boolean', default: false },
      'include-uncertain': { type: 'boolean', default: false },
      backtest: { type: 'boolean', default: false },
    },
    false,
  );
  if (positionals.length > 0) throw new CliError(`takes no positional arguments (use --project PATH), got "${positionals[0]}"`);
  const prefer = parsePreference(values.prefer);
  if (!values.apply) {
    const stray = APPLY_ONLY.find((name) => values[name]);
    if (stray) throw new CliError(`--${stray} only goes with --apply`);
  }
  if (values.backtest) {
    if (values.apply) throw new CliError('--backtest and --apply do not go together: the backtest only reads');
    const result = await withStore(loadConfig(values.db), (store) => backtestForStore(store, prefer), 'read');
    output.out(values.json ? JSON.stringify({ backtest: result }, null, 2) : formatBacktest(result));
    return;
  }
  const project = path.resolve(values.project ?? process.cwd());
  const projectExists = fs.existsSync(project) && fs.statSync(project).isDirectory();
  if (values.apply && !values.global && !projectExists) {
    throw new CliError(`project folder ${project} does not exist: pass --project with the folder whose opencode.json to change`);
  }
  const config = loadConfig(values.db);
  await refreshProjectGitSignals(config);
  // Only --apply (which records the user's decision) writes; the answer itself is read-only.
  const recommendation = await withStore(config, async (store) => {
    if (!projectExists && !getProject(store, projectKey(project))) {
      throw new CliError(`project folder ${project} does not exist and has no stored profile: pass --project with an existing folder`);
    }
    // Rewriting OpenCode's config is the user's decision: an agent may not pick its own model.
    if (values.apply && !values['dry-run']) confirmUserOnly('recommend --apply', { store, project });
    try {
      return await recommendAnswer(store, { project, prefer });
    } catch (error) {
      if (error instanceof InputError) throw new CliError(error.message);
      throw error;
    }
  }, values.apply && !values['dry-run'] ? 'write' : 'read');

  if (!values.apply || recommendation.message) {
    output.out(values.json ? JSON.stringify(recommendation, null, 2) : formatRecommendation(recommendation));
    if (values.apply && !values.json) output.out('Nothing to apply: no history yet.');
    return;
  }
  const result: ApplyResult = await applyRecommendation(
    recommendation,
    {
      configDir: values.global ? opencodeConfigDir() : project,
      dryRun: values['dry-run'],
      yes: values.yes,
      includeUncertain: values['include-uncertain'],
      now: new Date(),
      backupDir: backupFolder(opencodeConfigDir()),
    },
    // A JSON reader cannot answer a question: without --yes it is a dry run.
    values.json ? { ...prompt, interactive: false } : prompt,
    (lines) => {
      if (values.json) return;
      output.out([formatRecommendation(recommendation), ...(values.global ? ['', globalApplyWarning(project)] : []), ...lines].join('\n'));
    },
  );
  if (values.json) {
    output.out(JSON.stringify({ ...recommendation, apply: result }, null, 2));
    return;
  }
  const outcome = describeOutcome(result);
  if (outcome) output.out(outcome);
}

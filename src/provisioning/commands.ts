/**
 * The `/grade` slash command, provisioned as `<config>/commands/grade.md` (OpenCode 1.18 loads
 * `{command,commands}/*.md` from its config folder). The plugin records the grade from the command
 * event itself; the template only keeps the model's part harmless. A grade.md the user wrote is kept.
 */
import fs from 'node:fs';
import path from 'node:path';
import { GRADE_COMMAND_NAME } from '../core/outcomes/grade-command.js';
import { readText, writeText } from './context.js';
import type { ProvisionContext } from './context.js';
import type { StepResult } from './step.js';

export const COMMANDS_FOLDER = 'commands';
const LEGACY_COMMANDS_FOLDER = 'command';
/** Part of the description: how setup tells its own command file from one the user wrote. */
export const GRADE_COMMAND_MARKER = '(agent-tracker)';

/** The command file: the description OpenCode lists, and a template that asks the model for nothing. */
export const GRADE_COMMAND_FILE = [
  '---',
  `description: Grade the agent's latest commit yourself ${GRADE_COMMAND_MARKER}: /grade N [COMMIT] [note], N = -1 bad, 1 neutral, 2 good, 5 excellence`,
  '---',
  'The agent-tracker plugin has already recorded the user\'s own grade from this command ("$ARGUMENTS") and shown it in a toast.',
  'Nothing is left to do: do not call any tool and do not grade anything yourself.',
  'Reply with one short sentence acknowledging that the grade was recorded.',
  '',
].join('\n');

/** Writes `commands/grade.md` unless the user has a grade command of their own. */
export function installCommands(context: ProvisionContext): StepResult {
  const target = path.join(context.configDir, COMMANDS_FOLDER, `${GRADE_COMMAND_NAME}.md`);
  const legacy = path.join(context.configDir, LEGACY_COMMANDS_FOLDER, `${GRADE_COMMAND_NAME}.md`);
  const existing = readText(context, target);
  if ((existing !== undefined && !existing.includes(GRADE_COMMAND_MARKER)) || fs.existsSync(legacy)) {
    return { step: 'commands', status: 'unchanged', messages: [`kept your own /${GRADE_COMMAND_NAME} command; the tracker records /${GRADE_COMMAND_NAME} N [COMMIT] [note] from it all the same`] };
  }
  const changed = writeText(context, target, GRADE_COMMAND_FILE);
  return { step: 'commands', status: changed ? 'changed' : 'unchanged', messages: [changed ? `installed the /${GRADE_COMMAND_NAME} command in ${target}` : `/${GRADE_COMMAND_NAME} command up to date`] };
}

/**
 * The `/grade` slash command in OpenCode: recorded by the plugin in the `command.execute.before` hook,
 * so the model plays no part in it, and answered with a toast naming the commit, agent, model and grade.
 */
import type { PluginInput } from '@opencode-ai/plugin';
import type { Logger } from '../core/logger.js';
import { parseGradeArguments } from '../core/outcomes/grade-command.js';
import type { TrackingService } from '../core/tracking/service.js';
import type { StoreAccess } from '../core/store/access.js';
import { GRADE_LABELS } from '../core/types.js';
import { InputError } from '../core/validation.js';
import { nestedHostSigns, runningCallsSign, slashCommandProvenance } from '../core/integrity/provenance.js';
import { recordSlashGrade } from '../core/integrity/slash-grade.js';
import { notCreditedText } from '../core/integrity/commit-credit.js';

const GRADE_TOAST_DURATION_MS = 8000;
const SHORT_HASH_LENGTH = 7;

export interface GradeCommandDeps {
  client: PluginInput['client'];
  service: TrackingService<StoreAccess>;
  logger: Logger;
  project: string;
}

/**
 * Records a `/grade` command's arguments as the user's grade and shows the outcome as a toast;
 * `runningCalls`: how many agent tool calls ran in this process when it came (then it is stored as suspect).
 */
export function createGradeCommand(deps: GradeCommandDeps): (argumentsText: string, runningCalls?: number) => void {
  const toast = (title: string, message: string, variant: 'success' | 'error') => {
    void deps.client.tui
      .showToast({ body: { title, message, variant, duration: GRADE_TOAST_DURATION_MS } })
      .catch((error: unknown) => deps.logger.warn(`agent-tracker: could not show the grade toast: ${(error as Error).message}`));
  };
  return (argumentsText, runningCalls = 0) => {
    deps.logger.info(`agent-tracker: /grade ${argumentsText}`);
    try {
      const parsed = parseGradeArguments(argumentsText);
      const { grade, noCredit } = deps.service.gradeAsUser({ project: deps.project, commit: parsed.commit, grade: parsed.grade, note: parsed.note, via: 'slash-command' });
      const whileRunning = runningCallsSign(runningCalls);
      recordSlashGrade(deps.service, deps.project, grade, slashCommandProvenance('grade', [...nestedHostSigns(), ...(whileRunning ? [whileRunning] : [])]));
      const message = `commit ${grade.commit.slice(0, SHORT_HASH_LENGTH)} by ${grade.agent} (${grade.model}) graded ${grade.grade} (${GRADE_LABELS[grade.grade]})${noCredit ? `; ${notCreditedText(noCredit)}` : ''}`;
      // `opencode run` shows no toast: the log line is where its user sees which commit was graded.
      deps.logger.info(`agent-tracker: /grade recorded: ${message}`);
      toast(`Your grade: ${grade.grade} (${GRADE_LABELS[grade.grade]})`, message, 'success');
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      deps.logger.warn(`agent-tracker: /grade recorded nothing: ${error.message}`);
      toast('/grade: nothing recorded', error.message, 'error');
    }
  };
}

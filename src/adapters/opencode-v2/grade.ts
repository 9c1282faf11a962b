/**
 * `/grade` on OpenCode 2: a command the plugin defines (`ctx.command.transform`), recorded from its
 * arguments as the user's grade before any model sees it, and finished at once (no prompt).
 */
import type { Logger } from '../../core/logger.js';
import { storeOpening } from '../../core/store/access.js';
import type { StoreAccess } from '../../core/store/access.js';
import { GRADE_COMMAND_NAME, parseGradeArguments } from '../../core/outcomes/grade-command.js';
import type { TrackingService } from '../../core/tracking/service.js';
import { InputError } from '../../core/validation.js';
import { recordSlashGrade } from '../../core/integrity/slash-grade.js';
import { promptText } from './events.js';
import type { V2CommandDefinition } from './host-types.js';

export function createGradeCommandV2(deps: { service: TrackingService<StoreAccess>; logger: Logger; project: string }): V2CommandDefinition {
  return {
    name: GRADE_COMMAND_NAME,
    description: 'Grade a commit as the user: /grade <-1|1|2|5> [commit] [note]',
    execute: async (invocation) => {
      // The commit is found in the record: not in the empty store of a file still opening.
      await storeOpening(deps.service.store);
      try {
        const parsed = parseGradeArguments(promptText(invocation.prompt));
        const { grade } = deps.service.gradeAsUser({ project: deps.project, commit: parsed.commit, grade: parsed.grade, note: parsed.note, via: 'slash-command' });
        recordSlashGrade(deps.service, deps.project, grade);
      } catch (error) {
        if (!(error instanceof InputError)) deps.logger.error(`agent-tracker: /grade failed: ${(error as Error).message}`);
        else deps.logger.warn(`agent-tracker: /grade recorded nothing: ${error.message}`);
      }
    },
  };
}

/**
 * The journal record of a `/grade` slash command: how it came, and suspect when this OpenCode was
 * itself started from an agent's session (a nested `opencode run --command grade`), so the grade
 * an agent gave itself that way is shown apart until the user reviews it.
 */
import type { TrackingService } from '../tracking/service.js';
import type { StoreAccess } from '../store/access.js';
import type { UserGradeRecord } from '../types.js';
import { slashCommandProvenance } from './provenance.js';

/** Records the provenance of a `/grade` the service just stored, and flushes it. */
export function recordSlashGrade(service: TrackingService<StoreAccess>, project: string, grade: UserGradeRecord, provenance = slashCommandProvenance('grade')): void {
  service.recordUserAction({ agent: grade.agent, project, summary: `User graded ${grade.commit.slice(0, 12)} ${grade.grade} (slash-command)`, provenance });
  const outcome = service.flush('user action');
  if (!outcome.ok) throw outcome.error;
}

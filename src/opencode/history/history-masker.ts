/**
 * How an import of OpenCode's history masks the text it stores (prompts as journal tasks, commit
 * messages), as live tracking masks it: with the values of the env files of the project it runs for,
 * of every project the database knows, and of each project whose sessions it replays, read before the
 * first of them is recorded (src/opencode/guards/stored-text.ts). Used by the plugin's import child
 * and by `agent-tracker backfill`.
 */
import { silentLogger } from '../../core/logger.js';
import type { StoreAccess } from '../../core/store/access.js';

export interface HistoryMasker {
  /** The text as it may be stored. Never throws. */
  mask(text: string): string;
  /** Reads a project folder's env files before its sessions are replayed (BackfillOptions.beforeProject). Never rejects. */
  learnProject(directory: string): Promise<void>;
}

/**
 * The masker of an import run for `project` (the plugin's project; none for the CLI, whose folder is not
 * the history's), with the known projects' env files read before it resolves.
 */
export async function historyMasker(store: StoreAccess, project: string | undefined): Promise<HistoryMasker> {
  const [{ ProjectSecrets }, { STORED_TEXT_LIMITS, StoredTextMasker }, { getAllProjects }] = await Promise.all([
    import('../guards/project-secrets.js'),
    import('../guards/stored-text.js'),
    import('../../core/projects/profiles.js'),
  ]);
  const current = project === undefined ? undefined : new ProjectSecrets(project, silentLogger);
  await current?.scan();
  const masker = new StoredTextMasker(current, silentLogger);
  await masker.addKnownProjects(() => getAllProjects(store, STORED_TEXT_LIMITS.maxOtherProjects + 1).map((profile) => profile.path), project ?? '');
  return {
    mask: (text) => masker.mask(text),
    learnProject: (directory) => (directory === project ? Promise.resolve() : masker.addProject(directory)),
  };
}

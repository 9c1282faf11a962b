/**
 * The changes of content (patch ids) that already earned credit in each project, so a commit of the
 * same change again (an amend, a re-commit, a cherry-pick) earns nothing. Kept per project in the
 * meta table, newest last, read once per project by each process and then kept in memory.
 */

/** Key prefix of a project's credited patch ids in the meta table. */
export const CREDITED_CHANGES_KEY_PREFIX = 'credited-changes:';
/**
 * How many credited changes a project remembers. The same change comes back soon after it earned
 * (an amend, a rebase of the branch being worked on); this many keeps weeks of commits at a few
 * tens of KiB per project.
 */
export const MAX_REMEMBERED_CHANGES = 500;

/** The meta-table write that keeps a project's list. */
export interface CreditedChangesWrite {
  key: string;
  value: string[];
}

function isPatchIdList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((id) => typeof id === 'string');
}

export class CreditedChanges {
  private readonly byProject = new Map<string, string[]>();

  /** `readMeta` reads one meta-table value (what is buffered first, then the store). */
  constructor(private readonly readMeta: (key: string) => unknown) {}

  /** Whether `patchId` already earned in `project`; false when the change is not known. */
  has(project: string, patchId: string | undefined): boolean {
    return patchId !== undefined && this.list(project).includes(patchId);
  }

  /** Notes that `patchId` earned in `project`; returns the meta write to buffer. */
  add(project: string, patchId: string): CreditedChangesWrite {
    const list = this.list(project).filter((id) => id !== patchId);
    list.push(patchId);
    const kept = list.slice(-MAX_REMEMBERED_CHANGES);
    this.byProject.set(project, kept);
    return { key: `${CREDITED_CHANGES_KEY_PREFIX}${project}`, value: [...kept] };
  }

  private list(project: string): string[] {
    let list = this.byProject.get(project);
    if (!list) {
      const stored = this.readMeta(`${CREDITED_CHANGES_KEY_PREFIX}${project}`);
      list = isPatchIdList(stored) ? stored.slice(-MAX_REMEMBERED_CHANGES) : [];
      this.byProject.set(project, list);
    }
    return list;
  }
}

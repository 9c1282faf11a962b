/**
 * The bookkeeping of git signals (reverts, follow-up fixes) per project: at which HEAD they were last
 * computed and what each tracked commit's fate was already counted as. It travels with the usage
 * records it counted into (export/import), or an import would count every signal a second time.
 */

/** What a commit's fate was already counted as. */
export interface CountedFate {
  reverted: boolean;
  followUpFix: boolean;
}

/** What was computed for a project: at which HEAD, and what each commit's fate was counted as. */
export interface GitSignalCache {
  head: string;
  counted: Record<string, CountedFate>;
}

/** The meta key prefix of the caches; the project path follows it. */
export const GIT_SIGNAL_CACHE_PREFIX = 'gitSignals\u0000';

/** The meta key of a project's cache. */
export function gitSignalCacheKey(project: string): string {
  return `${GIT_SIGNAL_CACHE_PREFIX}${project}`;
}

/**
 * Two caches of one project as one: a fate counted in either stays counted. When they were computed
 * at different HEADs the result names none, so the next refresh reads the branch again (and, with
 * the fates it already knows, counts nothing twice).
 */
export function mergeGitSignalCaches(mine: GitSignalCache | undefined, theirs: GitSignalCache): GitSignalCache {
  if (!mine) return theirs;
  const counted: Record<string, CountedFate> = { ...theirs.counted };
  for (const [hash, fate] of Object.entries(mine.counted)) {
    const other = counted[hash];
    counted[hash] = { reverted: fate.reverted || (other?.reverted ?? false), followUpFix: fate.followUpFix || (other?.followUpFix ?? false) };
  }
  return { head: mine.head === theirs.head ? mine.head : '', counted };
}

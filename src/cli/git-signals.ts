/**
 * Brings the git signals (reverts, follow-up fixes) of projects up to date before a command reads
 * them, so `report` and `recommend` never answer from signals as old as the last session start.
 *
 * Readers open the database read-only, so this runs BEFORE the reader opens it, in two steps: a
 * read-only look (each project with tracked commits: is its HEAD where the cached signals left it?),
 * and only when a HEAD moved, a short write through TrackingService's flush (the one write door)
 * for those projects. Nothing new, the usual case, writes nothing and never loads the writer.
 */
import fs from 'node:fs';
import type { TrackerConfig } from '../core/config.js';
import { silentLogger } from '../core/logger.js';
import type { GitSignalCache } from '../core/outcomes/git-outcomes.js';
import { headIfMoved } from '../core/projects/head-files.js';
import { storedCommitStartsWith } from '../core/tracking/commit-prefix.js';
import type { Store } from '../core/store/store.js';
import { gitSignalCacheKey } from '../contract/git-signal-cache.js';
import { withStore } from './context.js';

/** The projects that hold tracked commits (commits are keyed by [project, hash]): one seek per project. */
function projectsWithCommits(store: Store): string[] {
  const projects: string[] = [];
  let start: [string, string] | undefined;
  for (;;) {
    let project: string | undefined;
    // The first key from `start` on; leaving the loop closes the cursor.
    for (const key of store.tables.commits.getKeys(start ? { start } : {})) {
      project = key[0];
      break;
    }
    if (project === undefined) return projects;
    projects.push(project);
    // Every [project, hash] key sorts before [project + "\0", ""].
    start = [`${project}\u0000`, ''];
  }
}

/**
 * The projects among `projects` (default: every project with tracked commits) whose HEAD is no longer
 * the one their git signals were computed at, looked at in a store open for reading: nothing is
 * written, and where a repository's files tell its HEAD no git process starts.
 */
export async function projectsWithMovedSignals(store: Store, projects?: Iterable<string>): Promise<string[]> {
  // A folder that is gone has no signal; git and its module load only for a HEAD the files cannot tell.
  const withCommits = projects ? [...new Set(projects)].filter((project) => storedCommitStartsWith(store.tables.commits, project, '')) : projectsWithCommits(store);
  const moved: string[] = [];
  for (const project of withCommits.filter((candidate) => fs.existsSync(candidate))) {
    const cache = store.tables.meta.get(gitSignalCacheKey(project)) as GitSignalCache | undefined;
    if ((await headIfMoved(project, cache?.head)) !== undefined) moved.push(project);
  }
  return moved;
}

/** Writes the new git signals of `moved` (projects whose HEAD moved), through TrackingService's flush. */
export async function writeGitSignals(config: TrackerConfig, moved: readonly string[]): Promise<void> {
  if (moved.length === 0) return;
  const [outcomes, { TrackingService }] = await Promise.all([import('../core/outcomes/git-outcomes.js'), import('../core/tracking/service.js')]);
  await withStore(config, async (store) => {
    const service = new TrackingService({ store, config, logger: silentLogger, project: process.cwd() });
    await outcomes.refreshGitSignalsOf(service, moved);
    const outcome = service.flush('git signals');
    if (!outcome.ok) throw outcome.error;
  });
}

/**
 * Refreshes the git signals of `projects` (default: every project with tracked commits). Opens the
 * database read-only to look, and for writing only when a project's HEAD moved since its signals were
 * cached. A path with no database has nothing to refresh.
 */
export async function refreshProjectGitSignals(config: TrackerConfig, projects?: Iterable<string>): Promise<void> {
  await writeGitSignals(config, await withStore(config, (store) => projectsWithMovedSignals(store, projects), 'read'));
}

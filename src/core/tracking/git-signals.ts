/**
 * Git's later word on tracked commits (reverted, followed by a fix), counted on the usage records of
 * the setups that made them, and the project's git-signal cache kept with them.
 */
import { gitSignalCacheKey } from '../../contract/git-signal-cache.js';
import type { GitSignalCache } from '../../contract/git-signal-cache.js';
import type { CommitSignal } from '../outcomes/git-outcomes.js';
import type { TrackingContext } from './context.js';

/** The project's git-signal cache, from the buffer or the database. */
export function gitSignalCache(ctx: TrackingContext, project: string): GitSignalCache | undefined {
  const key = gitSignalCacheKey(project);
  const pending = ctx.buffer.mutations().find((m) => m.table === 'meta' && m.key === key);
  return (pending?.table === 'meta' ? pending.value : ctx.store.tables.meta.get(key)) as GitSignalCache | undefined;
}

/** Counts reverted / followed-up commits on the usage records of the setups that made them, with the cache, in one flush. */
export function recordGitSignals(ctx: TrackingContext, project: string, signals: readonly CommitSignal[], cache: GitSignalCache): void {
  for (const { commit, revertedCommits, followUpFixCommits } of signals) {
    ctx.ledger.judge(commit.sessionId, { agent: commit.agent, model: commit.model, project: commit.project }, { revertedCommits, followUpFixCommits });
  }
  ctx.buffer.put({ table: 'meta', key: gitSignalCacheKey(project), value: cache });
  ctx.flusher.afterRecord();
}

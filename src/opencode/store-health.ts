/**
 * The database's health as the user sees it in OpenCode: each problem with the database (from
 * preflight, the out-of-process check, the size limit) is ONE line, shown once per session as a
 * warning toast and written to OpenCode's log. Plus what happens around the store's life: spills
 * merged when it opens, the 80% warning and the index's deferred work after flushes, and the spill
 * and snapshot at the end.
 */
import type { PluginInput } from '@opencode-ai/plugin';
import fs from 'node:fs';
import type { ScoringRules } from '../core/rules.js';
import type { Logger } from '../core/logger.js';
import { snapshotIfDue } from '../core/store/snapshot.js';
import { mergeSpills } from '../core/store/spill.js';
import { usageWarning } from '../core/store/size-limit.js';
import { StoreNotWritableError } from '../core/store/store-errors.js';
import type { Store } from '../core/store/store.js';
import { finalFlush } from '../core/tracking/final-flush.js';
import type { TrackingService } from '../core/tracking/service.js';
import type { StoreAccess } from '../core/store/access.js';

/** How long a problem toast stays up: long enough to read a path and a command. */
export const NOTICE_TOAST_DURATION_MS = 15_000;

/** Lines already shown in this process: several plugin instances (one per project in `serve`) share one store. */
const shown = new Set<string>();

/** Shows `line` once per process: a warning toast and a warning in OpenCode's log. */
export function storeNotifier(client: PluginInput['client'], logger: Logger): (line: string) => void {
  return (line) => {
    if (shown.has(line)) return;
    shown.add(line);
    logger.warn(`agent-tracker: ${line}`);
    try {
      const pending = client?.tui?.showToast({ body: { title: 'agent-tracker', message: line, variant: 'warning', duration: NOTICE_TOAST_DURATION_MS } });
      if (pending && typeof pending.catch === 'function') pending.catch(() => undefined);
    } catch {
      // The log has it; a host without toasts must not lose the session.
    }
  };
}

/** Merges what earlier sessions spilled; the result is logged, a failure never stops the plugin. */
export function mergeSpilledSessions(store: Store, rules: ScoringRules, logger: Logger): void {
  try {
    const result = mergeSpills(store, rules);
    if (result.merged > 0) logger.info(`agent-tracker: merged ${result.mutations} change(s) kept from ${result.merged} earlier session(s)`);
    for (const left of result.left) logger.warn(`agent-tracker: ${left.file} waits for the next start: ${left.reason}`);
  } catch (error) {
    logger.warn(`agent-tracker: kept changes of earlier sessions wait for the next start: ${(error as Error).message}`);
  }
}

/** An after-flush listener that warns once when the file passes 80% of maxDatabaseSize. */
export function sizeWatcher(store: StoreAccess, notify: (line: string) => void): () => void {
  let warned = false;
  return () => {
    if (warned) return;
    let fileBytes: number;
    try {
      fileBytes = fs.statSync(store.path).size;
    } catch {
      return;
    }
    // Counting sessions walks a table: only once the cheap size test says it may matter.
    if (fileBytes < store.maxDatabaseSize * 0.8) return;
    const line = usageWarning(store.path, { fileBytes, limit: store.maxDatabaseSize, sessions: store.tables.usage.getKeysCount() });
    if (!line) return;
    warned = true;
    notify(line);
  };
}

/** How long after a flush the index's deferred work starts: past the turn's end, which waits for the flush. */
export const MAINTENANCE_DELAY_MS = 250;

/**
 * An after-flush listener that gives the store's indexes one step of their deferred work per flush
 * (the term index merges its runs: Store.maintainIndexes), each in a transaction of its own a
 * moment later, so the turn's end waits only for the flush. A failure is logged once, never thrown;
 * the work is left for the next flush. `stop` cancels what is scheduled and what later flushes
 * would (the runs stay, readable; the next session merges them).
 */
export function indexMaintainer(store: StoreAccess, logger: Logger, delayMs: number = MAINTENANCE_DELAY_MS): { onFlushed: () => void; stop: () => void } {
  let due = 0;
  let timer: NodeJS.Timeout | undefined;
  let lastError = '';
  let stopped = false;
  const step = (): void => {
    timer = undefined;
    try {
      const left = store.maintainIndexes();
      due = left ? due - 1 : 0;
    } catch (error) {
      due = 0;
      const message = (error as Error).message;
      if (!(error instanceof StoreNotWritableError) && message !== lastError) logger.warn(`agent-tracker: merging the prior-art index's recent entries waits for the next flush: ${message}`);
      lastError = message;
    }
    if (due > 0) schedule();
  };
  const schedule = (): void => {
    if (timer) return;
    timer = setTimeout(step, delayMs);
    timer.unref();
  };
  return {
    onFlushed: () => {
      if (stopped) return;
      due += 1;
      schedule();
    },
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      due = 0;
    },
  };
}

/** The end of a session: the last flush (what it cannot write is spilled), then a snapshot when one is due. */
export async function endSession(service: TrackingService<StoreAccess>, logger: Logger): Promise<void> {
  finalFlush(service, 'dispose', logger);
  try {
    await snapshotIfDue(service.store);
  } catch (error) {
    logger.warn(`agent-tracker: the daily snapshot was not taken: ${(error as Error).message}`);
  }
}

/**
 * The plugin's own import of OpenCode's history: the first time it runs for a store, everything;
 * after that, only what is newer than the watermark. Runs after plugin start, off every hook's path,
 * on its own TrackingService (its own buffer) over the shared store, yielding between sessions.
 * Sessions begun since the plugin started are left to live tracking. Failures are logged, never thrown.
 */
import type { TrackerConfig } from '../core/config.js';
import type { Logger } from '../core/logger.js';
import type { Store } from '../core/store/store.js';

/** How long after plugin start the import begins, so OpenCode's own start is not competed with. */
export const BACKGROUND_IMPORT_DELAY_MS = 2000;

export interface BackgroundImportOptions {
  store: Store;
  config: TrackerConfig;
  logger: Logger;
  project: string;
  /** OpenCode's data folder; defaults to the one OpenCode uses for this environment. */
  location?: string;
  delayMs?: number;
  /** When the plugin started (ms since the epoch): sessions created since are live tracking's. Defaults to now. */
  startedAt?: number;
  /** Masks text before it is stored (commit messages replayed from history carry what live tracking's do). */
  maskText?: (text: string) => string;
}

/** Schedules the import; returns a cancel function (for dispose). Never blocks, never throws. */
export function scheduleHistoryImport(options: BackgroundImportOptions): () => void {
  const startedAt = options.startedAt ?? Date.now();
  let cancelled = false;
  const timer = setTimeout(() => {
    void (async () => {
      try {
        // Loaded only now: plugin start never pays for the history readers or sql.js.
        const [{ importHistory }, { opencodeDataDir, NoHistoryError }, { TrackingService }] = await Promise.all([
          import('./history/import.js'),
          import('./history/locate.js'),
          import('../core/tracking/service.js'),
        ]);
        if (cancelled) return;
        const service = new TrackingService({
          store: options.store,
          config: options.config,
          logger: options.logger,
          project: options.project,
          ...(options.maskText ? { maskText: options.maskText } : {}),
        });
        const location = options.location ?? opencodeDataDir();
        try {
          const outcome = await importHistory(service, location, { createdBefore: startedAt });
          if (!outcome.upToDate && outcome.summary.sessions > 0) {
            options.logger.info(`agent-tracker: imported ${outcome.summary.sessions} past session(s) from ${outcome.summary.source}`, { ...outcome.summary });
          }
        } catch (error) {
          if (error instanceof NoHistoryError) return;
          throw error;
        }
      } catch (error) {
        options.logger.warn(`agent-tracker: importing OpenCode's past sessions failed, live tracking goes on: ${(error as Error).message}`);
      }
    })();
  }, options.delayMs ?? BACKGROUND_IMPORT_DELAY_MS);
  timer.unref();
  return () => {
    cancelled = true;
    clearTimeout(timer);
  };
}

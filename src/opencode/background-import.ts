/**
 * The plugin's own import of OpenCode's history: the first time it runs for a store, everything;
 * after that, only what is newer than the watermark. Runs after plugin start, off every hook's path.
 * Nothing new is known here from two `stat` calls (the store's files unchanged since the last
 * import), else from a read of the few sessions changed since (history/import-needed.ts: all of them
 * already recorded, as when the plugin tracked them live); otherwise the import runs in a child
 * process (history/import-child.ts), so OpenCode's own process never loads sql.js nor holds its WASM
 * heap (which is never given back). Sessions begun since the plugin started are left to live
 * tracking. Failures are logged, never thrown.
 */
import { spawn } from 'node:child_process';
import { builtScript } from '../core/fs/built-script.js';
import type { TrackerConfig } from '../core/config.js';
import type { Logger } from '../core/logger.js';
import type { Watermark } from '../core/backfill/watermark.js';
import { storeOpening } from '../core/store/access.js';
import type { StoreAccess } from '../core/store/access.js';
import type { ImportNeed } from './history/import-needed.js';

/** How long after plugin start the import begins, so OpenCode's own start is not competed with. */
export const BACKGROUND_IMPORT_DELAY_MS = 2000;
/** Bounds the child: a first import of thousands of sessions takes seconds; a stuck one is stopped. */
export const IMPORT_CHILD_TIMEOUT_MS = 10 * 60_000;

export interface BackgroundImportOptions {
  store: StoreAccess;
  config: TrackerConfig;
  logger: Logger;
  project: string;
  /** OpenCode's data folder; defaults to the one OpenCode uses for this environment. */
  location?: string;
  delayMs?: number;
  /** When the plugin started (ms since the epoch): sessions created since are live tracking's. Defaults to now. */
  startedAt?: number;
  /**
   * Asks whether the child would import anything (history/import-needed.ts); the plugin asks its
   * store's worker thread. Defaults to reading in this thread.
   */
  importNeeded?: (location: string, mark: Watermark | undefined, createdBefore: number) => Promise<ImportNeed>;
}

/** The built child script: beside the history readers in dist/opencode/history/, from tsc's background-import.js and from the bundle's chunks in dist/opencode/ alike. */
export function importChildScript(): string {
  return builtScript(import.meta.url, './history/import-child.js');
}

/** The import's child process; resolves with its one-line answer. Never rejects. */
async function runImportChild(job: string, onChild: (kill: () => void) => void): Promise<{ ok: true; sessions: number; source?: string } | { ok: false; message: string }> {
  const [{ childRuntime }, { IMPORT_JOB_ENV }] = await Promise.all([import('../core/store/child-runtime.js'), import('./history/import-job.js')]);
  const runtime = childRuntime();
  return new Promise((resolve) => {
    const child = spawn(runtime.command, [importChildScript()], { env: { ...runtime.env, [IMPORT_JOB_ENV]: job }, stdio: ['ignore', 'pipe', 'pipe'], timeout: IMPORT_CHILD_TIMEOUT_MS });
    onChild(() => child.kill());
    // Never keeps OpenCode alive: neither the child nor its pipes hold the event loop.
    child.unref();
    for (const stream of [child.stdout, child.stderr]) (stream as unknown as { unref?: () => void }).unref?.();
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-500)));
    child.on('error', (error) => resolve({ ok: false, message: error.message }));
    child.on('close', (code, signal) => {
      const line = stdout.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(line) as { ok: true; sessions: number; source?: string } | { ok: false; message: string });
      } catch {
        resolve({ ok: false, message: `the import process ended (${signal ?? `exit ${code}`}) without an answer${stderr ? `: ${stderr.trim().split('\n').pop()}` : ''}` });
      }
    });
  });
}

/** A scheduled import. */
export interface ScheduledImport {
  /** Cancels it when it has not started; stops a running child (dispose). */
  stop(): void;
  /** Starts it now instead of at its timer, once (a session's first model request: OpenCode's start is over). */
  now(): void;
}

/**
 * Schedules the import for `delayMs` after start, or sooner through `now`. Never blocks, never throws.
 * A one-shot `opencode run` may end before the timer, which is why the plugin calls `now` at a
 * session's first model request.
 */
export function scheduleHistoryImport(options: BackgroundImportOptions): ScheduledImport {
  const startedAt = options.startedAt ?? Date.now();
  let cancelled = false;
  let started = false;
  let killChild: (() => void) | undefined;
  const run = (): void => {
    if (started || cancelled) return;
    started = true;
    clearTimeout(timer);
    void (async () => {
      try {
        const [{ historySignature, opencodeDataDir }, { advanceWatermark, readWatermark }, { encodeJob }] = await Promise.all([
          import('./history/locate.js'),
          import('../core/backfill/watermark.js'),
          import('./history/import-job.js'),
        ]);
        const location = options.location ?? opencodeDataDir();
        // The watermark is in the record: read once the store is open (a store that cannot be read imports nothing now).
        await storeOpening(options.store);
        if (cancelled || !options.store.attached) return;
        const mark = readWatermark(options.store, location);
        // Taken before the store is read: a change while it is read is seen at the next start.
        const signature = historySignature(location);
        if (mark?.signature === signature) return;
        const need = await (options.importNeeded
          ? options.importNeeded(location, mark, startedAt)
          : (await import('./history/import-needed.js')).historyImportNeeded(options.store, location, mark, startedAt));
        if (cancelled) return;
        if (!need.needed) {
          try {
            // Moved on, so the sessions read here are not read again at every start.
            advanceWatermark(options.store, location, { updatedAt: need.newestUpdate, signature, importedAt: new Date().toISOString() });
          } catch {
            // Refused (the file is being checked, or its worker is gone): the next start reads them again.
          }
          options.logger.info(`agent-tracker: OpenCode's history holds nothing new to import (${need.sessions} session(s) read, all recorded); no import process started`, { sessions: need.sessions });
          return;
        }
        // The plugin's clean commits so far are recorded first: the child goes on from that state (verify.ts).
        options.store.keepVerifiedIfOwn();
        const result = await runImportChild(encodeJob(location, options.project, startedAt, options.config), (kill) => (killChild = kill));
        if (cancelled) return;
        if (!result.ok) throw new Error(result.message);
        if (result.sessions > 0) options.logger.info(`agent-tracker: imported ${result.sessions} past session(s) from ${result.source ?? location}`, { sessions: result.sessions });
      } catch (error) {
        options.logger.warn(`agent-tracker: importing OpenCode's past sessions failed, live tracking goes on: ${(error as Error).message}`);
      }
    })();
  };
  const timer = setTimeout(run, options.delayMs ?? BACKGROUND_IMPORT_DELAY_MS);
  timer.unref();
  return {
    stop: () => {
      cancelled = true;
      clearTimeout(timer);
      killChild?.();
    },
    now: run,
  };
}

/**
 * The writing half of `agent-tracker backfill`: opens the store for writing, replays OpenCode's history
 * through TrackingService and returns the summary. It runs in a worker thread (backfill-worker.ts) started
 * with a small young generation and a tight old-generation growth, so it takes only plain data in and gives
 * plain data back; the command's thread keeps the arguments, the nothing-new check, the progress line and
 * the printing.
 */
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { builtScript } from '../../core/fs/built-script.js';
import { UnknownHistoryLayoutError } from '../../core/backfill/history.js';
import type { BackfillSummary } from '../../core/backfill/summary.js';
import type { TrackerConfig } from '../../core/config.js';
import type { ProcessFacts } from '../../core/integrity/user-only.js';
import { silentLogger } from '../../core/logger.js';
import { UNKNOWN } from '../../core/types.js';
import { NoHistoryError } from '../../opencode/history/locate.js';
import { CliError, printedWarnings, withStore } from '../context.js';
import { confirmUserOnly } from '../user-only.js';
import type { ProgressReporter } from './progress.js';

/** What the import needs, as data a worker thread can be handed. */
export interface ImportRequest {
  config: TrackerConfig;
  /** OpenCode's data folder to read. */
  location: string;
  /** The folder the command runs in: the project a user-only action is recorded against. */
  project: string;
  dryRun: boolean;
  createdSince?: number;
  directory?: string;
  /** Set for a user-only import (`--from` another folder): the facts about the command's process, read on its own thread. */
  userOnlyFacts?: ProcessFacts;
}

/** The summary, or undefined when the store was found unchanged once opened for writing. */
export type ImportResult = BackfillSummary | undefined;

/** Progress as the worker reports it. */
export type ImportEvent = { kind: 'total'; total: number } | { kind: 'progress'; done: number };

/** The worker's last word: its result, or its failure as one line (a CliError's or another error's). */
export type ImportEnd = { kind: 'done'; result: ImportResult } | { kind: 'failed'; message: string; userError: boolean };

/**
 * V8's young generation of the import's thread, in MiB. The replay's short-lived objects die young;
 * left to itself V8 grows the semi-spaces to 16 MiB each on Node 20 and more on newer Node once a flush
 * batch survives scavenges, and that space stays resident until the process ends. 8 MiB costs no CPU
 * measurable against 16 since the import allocates less, and keeps a 3,000-session import's peak about
 * 7 MiB lower (docs/PERFORMANCE.md, twenty-ninth pass).
 */
export const IMPORT_YOUNG_GENERATION_MB = 8;

/**
 * How far V8 lets the old generation grow past what a full collection left alive, in percent. The
 * replay's flush batches outlive two scavenges and are promoted, then die at the flush, so the old
 * generation fills with garbage; V8's own factor (up to 4x the live heap) kept about 35 MiB of it
 * committed at 3,000 sessions. At 100 the heap is collected at twice its live size: about twice as
 * many full collections (some 0.1 s of a 3,000-session import). V8's flags are the process's, set
 * before the worker is made: the command's thread, which only waits, gets it too.
 */
export const IMPORT_HEAP_GROWING_PERCENT = 100;

/**
 * Imports the history the request names, in this thread.
 * @throws CliError for what the user can fix (no history, an unknown layout, a refused user-only import).
 */
export async function importInThisThread(request: ImportRequest, onEvent?: (event: ImportEvent) => void): Promise<ImportResult> {
  const [{ TrackingService }, { importHistory }, { historyMasker }] = await Promise.all([
    import('../../core/tracking/service.js'),
    import('../../opencode/history/import.js'),
    import('../../opencode/history/history-masker.js'),
  ]);
  return withStore(request.config, async (store): Promise<ImportResult> => {
    const { project } = request;
    const provenance = request.userOnlyFacts ? confirmUserOnly('backfill', { store, project, facts: request.userOnlyFacts }) : undefined;
    // What it stores is masked as the plugin's import masks it: the env values of each session's project and the known ones.
    const masker = request.config.protectEnvFiles && !request.dryRun ? await historyMasker(store, undefined) : undefined;
    const service = new TrackingService({ store, config: request.config, logger: silentLogger, project, ...(masker ? { maskText: masker.mask } : {}) });
    try {
      const outcome = await importHistory(service, request.location, {
        dryRun: request.dryRun,
        ...(masker ? { beforeProject: masker.learnProject } : {}),
        ...(request.createdSince !== undefined ? { createdSince: request.createdSince } : {}),
        ...(request.directory !== undefined ? { directory: request.directory } : {}),
        ...(onEvent ? { onProgress: (done: number) => onEvent({ kind: 'progress', done }), onTotal: (total: number) => onEvent({ kind: 'total', total }) } : {}),
        classifyProject: async (directory) => (await import('../../core/projects/init-project.js')).profileIfMissing(store, directory),
      });
      if (provenance) {
        service.recordUserAction({ agent: UNKNOWN, project, summary: `User backfilled the history store at ${request.location} (${provenance.via})`, provenance });
        const recorded = service.flush('user action');
        if (!recorded.ok) throw recorded.error;
      }
      return outcome.upToDate ? undefined : outcome.summary;
    } catch (error) {
      if (error instanceof NoHistoryError) throw new CliError(`${error.message}. Pass --from with OpenCode's data folder, or run OpenCode once first.`);
      if (error instanceof UnknownHistoryLayoutError) throw new CliError(`${error.message}. Nothing was written; an update of agent-tracker may know it.`);
      throw error;
    }
  });
}

/** Sets IMPORT_HEAP_GROWING_PERCENT where the runtime has V8's flags; Bun (`bunx --bun`) has none and keeps its own collector's. */
function tightenOldGeneration(): void {
  try {
    setFlagsFromString(`--heap-growing-percent=${IMPORT_HEAP_GROWING_PERCENT}`);
  } catch {
    // Bun throws ERR_NOT_IMPLEMENTED: the import runs the same, only without the tighter heap.
  }
}

/**
 * Imports in a worker thread with a young generation of IMPORT_YOUNG_GENERATION_MB, drawing `progress` from its
 * messages. The worker's failure is this call's: a CliError stays a CliError, anything else an Error
 * with the same message; the worker's stderr lines reach this process's stderr before it resolves.
 */
export function importInWorker(request: ImportRequest, progress: ProgressReporter | undefined): Promise<ImportResult> {
  tightenOldGeneration();
  const worker = new Worker(builtScript(import.meta.url, './backfill-worker.js', './commands/backfill-worker.js'), {
    workerData: { request, progress: progress !== undefined, warned: printedWarnings() },
    resourceLimits: { maxYoungGenerationSizeMb: IMPORT_YOUNG_GENERATION_MB },
  });
  return new Promise<ImportResult>((resolve, reject) => {
    let end: ImportEnd | undefined;
    let crash: Error | undefined;
    worker.on('message', (message: ImportEvent | ImportEnd) => {
      if (message.kind === 'total') progress?.start(message.total);
      else if (message.kind === 'progress') progress?.update(message.done);
      else end = message;
    });
    worker.on('error', (error: Error) => {
      crash = error;
    });
    // Settled on exit only, so everything the worker wrote to stderr is out first.
    worker.on('exit', (code) => {
      if (end?.kind === 'done') resolve(end.result);
      else if (end?.kind === 'failed') reject(end.userError ? new CliError(end.message) : new Error(end.message));
      else reject(crash ?? new Error(`the import stopped before it finished (worker exit code ${code}); what was flushed before stays, run the command again`));
    });
  });
}

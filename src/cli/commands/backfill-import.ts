/**
 * The writing half of `agent-tracker backfill`: opens the store for writing, replays OpenCode's history
 * through TrackingService and returns the summary. It runs in a process of its own (backfill-child.ts)
 * started with a small young generation and a tight old-generation growth, so it takes only plain data in
 * and gives plain data back; the command's process keeps the arguments, the nothing-new check, the progress
 * line and the printing.
 */
import { fork } from 'node:child_process';
import { builtScript } from '../../core/fs/built-script.js';
import { UnknownHistoryLayoutError } from '../../core/backfill/history.js';
import type { BackfillSummary } from '../../core/backfill/summary.js';
import { portableConfig } from '../../core/config.js';
import type { PortableConfig, TrackerConfig } from '../../core/config.js';
import type { ProcessFacts } from '../../core/integrity/user-only.js';
import { silentLogger } from '../../core/logger.js';
import { UNKNOWN } from '../../core/types.js';
import { NoHistoryError } from '../../opencode/history/locate.js';
import { CliError, printedWarnings, withStore } from '../context.js';
import { confirmUserOnly } from '../user-only.js';
import type { ProgressReporter } from './progress.js';

/** What the import needs, as data another process can be handed. */
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

/** Progress as the import process reports it. */
export type ImportEvent = { kind: 'total'; total: number } | { kind: 'progress'; done: number };

/** The import process's last word: its result, or its failure as one line (a CliError's or another error's). */
export type ImportEnd = { kind: 'done'; result: ImportResult } | { kind: 'failed'; message: string; userError: boolean };

/**
 * V8's semi-spaces of the import's process, in MiB each. The replay's short-lived objects die young;
 * left to itself V8 grows the semi-spaces to 16 MiB each on Node 20 and more on newer Node once a flush
 * batch survives scavenges, and that space stays resident until the process ends. Paired at 1,000
 * sessions, semi-spaces of 2 MiB peak 4 MiB lower than semi-spaces of 4 MiB for the same CPU; 1 MiB
 * costs 4-8% more CPU (docs/PERFORMANCE.md, thirtieth pass).
 */
const IMPORT_SEMI_SPACE_MB = 2;

/**
 * How far V8 lets the old generation grow past what a full collection left alive, in percent. The
 * replay's flush batches outlive two scavenges and are promoted, then die at the flush, so the old
 * generation fills with garbage; V8's own factor (up to 4x the live heap) kept about 35 MiB of it
 * committed at 3,000 sessions. At 100 the heap is collected at twice its live size: about twice as
 * many full collections (some 0.1 s of a 3,000-session import).
 */
const IMPORT_HEAP_GROWING_PERCENT = 100;

/** What the import process's runtime starts with: V8's settings above under Node; Bun (`bunx --bun`) takes no V8 flags and keeps its own collector's. */
function importExecArgv(): string[] {
  if ('bun' in process.versions) return [];
  return [`--max-semi-space-size=${IMPORT_SEMI_SPACE_MB}`, `--heap-growing-percent=${IMPORT_HEAP_GROWING_PERCENT}`];
}

/**
 * The import process's environment: the command's, but for NODE_EXTRA_CA_CERTS. Node 20 reads and parses
 * that file as it starts (70-80 ms of CPU for a system bundle of 144 certificates, docs/PERFORMANCE.md,
 * thirteenth pass), and the import opens no TLS connection.
 */
function importEnv(): NodeJS.ProcessEnv {
  const { NODE_EXTRA_CA_CERTS: _certificates, ...rest } = process.env;
  return rest;
}

/** What the command hands the import process, as its first message (JSON). */
export interface ImportInput {
  request: Omit<ImportRequest, 'config'> & { config: PortableConfig };
  progress: boolean;
  /** Warnings the command printed before it started the import: not printed again. */
  warned: string[];
}

/**
 * Imports the history the request names, in this process.
 * @throws CliError for what the user can fix (no history, an unknown layout, a refused user-only import).
 */
export async function importInThisProcess(request: ImportRequest, onEvent?: (event: ImportEvent) => void): Promise<ImportResult> {
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

/**
 * Imports in a process of its own (the command's runtime with importExecArgv), drawing `progress` from its
 * messages. The import's failure is this call's: a CliError stays a CliError, anything else an Error with
 * the same message; its stderr is the command's, written before this resolves. A process on its own
 * rather than a thread: V8's heap settings are given where the heap is made, and the command's own heap,
 * code and allocator are not in the import's memory (docs/PERFORMANCE.md, thirtieth pass).
 */
export function importInChild(request: ImportRequest, progress: ProgressReporter | undefined): Promise<ImportResult> {
  return new Promise<ImportResult>((resolve, reject) => {
    const child = fork(builtScript(import.meta.url, './backfill-child.js', './commands/backfill-child.js'), [], {
      execArgv: importExecArgv(),
      env: importEnv(),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let end: ImportEnd | undefined;
    let crash: Error | undefined;
    child.on('message', (message: ImportEvent | ImportEnd) => {
      if (message.kind === 'total') progress?.start(message.total);
      else if (message.kind === 'progress') progress?.update(message.done);
      else end = message;
    });
    child.on('error', (error: Error) => {
      crash ??= error;
    });
    // Settled once the process has ended and its channel closed: everything it wrote and sent is in.
    child.on('close', (code, signal) => {
      if (end?.kind === 'done') resolve(end.result);
      else if (end?.kind === 'failed') reject(end.userError ? new CliError(end.message) : new Error(end.message));
      else {
        const how = signal ? `signal ${signal}` : `exit code ${code}`;
        reject(crash ?? new Error(`the import stopped before it finished (${how}); what was flushed before stays, run the command again`));
      }
    });
    const input: ImportInput = { request: { ...request, config: portableConfig(request.config) }, progress: progress !== undefined, warned: printedWarnings() };
    child.send(input);
  });
}

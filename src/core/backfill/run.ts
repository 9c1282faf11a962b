/**
 * The backfill: streams a host's past sessions from its history store and replays each through
 * TrackingService, a chunk of whole sessions per flush (one transaction), yielding to the event loop
 * between sessions. Bad input is counted and skipped, never fatal. Used by `agent-tracker backfill`,
 * by the plugin's background import, and by crash repair's refill.
 */
import fs from 'node:fs';
import type { TrackingService } from '../tracking/service.js';
import { outputCanShowCommits } from './bash-facts.js';
import { oldestWitnessable, readProjectCommits } from './commit-witness.js';
import type { ProjectCommits } from './commit-witness.js';
import type { HistoryQuery, HistorySource, HostSession } from './history.js';
import { COPY_OF_RECORDED, IMPORTED_WHOLE, ReplayLedger } from './replay-ledger.js';
import { addsAnything, heldEvents, noAdditions, replayProbe } from './replay-probe.js';
import type { ReplayAdditions } from './replay-probe.js';
import { replaySession } from './replay-session.js';
import type { BackfillSummary } from './summary.js';

/** Buffered mutations after which the sessions replayed so far are flushed (whole sessions only). */
const FLUSH_EVERY_MUTATIONS = 2000;
/**
 * The process's resident memory above which the import gives back the pages of the file it mapped
 * (Store.releaseMappedPages) after each flush: lmdb maps the whole file, and every page a flush touches
 * stays in the process until the map is closed, more of them the larger the file. A release reopens
 * the file (lmdb-js makes its table code anew), so it is done only over this budget: paired at 3,000,
 * 6,000 and 10,000 sessions, releasing after every flush over it costs 1.00-1.04x CPU and keeps the
 * mapped part flat (docs/PERFORMANCE.md, thirtieth pass).
 */
export const RESIDENT_BUDGET_BYTES = 140 * 1024 * 1024;
/** Counted once per project whose folder no longer exists: its sessions are imported, only its classification is skipped. */
export const PROJECT_GONE = 'classifying a project whose folder is gone (its sessions are imported)';

export interface BackfillOptions extends HistoryQuery {
  /** Count what would be recorded, write nothing. */
  dryRun?: boolean;
  /** Called once before the first session with how many sessions will be read. */
  onTotal?: (total: number) => void;
  /** Called after each session with the sessions done so far. */
  onProgress?: (done: number) => void;
  /** Profiles a project folder once per run (like init-project); errors are counted, not thrown. */
  classifyProject?: (directory: string) => Promise<unknown>;
  /**
   * Called once per project folder before its first session is replayed (not in a dry run), so what is
   * stored of its sessions is masked with its env files' values (history-masker.ts). Must not reject.
   */
  beforeProject?: (directory: string) => Promise<void>;
  /** Resident memory (bytes) above which mapped pages are given back; RESIDENT_BUDGET_BYTES unless set. */
  residentBudget?: number;
}

function add(skipped: Record<string, number>, reason: string, count = 1): void {
  skipped[reason] = (skipped[reason] ?? 0) + count;
}

/** The folder a session's work belongs to (the project, as live tracking names it). */
function projectOf(session: HostSession): string {
  return session.directory;
}

/** Whether a session ran a command that can make a commit (bash-facts.ts), so its project's git is read. */
function claimsCommits(session: HostSession): boolean {
  return session.messages.some((message) => message.tools.some((call) => call.tool === 'bash' && outputCanShowCommits(call.command)));
}

const nextTick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What the summary counts of what was added. */
function addCounts(summary: BackfillSummary, counters: ReplayAdditions['counters']): void {
  summary.messages += counters.messages ?? 0;
  summary.toolCalls += counters.toolCalls ?? 0;
  summary.commits += counters.commits ?? 0;
  summary.pushes += counters.pushes ?? 0;
}

/**
 * Imports `source` into `service`'s store. Each session lands whole in one flush transaction;
 * replayed events already held (live or an earlier backfill) add nothing, and the summary counts
 * only what was added (with `dryRun`, what would be).
 * @throws the flush error when the database refuses a write (what was flushed before stays).
 */
export async function runBackfill(service: TrackingService, source: HistorySource, options: BackfillOptions = {}): Promise<BackfillSummary> {
  const summary: BackfillSummary = {
    source: source.description,
    sessions: 0,
    messages: 0,
    toolCalls: 0,
    commits: 0,
    pushes: 0,
    skipped: {},
    latestUpdate: options.updatedAfter ?? 0,
    dryRun: options.dryRun === true,
  };
  const classified = new Set<string>();
  const witnesses = new Map<string, ProjectCommits | undefined>();
  /** The oldest commit time a call of this run's sessions can hold (epoch ms), asked of the source when a project's git is first read. */
  let witnessSince: { at: number | undefined } | undefined;
  const prepared = new Set<string>();
  /** Sessions read so far (the progress counter; the summary counts only those that added something). */
  let read = 0;
  const store = service.store;
  const ledger = new ReplayLedger(store, source.uniqueMessageIds === true);
  const residentBudget = options.residentBudget ?? RESIDENT_BUDGET_BYTES;
  const flush = (): void => {
    const outcome = service.flush('backfill');
    if (!outcome.ok) throw outcome.error;
    if (process.memoryUsage.rss() >= residentBudget) store.releaseMappedPages();
  };
  // What a run added is what its flushes counted: the store's write reports each replayed event as the
  // counters it really added (nothing for an event it held). A dry run writes nothing, so each session is
  // compared with what the store holds instead (replay-probe.ts).
  const addedTo = new Set<string>();
  const stopCounting = options.dryRun
    ? undefined
    : service.onFlushed((_agents, written) => {
        for (const mutation of written) {
          if (mutation.table !== 'usage' || !Object.values(mutation.counters).some((value) => value !== 0)) continue;
          addedTo.add(mutation.key[0]);
          addCounts(summary, mutation.counters);
        }
      });
  try {
    options.onTotal?.(source.count(options));
    for await (const item of source.sessions(options)) {
      if ('unreadable' in item) {
        add(summary.skipped, item.unreadable);
        continue;
      }
      const project = projectOf(item);
      if (item.updatedAt > summary.latestUpdate) summary.latestUpdate = item.updatedAt;
      // Replayed history earns nothing a recorded session already earned (src/core/backfill/replay-ledger.ts).
      if (ledger.isCopy(item, project)) {
        add(summary.skipped, COPY_OF_RECORDED);
        continue;
      }
      if (ledger.heldWithoutEvents(item.id)) {
        add(summary.skipped, IMPORTED_WHOLE);
        continue;
      }
      if (options.beforeProject && !options.dryRun && !prepared.has(project)) {
        prepared.add(project);
        await options.beforeProject(project);
      }
      // The commits a session says it made are looked up in its project's git, read once per run (not in a
      // dry run), from the oldest time a call of this run's sessions can hold: not a repository's whole past.
      if (!options.dryRun && !witnesses.has(project) && claimsCommits(item)) {
        witnessSince ??= { at: oldestWitnessable(source.earliestCreated(options)) };
        witnesses.set(project, await readProjectCommits(project, witnessSince.at));
      }
      let replayed: ReturnType<typeof replaySession>;
      if (options.dryRun) {
        const added = noAdditions();
        replayed = replaySession(replayProbe(heldEvents(store, item.id), added), item, project, ledger);
        if (addsAnything(added)) summary.sessions += 1;
        addCounts(summary, added.counters);
      } else {
        // Whole sessions only: the buffer's own bound must not split one across two transactions.
        replayed = service.inOneFlush(() => replaySession(service, item, project, ledger, witnesses.get(project)));
      }
      ledger.learn(item, project);
      for (const [reason, count] of replayed.skipped) add(summary.skipped, reason, count);
      if (!classified.has(project)) {
        classified.add(project);
        if (!fs.existsSync(project)) add(summary.skipped, PROJECT_GONE);
        else if (!options.dryRun && options.classifyProject) {
          try {
            await options.classifyProject(project);
          } catch (error) {
            add(summary.skipped, `project not classified: ${(error as Error).message}`);
          }
        }
      }
      if (!options.dryRun && service.pendingMutations >= FLUSH_EVERY_MUTATIONS) flush();
      read += 1;
      options.onProgress?.(read);
      await nextTick();
    }
    if (!options.dryRun) flush();
  } finally {
    stopCounting?.();
  }
  if (!options.dryRun) summary.sessions = addedTo.size;
  return summary;
}

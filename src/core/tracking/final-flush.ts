/**
 * The last write of a service (the plugin is disposed, the process exits): flush, and keep whatever
 * still cannot be written (full disk, size limit, damaged or newer file, a check not finished) in a
 * spill file that the next start merges. Nothing recorded is dropped.
 */
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { writeSpill } from '../store/spill.js';
import type { StoreAccess } from '../store/access.js';
import type { TrackingService } from './service.js';

export interface FinalFlushResult {
  /** The spill file written, when something could not reach the database. */
  spilled?: string;
  mutations: number;
}

export function finalFlush(service: TrackingService<StoreAccess>, reason: string, logger: Logger = silentLogger): FinalFlushResult {
  const store = service.store;
  const outcome = service.flush(reason, { final: true });
  if (service.pendingMutations === 0) {
    // The file was verified when it opened and has since changed by this process's own commits
    // alone: it stays verified (verify.ts). Changed by any other hand, it is checked next time.
    if (outcome.ok && store.attached && !store.refusal) {
      store.keepVerifiedIfOwn();
    }
    return { mutations: 0 };
  }
  const mutations = service.takePending();
  try {
    const spilled = writeSpill(store.path, mutations);
    logger.warn(`agent-tracker: ${mutations.length} change(s) could not be saved in ${store.path}; they are kept in ${spilled} and merged into the database at the next start`);
    return { spilled, mutations: mutations.length };
  } catch (error) {
    logger.error(`agent-tracker: ${mutations.length} change(s) could not be saved, not even in a spill file: ${(error as Error).message}`);
    return { mutations: mutations.length };
  }
}

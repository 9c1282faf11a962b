/**
 * The plugin's background import of OpenCode's history, run as a child process (node, or OpenCode's
 * own binary as Bun with BUN_BE_BUN=1) by background-import.ts: sql.js, its WASM heap and the
 * store's pages then never grow OpenCode's process (WASM memory is never given back), and the
 * session's own process does none of the reading or replaying. The child opens the tracker database
 * itself (lmdb serves several processes; replayed events are written once, whoever writes first)
 * and writes through TrackingService's flush, as the in-process import did.
 *
 * Input: the job (import-job.ts) as JSON in the environment variable IMPORT_JOB_ENV. Output: one JSON line,
 * `{"ok":true,"sessions":N,"source":"..."}` or `{"ok":false,"message":"..."}`.
 */
import { silentLogger } from '../../core/logger.js';
import { termIndexer } from '../../core/search/indexer.js';
import { Store } from '../../core/store/store.js';
import { noteSoundIfRecorded } from '../../core/store/verify.js';
import { TrackingService } from '../../core/tracking/service.js';
import { historyMasker } from './history-masker.js';
import { importHistory } from './import.js';
import { decodeJob, IMPORT_JOB_ENV } from './import-job.js';
import type { ImportChildResult } from './import-job.js';
import { NoHistoryError } from './locate.js';

async function runJob(): Promise<ImportChildResult> {
  const job = decodeJob(process.env[IMPORT_JOB_ENV]);
  const store = Store.open({ path: job.config.databasePath, maxDatabaseSize: job.config.maxDatabaseSize, indexer: termIndexer });
  // From a recorded sound state, this child's clean commits are recorded too: its write is then no
  // reason for the next plugin start to read the whole file again in the check's child process.
  noteSoundIfRecorded(store.path);
  try {
    // What it stores is masked like live tracking's: with the values of every known project's env files.
    const masker = job.config.protectEnvFiles ? await historyMasker(store, job.project) : undefined;
    const service = new TrackingService({ store, config: job.config, logger: silentLogger, project: job.project, ...(masker ? { maskText: masker.mask } : {}) });
    const outcome = await importHistory(service, job.location, { createdBefore: job.createdBefore, ...(masker ? { beforeProject: masker.learnProject } : {}) });
    store.keepVerifiedIfOwn();
    return outcome.upToDate ? { ok: true, sessions: 0 } : { ok: true, sessions: outcome.summary.sessions, source: outcome.summary.source };
  } catch (error) {
    if (error instanceof NoHistoryError) return { ok: true, sessions: 0 };
    throw error;
  } finally {
    store.close();
  }
}

let result: ImportChildResult;
try {
  result = await runJob();
} catch (error) {
  result = { ok: false, message: (error as Error).message };
}
process.stdout.write(`${JSON.stringify(result)}\n`);

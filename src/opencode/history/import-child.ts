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
import { termIndexer } from '../../core/query/indexer.js';
import { Store } from '../../core/store/store.js';
import { TrackingService } from '../../core/tracking/service.js';
import { importHistory } from './import.js';
import { decodeJob, IMPORT_JOB_ENV } from './import-job.js';
import type { ImportChildResult } from './import-job.js';
import { NoHistoryError } from './locate.js';

async function runJob(): Promise<ImportChildResult> {
  const job = decodeJob(process.env[IMPORT_JOB_ENV]);
  const store = Store.open({ path: job.config.databasePath, maxDatabaseSize: job.config.maxDatabaseSize, indexer: termIndexer });
  try {
    const service = new TrackingService({ store, config: job.config, logger: silentLogger, project: job.project });
    const outcome = await importHistory(service, job.location, { createdBefore: job.createdBefore });
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

/**
 * The worker thread of `agent-tracker backfill` (started by backfill-import.ts): runs the import with the
 * request it was handed, posts progress while it runs, then its result or its failure as one message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { CliError, notePrintedWarnings } from '../context.js';
import { importInThisThread } from './backfill-import.js';
import type { ImportEnd, ImportEvent, ImportRequest } from './backfill-import.js';

interface WorkerInput {
  request: ImportRequest;
  progress: boolean;
  /** Warnings the command printed before it started this thread: not printed again. */
  warned: string[];
}

async function work(port: NonNullable<typeof parentPort>, input: WorkerInput): Promise<void> {
  const post = (message: ImportEvent | ImportEnd): void => port.postMessage(message);
  let end: ImportEnd;
  notePrintedWarnings(input.warned);
  try {
    end = { kind: 'done', result: await importInThisThread(input.request, input.progress ? post : undefined) };
  } catch (error) {
    end = { kind: 'failed', message: error instanceof Error ? error.message : String(error), userError: error instanceof CliError };
  }
  post(end);
}

if (parentPort) await work(parentPort, workerData as WorkerInput);

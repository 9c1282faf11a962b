/**
 * The import process of `agent-tracker backfill` (started by backfill-import.ts): takes the request from
 * its first message, sends progress while it runs, then its result or its failure as one message, and
 * ends. When the command's process goes away first (the channel closes), it stops between two sessions:
 * what was flushed stays, as when the command is interrupted.
 */
import { configFromPortable } from '../../core/config.js';
import { CliError, notePrintedWarnings } from '../context.js';
import { importInThisProcess } from './backfill-import.js';
import type { ImportEnd, ImportEvent, ImportInput } from './backfill-import.js';

type Send = (message: ImportEvent | ImportEnd, done?: () => void) => void;

async function work(send: Send, input: ImportInput): Promise<void> {
  let end: ImportEnd;
  notePrintedWarnings(input.warned);
  try {
    end = { kind: 'done', result: await importInThisProcess({ ...input.request, config: configFromPortable(input.request.config) }, input.progress ? (event) => send(event) : undefined) };
  } catch (error) {
    end = { kind: 'failed', message: error instanceof Error ? error.message : String(error), userError: error instanceof CliError };
  }
  process.off('disconnect', orphaned);
  // Once the last word is out, the channel is let go so the process can end.
  send(end, () => {
    if (process.connected) process.disconnect();
  });
}

function orphaned(): void {
  process.exit(1);
}

if (process.send) {
  const channel = process.send.bind(process);
  const send: Send = (message, done) => void channel(message, undefined, undefined, done && (() => done()));
  process.on('disconnect', orphaned);
  process.once('message', (input: ImportInput) => void work(send, input));
}

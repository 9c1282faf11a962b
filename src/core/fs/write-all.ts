/**
 * Writes that deliver every byte or fail loudly. `fs.writeSync` may write only part of a buffer
 * (a pipe takes 64 KiB at a time) or refuse for now (`EAGAIN` on a non-blocking pipe); ignoring
 * either silently drops the rest of an export.
 */
import fs from 'node:fs';

/** How long a reader may take nothing before the write gives up (a pager left open over lunch still counts as reading). */
export const WRITE_STALL_LIMIT_MS = 10 * 60_000;
/** The pause between tries while a non-blocking pipe is full. */
const FULL_PIPE_PAUSE_MS = 5;

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Sleeps without spinning the CPU (a synchronous writer cannot await the pipe's drain event). */
function sleep(ms: number): void {
  Atomics.wait(pause, 0, 0, ms);
}

/**
 * Writes all of `data` to `fd`, retrying after short writes and while the pipe is full.
 * @throws the write's own error (EPIPE when the reader went away, ENOSPC, ...) or a stall error.
 */
export function writeAllSync(fd: number, data: string | Uint8Array, stallLimitMs: number = WRITE_STALL_LIMIT_MS): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  let offset = 0;
  let stalledSince: number | undefined;
  while (offset < bytes.length) {
    let written: number;
    try {
      written = fs.writeSync(fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      written = 0;
    }
    if (written > 0) {
      offset += written;
      stalledSince = undefined;
      continue;
    }
    stalledSince ??= Date.now();
    if (Date.now() - stalledSince > stallLimitMs) {
      throw new Error(`the reader took nothing for ${Math.round(stallLimitMs / 1000)} s; ${bytes.length - offset} bytes were not written`);
    }
    sleep(FULL_PIPE_PAUSE_MS);
  }
}

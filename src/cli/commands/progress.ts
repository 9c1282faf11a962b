/**
 * A one-line progress counter with ETA on a terminal's stderr; silent when stderr is not a TTY.
 */
/** Redraws at most this often, so progress never costs more than the work. */
const REDRAW_EVERY_MS = 100;

export interface ProgressReporter {
  start: (total: number) => void;
  update: (done: number) => void;
  finish: () => void;
}

function seconds(ms: number): string {
  return ms >= 60_000 ? `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s` : `${Math.ceil(ms / 1000)}s`;
}

/** A reporter drawing `sessions done/total (pct) ETA` on `stream`; undefined when it is not a TTY. */
export function progressReporter(stream: NodeJS.WriteStream): ProgressReporter | undefined {
  if (!stream.isTTY) return undefined;
  let total = 0;
  let started = 0;
  let drawn = 0;
  let shown = false;
  return {
    start: (count) => {
      total = count;
      started = Date.now();
    },
    update: (done) => {
      const now = Date.now();
      if (now - drawn < REDRAW_EVERY_MS && done < total) return;
      drawn = now;
      const share = total > 0 ? Math.min(1, done / total) : 0;
      const eta = share > 0 ? seconds(((now - started) / share) * (1 - share)) : '?';
      stream.write(`\rbackfill: ${done}/${total} sessions (${Math.round(share * 100)}%), about ${eta} left `);
      shown = true;
    },
    finish: () => {
      if (shown) stream.write('\n');
    },
  };
}

/**
 * The write side of a flush whose caller waits a bounded time (the plugin's main thread, waiting on
 * its store's worker thread): what the write checks inside its transaction, with lmdb's write lock
 * held. Why this makes such a flush count exactly once is told in one place: spill.ts.
 */
import { StoreNotWritableError } from './store-errors.js';
import type { WritableTables } from './tables.js';

/** The meta keys that mark a spill merged: `spill:<id>`. */
export const SPILL_MARKER_PREFIX = 'spill:';
/** The first meta key after every marker (':' + 1). */
export const LATE_MARKERS_END = 'spill;';
/** The least margin before a deadline from which a write marks its batch merged. */
const LEAST_MARK_MARGIN_MS = 1_000;

/** The value of a marker a late write left (a merge's marker holds its time as text). */
interface LateMarker {
  lateWriteAt: string;
}

/** The meta key that marks the spill `id` merged. */
export function spillMarker(id: string): string {
  return `${SPILL_MARKER_PREFIX}${id}`;
}

/** When a late write left this marker value (epoch ms); undefined for a merge's marker. */
export function lateMarkerTime(value: unknown): number | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const at = Date.parse(String((value as Partial<LateMarker>).lateWriteAt));
  return Number.isFinite(at) ? at : undefined;
}

/**
 * What a write whose caller waits a bounded time checks inside its transaction (why: spill.ts):
 * whether the caller stopped waiting, and whether the commit comes near its deadline.
 */
export interface LateWriteGuard {
  /** The id the caller spills the batch under once it stops waiting. */
  spillId: string;
  /** Whether the caller has stopped waiting. */
  abandoned(): boolean;
  /** Whether the commit now comes within the margin of the caller's deadline. */
  nearDeadline(): boolean;
}

/**
 * The margin before a caller's deadline from which a write marks its batch merged: a third of the
 * wait, at least LEAST_MARK_MARGIN_MS (a 15 s flush marks from 10 s on, a 2 s exit flush from 1 s on).
 */
export function lateMarkMarginMs(timeoutMs: number): number {
  return Math.max(LEAST_MARK_MARGIN_MS, Math.round(timeoutMs / 3));
}

/** Before a guarded write's puts, with the write lock held: refused (nothing written) when its caller stopped waiting. */
export function refuseLateWrite(guard: LateWriteGuard | undefined): void {
  if (guard?.abandoned()) throw new StoreNotWritableError('a write got the database after its caller stopped waiting; nothing was written');
}

/** After a guarded write's puts, before its commit: refused when its caller stopped waiting, else marked merged when near its deadline. */
export function settleLateWrite(tables: WritableTables, guard: LateWriteGuard | undefined, at: string): void {
  if (!guard) return;
  refuseLateWrite(guard);
  if (guard.nearDeadline()) tables.meta.putSync(spillMarker(guard.spillId), { lateWriteAt: at } satisfies LateMarker);
}

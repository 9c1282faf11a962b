/**
 * The record of what setup put into OpenCode config folders: item ids stored or buffered, so that a
 * later absence of one means the user removed it.
 */
import type { TrackingContext } from './context.js';

function bufferedItems(ctx: TrackingContext, configDir: string): string[] {
  return ctx.buffer.mutations().flatMap((m) => (m.table === 'provisioned' && m.key === configDir ? m.items : []));
}

/** Item ids setup has put into an OpenCode config folder, stored or buffered. */
export function provisionedItems(ctx: TrackingContext, configDir: string): string[] {
  return [...new Set([...ctx.store.provisionedItems(configDir), ...bufferedItems(ctx, configDir)])];
}

/** Buffers item ids as provisioned into `configDir`; the flush adds them to the stored set. */
export function recordProvisioned(ctx: TrackingContext, configDir: string, items: readonly string[]): void {
  const known = new Set(bufferedItems(ctx, configDir));
  const fresh = items.filter((item) => !known.has(item));
  if (fresh.length === 0) return;
  ctx.buffer.put({ table: 'provisioned', key: configDir, items: [...known, ...fresh] });
}

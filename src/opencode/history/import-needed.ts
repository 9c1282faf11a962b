/**
 * Whether the plugin's history-import child would import anything, asked in the plugin's own process
 * before the child is started. With the plugin always on, the child's sessions are the ones the plugin
 * already tracked live, so it would find every message held and only move the watermark: a process
 * and 0.1-0.2 s of CPU at every OpenCode start for nothing. The sessions are read with the child's own
 * reader (native-sqlite-store.ts, the runtime's SQLite engine, read-only, one snapshot) and replayed
 * with the child's own replaySession into a probe that only compares what would be recorded with the
 * events the store holds under the same ids: the check and the child agree on what a session, a
 * tracked message and a held event are. Any doubt answers "needed", and the child, the authority,
 * runs as before: no native engine (Node 20), the JSON or version-2 layout, a read error, more
 * sessions than is cheap to read here, or one event not held in full.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { HistoryQuery, HostSession } from '../../core/backfill/history.js';
import { ReplayLedger } from '../../core/backfill/replay-ledger.js';
import { addsAnything, heldEvents, noAdditions, replayProbe } from '../../core/backfill/replay-probe.js';
import { replaySession } from '../../core/backfill/replay-session.js';
import type { Watermark } from '../../core/backfill/watermark.js';
import { WATERMARK_OVERLAP_MS } from '../../core/backfill/watermark.js';
import type { StoreAccess } from '../../core/store/access.js';

/**
 * Above this many sessions to read, the child reads them: it runs out of OpenCode's process. The
 * usual case is one (the previous session); a store the plugin has not seen for a while has more.
 * Measured under OpenCode's Bun on sessions of 40 messages (bench/import-check.bench.mjs): about
 * 30 ms of CPU and 7 MiB for one, 115 ms and 33 MiB for 25, against the child's 160 ms and 68 MiB.
 */
export const MAX_CHECKED_SESSIONS = 5;

export type ImportNeed =
  | { needed: false; sessions: number; newestUpdate: number }
  | { needed: true; reason: string };

/** Whether replaying `session` would record nothing the store does not hold: every event held under its session, with totals at least as high. */
function replaysNothingNew(store: StoreAccess, session: HostSession, ledger: ReplayLedger): boolean {
  const added = noAdditions();
  replaySession(replayProbe(heldEvents(store, session.id), added), session, session.directory, ledger);
  return !addsAnything(added);
}

/**
 * What the import child would read from OpenCode's data folder `location` (sessions updated since the
 * watermark `mark`, less the same overlap, and created before `createdBefore`, the plugin's start) and
 * whether any of it is not held yet. Never throws: a failure is a reason to run the child.
 */
export async function historyImportNeeded(store: StoreAccess, location: string, mark: Watermark | undefined, createdBefore: number, maxSessions = MAX_CHECKED_SESSIONS): Promise<ImportNeed> {
  const database = path.join(location, 'opencode.db');
  if (!fs.statSync(database, { throwIfNoEntry: false })?.isFile()) return { needed: true, reason: 'no SQLite store' };
  try {
    const engine = await (await import('./native-engine.js')).loadNativeEngine();
    if (!engine) return { needed: true, reason: 'no native SQLite engine in this runtime' };
    const { NativeSqliteHistorySource } = await import('./native-sqlite-store.js');
    const source = NativeSqliteHistorySource.open(database, engine);
    if (!source) return { needed: true, reason: "version 2's tables" };
    try {
      const query: HistoryQuery = { createdBefore, ...(mark ? { updatedAfter: mark.updatedAt - WATERMARK_OVERLAP_MS } : {}) };
      const sessions = source.count(query);
      if (sessions > maxSessions) return { needed: true, reason: `${sessions} sessions to read` };
      const ledger = new ReplayLedger(store);
      let newestUpdate = mark?.updatedAt ?? 0;
      for await (const item of source.sessions(query)) {
        if ('unreadable' in item) return { needed: true, reason: item.unreadable };
        if (!replaysNothingNew(store, item, ledger)) return { needed: true, reason: `session ${item.id} holds work not recorded` };
        newestUpdate = Math.max(newestUpdate, item.updatedAt);
      }
      return { needed: false, sessions, newestUpdate };
    } finally {
      source.close();
    }
  } catch (error) {
    return { needed: true, reason: (error as Error).message.split('\n')[0] ?? 'read error' };
  }
}

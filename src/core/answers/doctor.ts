/**
 * The answer to "is the record healthy?": where the database is, how full, how many entries of each
 * kind, what waits to be merged (spill files) and which snapshots exist. Facts about the OpenCode side
 * (what provisioning put in the config folder, OpenCode's own history, backups of replaced config
 * files) are the adapter's to add: core knows the record, not the host.
 */
import fs from 'node:fs';
import type { TrackerConfig } from '../config.js';
import { verifyChain } from '../integrity/chain-check.js';
import type { ChainCheck } from '../integrity/chain-check.js';
import { suspectUserActions } from '../integrity/suspect-actions.js';
import type { SuspectUserAction } from '../integrity/suspect-actions.js';
import { remainingCapacity, usageWarning } from '../store/size-limit.js';
import type { Capacity } from '../store/size-limit.js';
import { snapshotsOf } from '../store/snapshot.js';
import { pendingSpills } from '../store/spill.js';
import type { Store } from '../store/store.js';

export interface SnapshotSummary {
  file: string;
  takenAt: string;
  ageHours: number;
  size: number;
}

/** What `doctor --json` prints about the database itself. */
export interface DatabaseHealthAnswer {
  databasePath: string;
  maxDatabaseSize: number;
  fileSize: number;
  schemaVersion: number;
  flushes: number;
  lastFlushAt: string | null;
  counts: ReturnType<Store['counts']>;
  capacity: Capacity;
  /** The items provisioning recorded as put into this config folder (the adapter checks which are still there). */
  recordedItems: string[];
  sizeWarning: string | null;
  readOnlyBecause: string | null;
  /** Writes around the tracker's door break the chained digest over user-only and credit records. */
  recordChain: ChainCheck;
  /** User-only records that came a way an agent could drive, waiting for the user's review. */
  suspectUserActions: SuspectUserAction[];
  spilled: ReturnType<typeof pendingSpills>;
  snapshots: SnapshotSummary[];
}

export function databaseHealthAnswer(store: Store, config: TrackerConfig, configDir: string, now: number): DatabaseHealthAnswer {
  const meta = store.meta();
  const fileSize = fs.statSync(store.path).size;
  const counts = store.counts();
  const usedBytes = store.bytesInUse();
  return {
    databasePath: store.path,
    maxDatabaseSize: config.maxDatabaseSize,
    fileSize,
    schemaVersion: meta.schemaVersion,
    flushes: meta.flushes,
    lastFlushAt: meta.lastFlushAt || null,
    counts,
    capacity: remainingCapacity({
      fileBytes: fileSize,
      ...(usedBytes === undefined ? {} : { usedBytes }),
      limit: config.maxDatabaseSize,
      entries: counts.commits + counts.activities + counts.retrospectives,
    }),
    recordedItems: store.provisionedItems(configDir),
    sizeWarning: usageWarning(store.path, { fileBytes: fileSize, limit: config.maxDatabaseSize, sessions: store.tables.sessions.getKeysCount() }) ?? null,
    readOnlyBecause: store.refusal ?? null,
    recordChain: verifyChain(store.tables),
    suspectUserActions: suspectUserActions(store),
    spilled: pendingSpills(store.path),
    snapshots: snapshotsOf(store.path).map((snapshot) => ({
      file: snapshot.file,
      takenAt: snapshot.takenAt.toISOString(),
      ageHours: Math.round(((now - snapshot.takenAt.getTime()) / 3_600_000) * 10) / 10,
      size: snapshot.size,
    })),
  };
}

/**
 * The answer to "is the record healthy?": where the database is, how full, how many entries of each
 * kind, what waits to be merged (spill files) and which snapshots exist. Facts about the OpenCode side
 * (what provisioning put in the config folder, OpenCode's own history, backups of replaced config
 * files) are the adapter's to add: core knows the record, not the host.
 */
import fs from 'node:fs';
import type { TrackerConfig } from '../config.js';
import { verifyChain } from '../integrity/chain-check.js';
import { suspectUserActions } from '../integrity/suspect-actions.js';
import { remainingCapacity, usageWarning } from '../store/size-limit.js';
import { snapshotsOf } from '../store/snapshot.js';
import { pendingSpills } from '../store/spill.js';
import type { Store } from '../store/store.js';
import type { DatabaseHealthAnswer } from '../../contract/answers.js';
export type { SnapshotSummary, DatabaseHealthAnswer } from '../../contract/answers.js';

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
    sizeWarning: usageWarning(store.path, { fileBytes: fileSize, limit: config.maxDatabaseSize, sessions: store.tables.usage.getKeysCount() }) ?? null,
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

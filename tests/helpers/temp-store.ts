/**
 * A temporary LMDB store and tracking service for unit tests; removed by `dispose`, and after the test
 * file by this module whatever a test left (one that failed before its `dispose`, or never called it).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from '@jest/globals';
import { resolveConfig } from '../../src/core/config.js';
import type { TrackerConfig } from '../../src/core/config.js';
import type { Logger } from '../../src/core/logger.js';
import { Store } from '../../src/core/store/store.js';
import { TrackingService } from '../../src/core/tracking/service.js';
import { termIndexer } from '../../src/core/search/indexer.js';

export interface TempTracker {
  dir: string;
  store: Store;
  config: TrackerConfig;
  service: TrackingService;
  logged: { level: string; message: string }[];
  /** A second service on the same store, as another plugin instance would be. */
  another(): TrackingService;
  dispose(): void;
}

export function recordingLogger(logged: { level: string; message: string }[]): Logger {
  return {
    info: (message) => logged.push({ level: 'info', message }),
    warn: (message) => logged.push({ level: 'warn', message }),
    error: (message) => logged.push({ level: 'error', message }),
  };
}

/** What `tempTracker` made and `dispose` has not removed yet. */
const left = new Map<string, Store>();

afterAll(() => {
  for (const [dir, store] of left) {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  left.clear();
});

export function tempTracker(options: Record<string, unknown> = {}, project = '/work/project'): TempTracker {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tracker-unit-'));
  const config = resolveConfig({ options: { databasePath: path.join(dir, 'db.lmdb'), ...options }, env: {}, home: dir });
  const store = Store.open({ path: config.databasePath, maxDatabaseSize: config.maxDatabaseSize, indexer: termIndexer });
  left.set(dir, store);
  const logged: { level: string; message: string }[] = [];
  const make = () => new TrackingService({ store, config, logger: recordingLogger(logged), project, ownTools: ['agent-status', 'grade-commit'] });
  return {
    dir,
    store,
    config,
    service: make(),
    logged,
    another: make,
    dispose: () => {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
      left.delete(dir);
    },
  };
}

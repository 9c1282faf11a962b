/** Usage records for tests: one with every counter zero (pure tests of what reads them), and those a database holds. */
import { Store, ZERO_COUNTERS } from '../../src/core/store/store.js';
import type { UsageRecord } from '../../src/core/types.js';

let counter = 0;

export function usageRecord(overrides: Partial<UsageRecord> & Pick<UsageRecord, 'agent' | 'model'>): UsageRecord {
  counter += 1;
  return {
    sessionId: `ses_${counter}`,
    project: '/p/target',
    firstAt: '2025-02-01T00:00:00.000Z',
    lastAt: '2025-02-01T01:00:00.000Z',
    ...ZERO_COUNTERS,
    ...overrides,
  };
}

/** Every usage record the database at `dbPath` holds, read-only. */
export function storedUsageRecords(dbPath: string): UsageRecord[] {
  const store = Store.open({ path: dbPath, maxDatabaseSize: 1 << 29, readOnly: true });
  try {
    return [...store.tables.usage.getRange()].map((entry) => entry.value);
  } finally {
    store.close();
  }
}

/** A usage record with every counter zero, for pure tests of what reads usage records. */
import { ZERO_COUNTERS } from '../../src/core/store/store.js';
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

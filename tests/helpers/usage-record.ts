/** A usage record with every counter zero, for pure tests of what reads usage records. */
import type { UsageRecord } from '../../src/core/types.js';

let counter = 0;

export function usageRecord(overrides: Partial<UsageRecord> & Pick<UsageRecord, 'agent' | 'model'>): UsageRecord {
  counter += 1;
  return {
    sessionId: `ses_${counter}`,
    project: '/p/target',
    firstAt: '2025-02-01T00:00:00.000Z',
    lastAt: '2025-02-01T01:00:00.000Z',
    toolCalls: 0,
    toolFailures: 0,
    commands: 0,
    commits: 0,
    pushes: 0,
    bugs: 0,
    gradedCommits: 0,
    gradeSum: 0,
    csDelta: 0,
    messages: 0,
    tokensInput: 0,
    tokensOutput: 0,
    tokensReasoning: 0,
    tokensCacheRead: 0,
    tokensCacheWrite: 0,
    cost: 0,
    ...overrides,
  };
}

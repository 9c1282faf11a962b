/**
 * recommend-kinds.ts counts a record's classified turns by reading each turns* counter by name (fast
 * on every record), while the shares loop over TASK_KINDS. A kind added to one and not the other would
 * silently turn that kind's work into "unknown" (or make shares sum past 1): these fail first.
 */
import { describe, expect, it } from '@jest/globals';
import { TASK_KIND_COUNTERS, TASK_KINDS } from '../../src/core/outcomes/task-kind.js';
import { kindMass, kindShares, kindSharesAndTurns } from '../../src/core/report/recommend-kinds.js';
import { OUTCOME_COUNTER_NAMES } from '../../src/contract/counters.js';
import { usageRecord } from '../helpers/usage-record.js';

describe('every task kind is counted where the turns are read by name', () => {
  it('has one turns counter per task kind, all distinct, and every turns-of-a-kind counter is a task kind\'s', () => {
    const counters = TASK_KINDS.map((kind) => TASK_KIND_COUNTERS[kind]);
    expect(Object.keys(TASK_KIND_COUNTERS).sort()).toEqual([...TASK_KINDS].sort());
    expect(new Set(counters).size).toBe(TASK_KINDS.length);
    // The stored counters named turnsX (not the plain total, nor undoneTurns) are exactly the kinds'.
    const kindCounters = OUTCOME_COUNTER_NAMES.filter((name) => /^turns[A-Z]/.test(name));
    expect([...kindCounters].sort()).toEqual([...counters].sort());
  });

  it.each(TASK_KINDS.map((kind) => [kind]))('reads a record of %s turns only as that kind, by its turns', (kind) => {
    // 3 turns of this kind among 5 turns: all of its classified work is this kind, and it weighs 3.
    const record = usageRecord({ agent: 'build', model: 'm', turns: 5, commits: 1, [TASK_KIND_COUNTERS[kind]]: 3 });
    expect(kindShares(record)).toEqual([[kind, 1]]);
    expect(kindMass(record)).toEqual([[kind, 3]]);
    expect(kindSharesAndTurns(record)).toEqual({ shares: [[kind, 1]], turns: 3 });
  });

  it('splits a record with one turn of every kind evenly, the shares summing to 1', () => {
    const counters = Object.fromEntries(TASK_KINDS.map((kind) => [TASK_KIND_COUNTERS[kind], 1]));
    const record = usageRecord({ agent: 'build', model: 'm', turns: TASK_KINDS.length, ...counters });
    const shares = kindShares(record);
    expect(shares.map(([kind]) => kind)).toEqual([...TASK_KINDS]);
    for (const [, share] of shares) expect(share).toBeCloseTo(1 / TASK_KINDS.length, 12);
    expect(kindSharesAndTurns(record).turns).toBe(TASK_KINDS.length);
  });
});

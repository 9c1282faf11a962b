/**
 * The journal as the report and prior-art read it: every free-text field masked before it is stored,
 * a user action's summary masked and kept to the text limit, and many entries of one instant all kept
 * in the order they were written. On a temporary LMDB.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { TrackingService } from '../../src/core/tracking/service.js';
import type { ActivityEntry } from '../../src/core/types.js';
import { tempTracker } from '../helpers/temp-store.js';
import type { TempTracker } from '../helpers/temp-store.js';

let t: TempTracker;
afterEach(() => t?.dispose());

const PROJECT = '/work/project';
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const INSTANT = new Date('2026-11-26T10:00:00.000Z');

function service(): TrackingService {
  return new TrackingService({
    store: t.store,
    config: t.config,
    logger: silent,
    project: PROJECT,
    now: () => INSTANT,
    maskText: (text) => text.replace(/secret\w*/g, '***'),
  });
}

function journal(): ActivityEntry[] {
  return [...t.store.tables.activities.getRange()].map((entry) => entry.value);
}

describe('the journal’s free text', () => {
  it('is masked in every field of an agent’s entry', () => {
    t = tempTracker();
    const s = service();
    s.logActivity({ agent: 'build', project: PROJECT, task: 'task secret1', actions: 'ran secret2', outcome: 'printed secret3', decisions: 'kept secret4' });
    s.flush('test');
    expect(journal()).toEqual([expect.objectContaining({ task: 'task ***', actions: 'ran ***', outcome: 'printed ***', decisions: 'kept ***' })]);
  });

  it('is masked, then kept to 4000 characters, in a user action’s summary', () => {
    t = tempTracker();
    const s = service();
    s.recordUserAction({ agent: 'build', project: PROJECT, summary: `secretvalue ${'y'.repeat(5000)}`, provenance: { action: 'revive', via: 'terminal-tty', suspect: false } });
    s.flush('test');
    const [entry] = journal();
    // "*** " is 4 characters, then the y's up to the limit.
    expect(entry?.task).toBe(`*** ${'y'.repeat(4000 - 4)}`);
    expect(entry).toMatchObject({ outcome: 'user action', actions: '', decisions: '', model: 'unknown', timestamp: INSTANT.toISOString() });
  });
});

describe('bad free text', () => {
  it.each(['actions', 'outcome', 'decisions'])('names the field (%s) that is too long, and buffers nothing', (field) => {
    t = tempTracker();
    const s = service();
    expect(() => s.logActivity({ agent: 'build', project: PROJECT, task: 'notes', [field]: 'z'.repeat(4001) })).toThrow(new RegExp(`^${field} is 4001 characters long`));
    expect(s.pendingMutations).toBe(0);
  });
});

describe('entries of one instant', () => {
  it('are all kept when two processes write them', () => {
    t = tempTracker();
    const first = service();
    const second = service();
    first.logActivity({ agent: 'build', project: PROJECT, task: 'from the first' });
    second.logActivity({ agent: 'build', project: PROJECT, task: 'from the second' });
    first.flush('test');
    second.flush('test');
    expect(journal().map((entry) => entry.task).sort()).toEqual(['from the first', 'from the second']);
  });

  it('are all kept, in the order they were written', () => {
    t = tempTracker();
    const s = service();
    const count = 80;
    for (let i = 0; i < count; i += 1) s.logActivity({ agent: 'build', project: PROJECT, task: `note ${i}` });
    s.flush('test');
    expect(journal().map((entry) => entry.task)).toEqual(Array.from({ length: count }, (_, i) => `note ${i}`));
  });
});

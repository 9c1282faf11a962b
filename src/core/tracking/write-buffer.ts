/**
 * The in-memory write buffer: mutations keyed by table and database key. Repeated changes to one
 * key collapse into one mutation (counter deltas add up, agent ops append), so a flush writes each
 * key once. Nothing here touches the disk.
 */
import type {
  CounterDeltas,
  CounterName,
} from '../types.js';
import { bufferKey } from '../store/mutations.js';
import type { AgentMutationOp, Mutation, ReplayMutation, SessionInit, SessionKey } from '../store/mutations.js';

export class WriteBuffer {
  private readonly pending = new Map<string, Mutation>();
  /** Every buffered op of an agent in the order recorded (direct and on replayable events), for its status. */
  private readonly opLog = new Map<string, AgentMutationOp[]>();
  private oldest = 0;

  get size(): number {
    return this.pending.size;
  }

  /** Milliseconds since the oldest buffered mutation, 0 when empty. */
  ageMs(now: number): number {
    return this.pending.size === 0 ? 0 : now - this.oldest;
  }

  private touch(): void {
    if (this.pending.size === 0) this.oldest = Date.now();
  }

  addAgentOp(agent: string, op: AgentMutationOp): void {
    this.logOps(agent, [op]);
    const key = bufferKey('agents', agent);
    const existing = this.pending.get(key);
    if (existing?.table === 'agents') {
      const last = existing.ops[existing.ops.length - 1];
      // Adjacent XP or commit awards merge; order against bugs, grades and revives is kept.
      if (last && (op.kind === 'xp' || op.kind === 'commits') && last.kind === op.kind) {
        last.amount += op.amount;
      } else {
        existing.ops.push(op.kind === 'xp' || op.kind === 'commits' ? { ...op } : op);
      }
      return;
    }
    this.touch();
    this.pending.set(key, { table: 'agents', key: agent, ops: [op.kind === 'xp' || op.kind === 'commits' ? { ...op } : op] });
  }

  /** Adds counters to a session's usage record; a `judgement` (see Mutation) does not move its time span. */
  addCounters(key: SessionKey, init: SessionInit, counters: CounterDeltas, at: string, judgement = false): void {
    const id = bufferKey('usage', key);
    const existing = this.pending.get(id);
    if (existing?.table === 'usage') {
      for (const [name, delta] of Object.entries(counters) as [CounterName, number][]) {
        existing.counters[name] = (existing.counters[name] ?? 0) + delta;
      }
      if (judgement) return;
      // The session's own activity sets the span, also over a judgement buffered before it.
      if (existing.judgement) {
        delete existing.judgement;
        existing.lastAt = at;
      } else if (at > existing.lastAt) existing.lastAt = at;
      return;
    }
    this.touch();
    this.pending.set(id, { table: 'usage', key, init, counters: { ...counters }, lastAt: at, ...(judgement ? { judgement: true as const } : {}) });
  }

  /**
   * Buffers a replayable host event. A second report of the same event keeps the larger totals
   * (a message grows while it streams) and the first report's agent ops and journal entry (they apply once).
   */
  putReplay(mutation: ReplayMutation): void {
    const id = bufferKey('events', mutation.key);
    const existing = this.pending.get(id);
    if (existing?.table === 'events') {
      for (const [name, total] of Object.entries(mutation.totals) as [CounterName, number][]) {
        if (total > (existing.totals[name] ?? 0)) existing.totals[name] = total;
      }
      if (mutation.session.at > existing.session.at) existing.session.at = mutation.session.at;
      if (existing.activity === undefined && mutation.activity !== undefined) existing.activity = mutation.activity;
      return;
    }
    this.touch();
    this.pending.set(id, { ...mutation, totals: { ...mutation.totals } });
    for (const { agent, ops } of mutation.agentOps) this.logOps(agent, ops);
  }

  private logOps(agent: string, ops: readonly AgentMutationOp[]): void {
    const list = this.opLog.get(agent);
    if (list) list.push(...ops);
    else this.opLog.set(agent, [...ops]);
  }

  /** Buffers a whole record (write-once tables, or last-write-wins for projects). */
  put(mutation: Exclude<Mutation, { table: 'agents' } | { table: 'usage' }>): void {
    this.touch();
    this.pending.set(bufferKey(mutation.table, mutation.key), mutation);
  }

  has(table: Mutation['table'], key: unknown): boolean {
    return this.pending.has(bufferKey(table, key));
  }

  /** Buffered ops of one agent, in order, to show a status that includes what is not flushed yet. */
  agentOps(agent: string): readonly AgentMutationOp[] {
    return this.opLog.get(agent) ?? [];
  }

  mutations(): Mutation[] {
    return [...this.pending.values()];
  }

  clear(): void {
    this.pending.clear();
    this.opLog.clear();
    this.oldest = 0;
  }
}

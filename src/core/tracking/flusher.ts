/**
 * Writes the buffer to the store: one transaction per flush, the buffer kept and the error reported
 * once when the write fails, the buffer's size and age bounds (held while a replay records a whole
 * session), and whoever listens told what was written.
 */
import type { TrackerConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { writeSpill } from '../store/spill.js';
import { AbandonedWriteError, StoreNotWritableError } from '../store/store-errors.js';
import type { StoreAccess } from '../store/access.js';
import type { Mutation, SessionKey } from '../store/mutations.js';
import type { FlushOutcome } from '../../contract/recorder.js';
import type { WriteBuffer } from './write-buffer.js';

/** Told after every successful flush: the agents it touched, the batch it wrote and the usage records it created. */
export type FlushListener = (agents: string[], mutations: readonly Mutation[], created: readonly SessionKey[]) => void;

const NOTHING_WRITTEN: FlushOutcome = { ok: true, mutations: 0, durationMs: 0 };

export class Flusher {
  private readonly listeners: FlushListener[] = [];
  private readonly memorySteps: (() => void)[] = [];
  private lastFlushError = '';
  /** While above 0, the buffer's size and age bounds wait (see `inOneFlush`). */
  private boundsHeld = 0;

  constructor(
    private readonly store: StoreAccess,
    private readonly buffer: WriteBuffer,
    private readonly config: TrackerConfig,
    private readonly logger: Logger,
    private readonly now: () => Date,
  ) {}

  get pending(): number {
    return this.buffer.size;
  }

  /** Adds a listener (status files, telemetry); one that throws is logged and the others still run. Returns its removal. */
  onFlushed(listener: FlushListener): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  /** Adds a step that brings memory up to date with the database right after a write, before the listeners. */
  afterWrite(step: () => void): void {
    this.memorySteps.push(step);
  }

  /**
   * Runs `record` (synchronous) with the buffer's size and age bounds held, so that what it records
   * lands in the same flush transaction: a replayed session is written whole or not at all.
   */
  inOneFlush<T>(record: () => T): T {
    this.boundsHeld += 1;
    try {
      return record();
    } finally {
      this.boundsHeld -= 1;
      this.afterRecord();
    }
  }

  /** Called after every recording: flushes when the buffer has grown past its size or age bound. */
  afterRecord(): void {
    if (this.boundsHeld > 0) return;
    const { flushMaxMutations, flushMaxAgeMs } = this.config;
    if (this.buffer.size >= flushMaxMutations || this.buffer.ageMs(Date.now()) >= flushMaxAgeMs) this.flush('buffer limit');
  }

  /**
   * Writes everything buffered in one transaction. On failure the buffer is kept for the next
   * trigger and the error is reported once (repeats of the same error stay quiet). A store that is
   * not open for writing (still checked, damaged, newer) was reported when that was found out.
   */
  flush(reason: string): FlushOutcome {
    if (this.buffer.size === 0) return NOTHING_WRITTEN;
    const mutations = this.buffer.mutations();
    try {
      const result = this.store.applyBatch(mutations, this.config.rules, this.now().toISOString());
      this.buffer.clear();
      for (const step of this.memorySteps) step();
      this.lastFlushError = '';
      this.tellListeners(mutations, result.counted, result.created);
      return { ok: true, mutations: result.mutations, durationMs: result.durationMs };
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      if (failure instanceof AbandonedWriteError) this.spillAbandoned(mutations, failure.spillId);
      if (!(failure instanceof StoreNotWritableError) && failure.message !== this.lastFlushError) {
        this.lastFlushError = failure.message;
        this.logger.error(`agent-tracker: could not save tracking data (${reason}): ${failure.message}`);
      }
      return { ok: false, error: failure };
    }
  }

  /**
   * A write this process stopped waiting for may still land: its batch goes to a spill under the id
   * the write carried, at once and alone (what is recorded later must not share that id), so the
   * next start merges it exactly once (spill.ts). When no spill can be written the buffer keeps it.
   */
  private spillAbandoned(mutations: readonly Mutation[], spillId: string): void {
    try {
      const spilled = writeSpill(this.store.path, mutations, this.now(), spillId);
      this.buffer.clear();
      this.logger.warn(`agent-tracker: ${mutations.length} change(s) could not be saved in ${this.store.path} in time; they are kept in ${spilled} and merged into the database at the next start`);
    } catch (error) {
      this.logger.error(`agent-tracker: ${mutations.length} change(s) could not be saved in time, nor in a spill file (${(error as Error).message}); they wait in memory`);
    }
  }

  /** Hands over (and forgets) every buffered mutation: the spill file keeps what a final flush could not write. */
  takePending(): Mutation[] {
    const mutations = this.buffer.mutations();
    this.buffer.clear();
    return mutations;
  }

  private tellListeners(mutations: readonly Mutation[], counted: readonly Mutation[], created: readonly SessionKey[]): void {
    const agents = [...new Set(mutations.flatMap((m) => (m.table === 'agents' ? [m.key] : m.table === 'events' ? m.agentOps.map((o) => o.agent) : [])))];
    // Listeners see what was counted: a replayed event as the session counters it really added.
    const written = counted.length > 0 ? [...mutations.filter((m) => m.table !== 'events'), ...counted] : mutations;
    for (const listener of this.listeners) {
      try {
        listener(agents, written, created);
      } catch (error) {
        this.logger.warn(`agent-tracker: after-flush step failed: ${(error as Error).message}`);
      }
    }
  }
}

/**
 * Counting into the buffer: a setup's session counters (`count`) and host events keyed by the
 * host's own ids (`replay`), which count once however often live hooks and a backfill report them.
 */
import { replayDelta } from '../store/replay.js';
import type { StoreAccess } from '../store/access.js';
import type { ReplayMutation, SessionInit, SessionKey } from '../store/mutations.js';
import type { AgentOp, CounterDeltas } from '../types.js';
import type { SessionSetup } from './sessions.js';
import type { WriteBuffer } from './write-buffer.js';

/** What a host event may carry besides its totals and agent ops. */
export interface ReplayEvent {
  /** The host's time of the event (a replay of history); now when absent (live). */
  at?: string;
  /** The id an older version keyed the same event by: what it holds counts as held. */
  legacyEventId?: string;
  /**
   * The journal entry that belongs to the event (masked, with its key): written once with it. Made only
   * when the event is buffered, so a replay of a held event prepares no entry.
   */
  activity?: () => NonNullable<ReplayMutation['activity']>;
}

export class Ledger {
  /** The events the store held for the session being replayed (see heldEvent). */
  private heldEvents: { sessionId: string; held: Map<string, CounterDeltas> } | undefined;

  constructor(
    private readonly store: StoreAccess,
    private readonly buffer: WriteBuffer,
    private readonly now: () => Date,
  ) {}

  /** Adds counters to the usage record of `setup` in the session (at the event's time, else now). */
  count(sessionId: string, setup: SessionSetup, counters: CounterDeltas, eventAt?: string): void {
    const key: SessionKey = [sessionId, setup.agent, setup.model];
    const at = eventAt ?? this.now().toISOString();
    this.buffer.addCounters(key, this.sessionInit(sessionId, setup, at), counters, at);
  }

  /**
   * Adds counters that judge a session's past work (a grade, git's later word on a commit, a bug traced to a
   * commit): counted on its usage record without moving the session's time span, so "when did it run" and
   * "is it running" stay the host's answer, not the time of the judgement.
   */
  judge(sessionId: string, setup: SessionSetup, counters: CounterDeltas): void {
    const key: SessionKey = [sessionId, setup.agent, setup.model];
    const at = this.now().toISOString();
    this.buffer.addCounters(key, this.sessionInit(sessionId, setup, at), counters, at, true);
  }

  /**
   * Buffers a host event with its totals: counted once per [session, event id], whoever reports it.
   * Its agent ops and journal entry are written with it only when the store does not hold it yet.
   */
  replay(sessionId: string, setup: SessionSetup, eventId: string, totals: CounterDeltas, ops: AgentOp[], event: ReplayEvent = {}): void {
    const at = event.at ?? this.now().toISOString();
    // A replay (it carries the host's time) of what the store already holds in full buffers nothing.
    if (event.at !== undefined) {
      const held = this.heldEvent(sessionId, eventId) ?? (event.legacyEventId === undefined ? undefined : this.heldEvent(sessionId, event.legacyEventId));
      if (held !== undefined && !replayDelta(held, totals).changed) return;
    }
    const mutation: ReplayMutation = {
      table: 'events',
      key: [sessionId, eventId],
      totals,
      session: { key: [sessionId, setup.agent, setup.model], init: this.sessionInit(sessionId, setup, at), at },
      agentOps: ops.length > 0 ? [{ agent: setup.agent, ops }] : [],
    };
    // Set, not spread into the literal: this runs once per replayed event, and V8's spread of an empty object is not free.
    if (event.activity) mutation.activity = event.activity();
    this.buffer.putReplay(mutation);
  }

  /**
   * Whether a replayed event was counted by a version that counted it without a key (test runs and
   * turns before they were keyed): the store holds none of `eventId` but holds one of its `anchors`
   * (the tool call that ran the tests, the messages that answered the turn), recorded live. Such a
   * session's live counts already hold the event. Anchors a backfill recorded do not count: a backfill
   * before keys recorded no test runs or turns, so its sessions get them now.
   */
  countedWithoutKey(sessionId: string, setup: SessionSetup, eventId: string, anchors: readonly string[]): boolean {
    if (this.heldEvent(sessionId, eventId) !== undefined) return false;
    if (!anchors.some((anchor) => this.heldEvent(sessionId, anchor) !== undefined)) return false;
    return this.store.tables.usage.get([sessionId, setup.agent, setup.model])?.source !== 'backfill';
  }

  /** Forgets the held events read for a session (all sessions when none is named: a flush changed them). */
  forgetHeld(sessionId?: string): void {
    if (sessionId === undefined || this.heldEvents?.sessionId === sessionId) this.heldEvents = undefined;
  }

  private sessionInit(sessionId: string, setup: SessionSetup, at: string): SessionInit {
    return {
      sessionId,
      source: setup.source ?? 'live',
      agent: setup.agent,
      model: setup.model,
      project: setup.project,
      firstAt: at,
      ...(setup.parentId ? { parentSessionId: setup.parentId } : {}),
    };
  }

  /**
   * What the store holds for a replayed event. A replay goes through one session's events at a time:
   * they are read in one range read per session, not one read each. Held totals only grow, so one
   * read a moment old can only make an event be buffered that the flush then finds held.
   */
  private heldEvent(sessionId: string, eventId: string): CounterDeltas | undefined {
    if (this.heldEvents?.sessionId !== sessionId) {
      const held = new Map<string, CounterDeltas>();
      for (const { key, value } of this.store.tables.events.getRange({ start: [sessionId, ''] })) {
        if (key[0] !== sessionId) break;
        held.set(key[1], value);
      }
      this.heldEvents = { sessionId, held };
    }
    return this.heldEvents.held.get(eventId);
  }
}

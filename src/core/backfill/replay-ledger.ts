/**
 * What the store already holds beyond a replayed session's own id, so replayed history earns
 * nothing a recorded session already earned. A session the store knows by id replays as always
 * (its events count once). A session it does not know is a COPY of a recorded one when
 *  - one of its message ids is held under another session (a store copied with fresh session ids), or
 *  - one of its setups (agent × model) spans exactly the times of a backfilled session of the same
 *    project (a copy with every id fresh: the times come from the host and are kept), or
 *  - every message of it falls inside the time a live-tracked session of the same project, agent
 *    and model was running (live records carry the tracker's clock, not the host's: a window). While
 *    the plugin runs, every session OpenCode runs is tracked live under its own id, so an untracked
 *    session of the same setup at the same time is a copy, not work the tracker missed.
 * Commits are matched by hash: one already recorded in the project is never counted or credited
 * again, whichever session claims it.
 */
import type { StoreAccess } from '../store/access.js';
import { storedCommitStartsWith } from '../tracking/commit-prefix.js';
import type { HostSession } from './history.js';
import { isTrackedMessage, setupSpans } from './replay-session.js';
import type { KnownCommits } from './replay-session.js';

/** The reason counted in the summary for a session left out as a copy. */
export const COPY_OF_RECORDED = 'copy of a recorded session (same message ids, or the same setup at the same times)';
/** The reason counted for a session an import brought: its counters are held, its host event ids are not. */
export const IMPORTED_WHOLE = 'recorded already, brought by an import (its counts are held without the event ids a replay compares)';
/** How far outside a live session's recorded span its messages may fall: the tracker records a moment after the host. */
export const LIVE_SPAN_SLACK_MS = 5000;
const MESSAGE_EVENT_PREFIX = 'message:';

interface Span {
  first: number;
  last: number;
}

/**
 * Exact spans (first and last event, epoch ms) by setup. Numbers in nested maps rather than one
 * joined string per span: a joined key stays a rope of a few dozen string pieces in a Set, about
 * 1 KiB a span, which at thousands of sessions was the largest part of a backfill's live heap.
 */
class ExactSpans {
  private readonly bySetup = new Map<string, Map<number, number[]>>();

  add(setup: string, first: number, last: number): void {
    let byFirst = this.bySetup.get(setup);
    if (!byFirst) this.bySetup.set(setup, (byFirst = new Map()));
    const lasts = byFirst.get(first);
    if (!lasts) byFirst.set(first, [last]);
    else if (!lasts.includes(last)) lasts.push(last);
  }

  has(setup: string, first: number, last: number): boolean {
    return this.bySetup.get(setup)?.get(first)?.includes(last) === true;
  }
}

interface HeldIndex {
  /** Message ids held under any session (their `message:<id>` events, without the prefix: no string built per lookup). */
  messageEvents: Set<string>;
  /** project × agent × model → firstAt × lastAt of backfilled usage records. */
  exactSpans: ExactSpans;
  /** project × agent × model → the merged, sorted time spans of live usage records. */
  liveSpans: Map<string, Span[]>;
}

function setupKey(project: string, agent: string, model: string): string {
  return `${project}\u0000${agent}\u0000${model}`;
}

/**
 * The millisecond a usage record's `firstAt`/`lastAt` holds for an event time: records carry
 * `iso(at)`, which drops a fraction of a millisecond.
 */
function recordedMs(at: number): number {
  return Math.trunc(at);
}

/** One setup's exact span in a session, as the ledger compares it. */
interface ExactSpanKey {
  setup: string;
  first: number;
  last: number;
}

/** Sorts spans and joins the ones that overlap, so one binary search answers "inside any?". */
function merged(spans: Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a.first - b.first);
  const out: Span[] = [];
  for (const span of sorted) {
    const last = out[out.length - 1];
    if (last && span.first <= last.last) last.last = Math.max(last.last, span.last);
    else out.push({ ...span });
  }
  return out;
}

function inside(spans: readonly Span[] | undefined, at: number): boolean {
  if (!spans || spans.length === 0) return false;
  let low = 0;
  let high = spans.length - 1;
  // The last span starting at or before `at` (with the slack) is the only one that can hold it.
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if ((spans[middle] as Span).first - LIVE_SPAN_SLACK_MS <= at) low = middle;
    else high = middle - 1;
  }
  const span = spans[low] as Span;
  return span.first - LIVE_SPAN_SLACK_MS <= at && at <= span.last + LIVE_SPAN_SLACK_MS;
}

export class ReplayLedger implements KnownCommits {
  /** Read once, when the first session the store does not know comes (never on a run of known ones). */
  private held: HeldIndex | undefined;
  /** What this run replayed (perhaps not flushed yet): message ids and exact setup spans. */
  private readonly learned: Pick<HeldIndex, 'messageEvents' | 'exactSpans'> = { messageEvents: new Set(), exactSpans: new ExactSpans() };
  /** Per project, the hashes of the commits this run passed on (not flushed yet, perhaps). */
  private readonly commits = new Map<string, Set<string>>();
  /** The exact spans of the session `isCopy` looked at last, for `learn` of the same session. */
  private spansOf: { session: HostSession; project: string; keys: ExactSpanKey[] } | undefined;

  /**
   * @param uniqueMessageIds the source holds each message id once (HistorySource.uniqueMessageIds): the
   * ids this run replays cannot come again under another session of it, so they are not kept (at
   * 3,000 sessions, 120,000 strings of the run's peak memory); ids held in the store are still checked.
   */
  constructor(
    private readonly store: Pick<StoreAccess, 'tables'>,
    private readonly uniqueMessageIds = false,
  ) {}

  /** Whether `session` repeats what a recorded session holds; a session the store knows by id never does. */
  isCopy(session: HostSession, project: string): boolean {
    if (this.knowsSession(session.id)) return false;
    const messages = session.messages.filter(isTrackedMessage);
    if (messages.length === 0) return false;
    const held = this.index();
    const heldMessage = (id: string): boolean => held.messageEvents.has(id) || this.learned.messageEvents.has(id);
    if (messages.some((message) => heldMessage(message.id))) return true;
    const spanHeld = ({ setup, first, last }: ExactSpanKey): boolean => held.exactSpans.has(setup, first, last) || this.learned.exactSpans.has(setup, first, last);
    if (this.exactSpanKeys(session, project).some(spanHeld)) return true;
    return messages.every((message) => inside(held.liveSpans.get(setupKey(project, message.agent, message.model)), message.completedAt ?? message.createdAt));
  }

  /**
   * Whether the store holds `sessionId`'s usage but none of its host events: an import of an export
   * (which carries counters, not event ids) brought it. Replaying it would add every event again, so
   * it is held whole.
   */
  heldWithoutEvents(sessionId: string): boolean {
    if (!this.knowsSession(sessionId)) return false;
    for (const key of this.store.tables.events.getKeys({ start: [sessionId, ''], limit: 1 })) return key[0] !== sessionId;
    return true;
  }

  /** Adds a replayed session to what later sessions of the same run are compared with. */
  learn(session: HostSession, project: string): void {
    if (!this.uniqueMessageIds) for (const message of session.messages) if (isTrackedMessage(message)) this.learned.messageEvents.add(message.id);
    for (const { setup, first, last } of this.exactSpanKeys(session, project)) this.learned.exactSpans.add(setup, first, last);
    this.spansOf = undefined;
  }

  /** project × agent × model × first × last of each setup of `session`, worked out once for isCopy and learn. */
  private exactSpanKeys(session: HostSession, project: string): ExactSpanKey[] {
    if (this.spansOf?.session === session && this.spansOf.project === project) return this.spansOf.keys;
    const keys = setupSpans(session).map((span) => ({ setup: setupKey(project, span.agent, span.model), first: recordedMs(span.first), last: recordedMs(span.last) }));
    this.spansOf = { session, project, keys };
    return keys;
  }

  knownCommit(project: string, hash: string): boolean {
    return this.commits.get(project)?.has(hash) === true || storedCommitStartsWith(this.store.tables.commits, project, hash);
  }

  noteCommit(project: string, hash: string): void {
    let hashes = this.commits.get(project);
    if (!hashes) this.commits.set(project, (hashes = new Set()));
    hashes.add(hash);
  }

  private knowsSession(sessionId: string): boolean {
    for (const key of this.store.tables.usage.getKeys({ start: [sessionId, '', ''], limit: 1 })) return key[0] === sessionId;
    return false;
  }

  private index(): HeldIndex {
    if (this.held) return this.held;
    const messageEvents = new Set<string>();
    for (const key of this.store.tables.events.getKeys()) {
      if (key[1].startsWith(MESSAGE_EVENT_PREFIX)) messageEvents.add(key[1].slice(MESSAGE_EVENT_PREFIX.length));
    }
    const exactSpans = new ExactSpans();
    const live = new Map<string, Span[]>();
    for (const { value } of this.store.tables.usage.getRange({})) {
      const first = Date.parse(value.firstAt);
      const last = Date.parse(value.lastAt);
      if (!Number.isFinite(first) || !Number.isFinite(last)) continue;
      const key = setupKey(value.project, value.agent, value.model);
      if (value.source === 'backfill') {
        exactSpans.add(key, first, last);
        continue;
      }
      const spans = live.get(key) ?? [];
      spans.push({ first, last });
      live.set(key, spans);
    }
    const liveSpans = new Map<string, Span[]>();
    for (const [key, spans] of live) liveSpans.set(key, merged(spans));
    this.held = { messageEvents, exactSpans, liveSpans };
    return this.held;
  }
}

/**
 * Tokens and cost of assistant messages. The host reports a message several times while it streams;
 * the last totals seen of recent messages are remembered so an unchanged report buffers nothing.
 */
import type { TokenCounts } from '../types.js';
import type { HostEvent } from '../../contract/host-events.js';
import type { TrackingContext } from './context.js';
import { messageEventId, messageTotals } from './event-ids.js';

const MAX_REMEMBERED_MESSAGES = 2000;

interface MessageTotals {
  tokens: TokenCounts;
  cost: number;
}

export class Messages {
  private readonly totals = new Map<string, MessageTotals>();
  /**
   * The remembered ids in the order first seen, a ring as long as the bound: the oldest is found
   * without walking the map's keys, which skip every entry deleted before them (a backfill's
   * messages are all new, so every one of them forgot one).
   */
  private readonly order: string[] = [];
  private oldest = 0;

  constructor(private readonly ctx: TrackingContext) {}

  /** Records the message's totals so far, keyed by the host's message id: the store adds only the growth. */
  record(sessionId: string, messageId: string, setup: { agent: string; model: string }, tokens: TokenCounts, cost: number, event: HostEvent = {}): void {
    const previous = this.totals.get(messageId);
    const base = this.ctx.sessions.setupOf(sessionId);
    const changed = !previous || !sameTotals(previous, tokens, cost);
    if (!previous) this.remember(messageId);
    this.totals.set(messageId, { tokens: { ...tokens }, cost });
    if (!changed) return;
    this.ctx.ledger.replay(sessionId, { ...base, agent: setup.agent, model: setup.model }, messageEventId(messageId), messageTotals(tokens, cost), [], { at: event.at });
    this.ctx.flusher.afterRecord();
  }

  /** Takes a new id into the ring, forgetting the oldest beyond the bound. */
  private remember(messageId: string): void {
    if (this.order.length < MAX_REMEMBERED_MESSAGES) {
      this.order.push(messageId);
      return;
    }
    this.totals.delete(this.order[this.oldest] as string);
    this.order[this.oldest] = messageId;
    this.oldest = (this.oldest + 1) % MAX_REMEMBERED_MESSAGES;
  }
}

function sameTotals(previous: MessageTotals, tokens: TokenCounts, cost: number): boolean {
  return (
    tokens.input === previous.tokens.input &&
    tokens.output === previous.tokens.output &&
    tokens.reasoning === previous.tokens.reasoning &&
    tokens.cacheRead === previous.tokens.cacheRead &&
    tokens.cacheWrite === previous.tokens.cacheWrite &&
    cost === previous.cost
  );
}

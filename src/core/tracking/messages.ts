/**
 * Tokens and cost of assistant messages. The host reports a message several times while it streams;
 * the last totals seen of recent messages are remembered so an unchanged report buffers nothing.
 */
import type { CounterDeltas, TokenCounts } from '../types.js';
import type { HostEvent } from '../../contract/host-events.js';
import type { TrackingContext } from './context.js';

const MAX_REMEMBERED_MESSAGES = 2000;

interface MessageTotals {
  tokens: TokenCounts;
  cost: number;
}

export class Messages {
  private readonly totals = new Map<string, MessageTotals>();

  constructor(private readonly ctx: TrackingContext) {}

  /** Records the message's totals so far, keyed by the host's message id: the store adds only the growth. */
  record(sessionId: string, messageId: string, setup: { agent: string; model: string }, tokens: TokenCounts, cost: number, event: HostEvent = {}): void {
    const previous = this.totals.get(messageId);
    const base = this.ctx.sessions.setupOf(sessionId);
    const changed = !previous || !sameTotals(previous, tokens, cost);
    this.totals.set(messageId, { tokens: { ...tokens }, cost });
    // Keys iterate oldest first: forget the oldest beyond the bound.
    for (const oldest of this.totals.keys()) {
      if (this.totals.size <= MAX_REMEMBERED_MESSAGES) break;
      this.totals.delete(oldest);
    }
    if (!changed) return;
    const totals: CounterDeltas = {
      messages: 1,
      tokensInput: tokens.input,
      tokensOutput: tokens.output,
      tokensReasoning: tokens.reasoning,
      tokensCacheRead: tokens.cacheRead,
      tokensCacheWrite: tokens.cacheWrite,
      cost,
    };
    this.ctx.ledger.replay(sessionId, { ...base, agent: setup.agent, model: setup.model }, `message:${messageId}`, totals, [], event.at);
    this.ctx.flusher.afterRecord();
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

/**
 * Agent state as hooks and commands see it: the stored status with the buffered ops applied, the
 * halt read from memory on the hot path, and which names are tracked agents (anything else is a typo).
 */
import { applyAgentOp, newAgent, toStatus } from '../rules.js';
import type { AgentStatus } from '../types.js';
import * as valid from '../validation.js';
import { InputError } from '../validation.js';
import { readKnownHalts, updateKnownHalts } from '../store/known-halts.js';
import type { Mutation } from '../store/mutations.js';
import type { TrackingContext } from './context.js';

/** The agents a write reported a bug of or revived: the only ops that halt an agent or lift its halt. */
export function haltsChangedBy(mutations: readonly Mutation[]): string[] {
  const agents: string[] = [];
  for (const mutation of mutations) {
    if (mutation.table === 'agents' && mutation.ops.some((op) => op.kind === 'bug' || op.kind === 'revive')) agents.push(mutation.key);
  }
  return agents;
}

export class Agents {
  private readonly haltedCache = new Map<string, boolean>();
  private knownHalts: ReadonlySet<string> | undefined;

  constructor(private readonly ctx: TrackingContext) {}

  /** The agent's status including what is buffered and not yet flushed. */
  status(agentId: string): AgentStatus {
    const rules = this.ctx.config.rules;
    const stored = this.ctx.store.tables.agents.get(agentId);
    const agent = stored ? { ...stored } : newAgent(agentId, this.ctx.now().toISOString(), rules);
    for (const op of this.ctx.buffer.agentOps(agentId)) applyAgentOp(agent, op, rules);
    return toStatus(agent, rules);
  }

  /**
   * Whether the agent is halted, from memory on the hot path: a halt changes only with a bug report
   * or a revive here (which forget the agent's entry) or in another process (every flush forgets all).
   * While the database cannot be read (damaged, say), the halts last known beside it hold.
   */
  isHalted(agentId: string): boolean {
    let halted = this.haltedCache.get(agentId);
    if (halted === undefined) {
      halted = this.status(agentId).halted || (!this.ctx.store.attached && this.lastKnownHalts().has(agentId));
      this.haltedCache.set(agentId, halted);
    }
    return halted;
  }

  /** The halts kept beside the database at its last write, read once (store/known-halts.ts). */
  private lastKnownHalts(): ReadonlySet<string> {
    this.knownHalts ??= readKnownHalts(this.ctx.store.path);
    return this.knownHalts;
  }

  /**
   * After a write: keeps beside the database, for a time it cannot be read, the halts of the agents whose
   * halt it may have changed (haltsChangedBy): most writes change none and read nothing here.
   */
  keepKnownHalts(touched: readonly string[]): void {
    if (touched.length === 0 || !this.ctx.store.attached) return;
    updateKnownHalts(this.ctx.store.path, new Map(touched.map((agent) => [agent, this.status(agent).halted])));
  }

  /** Whether the agent exists in the database or the buffer. */
  knows(agentId: string): boolean {
    return this.ctx.buffer.agentOps(agentId).length > 0 || this.ctx.store.tables.agents.doesExist(agentId);
  }

  /**
   * A validated agent name that is tracked, or is the agent working in `sessionId` (which may not
   * have earned anything yet). Anything else is a typo, not a new agent.
   * @throws InputError naming the agent.
   */
  tracked(value: unknown, sessionId?: string): string {
    const agent = valid.agentName(value);
    const working = sessionId ? this.ctx.sessions.workingAgent(sessionId) : undefined;
    if (agent !== working && !this.knows(agent)) throw unknownAgent(agent);
    return agent;
  }

  /**
   * A validated agent name the tracker knows.
   * @throws InputError for a bad or unknown name.
   */
  known(value: unknown): string {
    const agent = valid.agentName(value);
    if (!this.knows(agent)) throw unknownAgent(agent);
    return agent;
  }

  /** The agent's halt may have changed here (a bug report, a revive): read it again next time. */
  forgetHalt(agentId: string): void {
    this.haltedCache.delete(agentId);
  }

  /** Forgets every halt read: they were read from nothing (the store was attached late). */
  forgetHalts(): void {
    this.haltedCache.clear();
  }

  /**
   * Re-reads the halt of every agent the hooks asked about, right after a flush (which may also have
   * brought another process's bug report into view). Done here, at the turn's end, so the first tool
   * call of the next turn finds it in memory instead of reading the database just after a write.
   */
  refreshHalts(): void {
    const agents = [...this.haltedCache.keys()];
    this.haltedCache.clear();
    try {
      for (const agent of agents) this.haltedCache.set(agent, this.status(agent).halted);
    } catch {
      // Read again on the next isHalted (and reported there, if it keeps failing).
      this.haltedCache.clear();
    }
  }
}

function unknownAgent(agent: string): InputError {
  return new InputError(`no agent named "${agent}" has been tracked yet; check the name with: agent-tracker status`);
}

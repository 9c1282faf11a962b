/**
 * Agent statuses as readers see them: the stored agent with its derived labels, plus the totals
 * of its work across sessions (tool calls, failures, pushes).
 */
import { toStatus } from '../rules.js';
import type { ScoringRules } from '../rules.js';
import type { Store } from '../store/store.js';
import type { AgentStatus } from '../types.js';

export interface AgentSummary extends AgentStatus {
  sessions: number;
  toolCalls: number;
  toolFailures: number;
  pushes: number;
}

export function agentSummaries(store: Store, rules: ScoringRules, only?: string): AgentSummary[] {
  const summaries = new Map<string, AgentSummary>();
  const agents = only ? [store.tables.agents.get(only)].filter((a) => a !== undefined) : [...store.tables.agents.getRange()].map((e) => e.value);
  for (const agent of agents) {
    summaries.set(agent.id, { ...toStatus(agent, rules), sessions: 0, toolCalls: 0, toolFailures: 0, pushes: 0 });
  }
  const sessionsSeen = new Map<string, Set<string>>();
  for (const { value } of store.tables.sessions.getRange()) {
    const summary = summaries.get(value.agent);
    if (!summary) continue;
    summary.toolCalls += value.toolCalls;
    summary.toolFailures += value.toolFailures;
    summary.pushes += value.pushes;
    const seen = sessionsSeen.get(value.agent) ?? new Set();
    seen.add(value.sessionId);
    sessionsSeen.set(value.agent, seen);
    summary.sessions = seen.size;
  }
  return [...summaries.values()];
}

/**
 * The agent's health sheet as plain text. (The FIGlet player sheet replaces this rendering.)
 */
import type { AgentStatus } from '../types.js';

export function formatHealthStatus(status: AgentStatus): string {
  return [
    `${status.id}  [${status.tier}]`,
    `SP ${status.sp.toFixed(1)}  XP ${status.xp.toFixed(1)}  CS ${status.cs.toFixed(1)} (${status.csLabel})`,
    `Commits ${status.commits.toFixed(1)}  Bugs ${status.bugs.toFixed(1)}  Halted ${status.halted ? 'YES' : 'no'}`,
  ].join('\n');
}

/**
 * The answer to "how is each agent doing?": its sheet (SP, XP, CS, tier, halt) from the agent record,
 * and its work (sessions, commits, tool calls, failures, pushes, models) from the same usage records
 * and the same aggregation as the report, so `status` and `report --by agent` never disagree.
 */
import { toStatus } from '../rules.js';
import type { ScoringRules } from '../rules.js';
import { loadHistory } from '../report/history.js';
import { buildReport } from '../report/report.js';
import type { StoreAccess } from '../store/access.js';
import type { AgentSummary, StatusAnswer } from '../../contract/answers.js';
export type { AgentSummary, StatusAnswer } from '../../contract/answers.js';

export function statusAnswer(store: StoreAccess, rules: ScoringRules, only?: string): StatusAnswer {
  const records = only ? [store.tables.agents.get(only)].filter((agent) => agent !== undefined) : [...store.tables.agents.getRange()].map((entry) => entry.value);
  const history = loadHistory(store);
  const byAgent = new Map(buildReport(history, 'agent').rows.map((row) => [row.agent, row]));
  const setups = buildReport(history, 'setup').rows;
  const agents = records.map((record): AgentSummary => {
    const work = byAgent.get(record.id);
    const models = setups
      .filter((row) => row.agent === record.id && row.model !== null)
      .sort((a, b) => b.sessions - a.sessions || String(a.model).localeCompare(String(b.model)))
      .map((row) => row.model as string);
    return {
      ...toStatus(record, rules),
      commits: work?.commits ?? 0,
      creditedCommits: record.commits,
      sessions: work?.sessions ?? 0,
      toolCalls: work?.toolCalls ?? 0,
      toolFailures: work?.toolFailures ?? 0,
      pushes: work?.pushes ?? 0,
      models,
    };
  });
  return { agents };
}

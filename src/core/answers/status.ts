/**
 * The answer to "how is each agent doing?": its sheet (SP, XP, CS, tier, halt, bugs, credited commits)
 * from the agent record, and its work (sessions, commits, tool calls, failures, pushes, models) from the
 * same usage records and the same aggregation as the report, so `status` and `report --by agent` never
 * disagree. The record holds the work of every database pooled into this one: an import pools the
 * sheets (src/core/pooled-sheet.ts) and says so in `pooledStanding` where SP and XP could not be.
 */
import { newAgent, toStatus } from '../rules.js';
import type { ScoringRules } from '../rules.js';
import { loadHistory } from '../report/history.js';
import { buildReport } from '../report/report.js';
import type { StoreAccess } from '../store/access.js';
import type { AgentSummary, StatusAnswer } from '../../contract/answers.js';
import type { AgentRecord, UsageRecord } from '../../contract/records.js';
export type { AgentSummary, StatusAnswer } from '../../contract/answers.js';

export function statusAnswer(store: StoreAccess, rules: ScoringRules, only?: string): StatusAnswer {
  const history = loadHistory(store);
  const byAgent = new Map(buildReport(history, 'agent').rows.map((row) => [row.agent, row]));
  const stored = only ? [store.tables.agents.get(only)].filter((agent) => agent !== undefined) : [...store.tables.agents.getRange()].map((entry) => entry.value);
  // An agent that worked without earning anything yet (only the tracker's own tools, say) has no record:
  // its sheet is a fresh one, since report and recommend already show its work.
  const records = [...stored, ...unrecorded(history.usage, new Set(stored.map((record) => record.id)), only, rules)].sort((a, b) =>
    a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
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
      pooledStanding: record.pooledStanding === true,
      sessions: work?.sessions ?? 0,
      toolCalls: work?.toolCalls ?? 0,
      toolFailures: work?.toolFailures ?? 0,
      pushes: work?.pushes ?? 0,
      models,
    };
  });
  return { agents };
}

/** Fresh sheets for the agents of `usage` without a record (only `only`, when named), dated by their records. */
function unrecorded(usage: readonly UsageRecord[], recorded: ReadonlySet<string>, only: string | undefined, rules: ScoringRules): AgentRecord[] {
  const spans = new Map<string, { first: string; last: string }>();
  for (const record of usage) {
    if (recorded.has(record.agent) || (only !== undefined && record.agent !== only)) continue;
    const span = spans.get(record.agent);
    if (span === undefined) spans.set(record.agent, { first: record.firstAt, last: record.lastAt });
    else {
      if (record.firstAt < span.first) span.first = record.firstAt;
      if (record.lastAt > span.last) span.last = record.lastAt;
    }
  }
  return [...spans].map(([id, span]) => ({ ...newAgent(id, span.first, rules), updatedAt: span.last }));
}

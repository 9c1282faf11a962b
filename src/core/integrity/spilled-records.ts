/**
 * What a spill file may bring into the record. A spill is a plain JSON file beside the database (or in
 * the OS temp folder) that the next start merges, and any process of the user can write one: an
 * agent's bash too. The plugin spills its own buffer, which never holds a revive and holds the user's
 * grade only from `/grade`. So every user-only record a spill brings is stored as suspect (shown by
 * `report`, `doctor` and `review` until the user settles it), and a revive in it lifts nothing: it is
 * kept as a held revive, which `agent-tracker review --confirm ID` lifts, as a suspect CLI revive is.
 */
import type { AgentMutationOp, JournalKey, Mutation, SessionKey } from '../store/mutations.js';
import type { ActivityEntry, CounterDeltas, UserActionProvenance, UserGradeRecord } from '../types.js';
import { UNKNOWN } from '../types.js';
import { SPILL_MARKER_PREFIX } from '../store/late-write.js';
import { REVIEW_KEY_PREFIX } from './record-chain.js';
import { heldReviveSummary } from './suspect-actions.js';

/** The sign stored on each user-only record a spill brought. */
export function spillSign(file: string): string {
  return `it came from the spill file ${file}, which any process of the user can write (an agent's shell included)`;
}

/** How a user-only record from a spill came: without a terminal the tracker saw, and suspect. */
function spilledProvenance(action: string, sign: string, earlier?: UserActionProvenance): UserActionProvenance {
  return { action, via: earlier?.via ?? 'terminal-no-tty', suspect: true, signs: [...(earlier?.signs ?? []), sign] };
}

/** The journal entry of a user-only action the spill brought without one (a revive, a grade). */
function heldEntry(agent: string, at: string, summary: string, provenance: UserActionProvenance, key: JournalKey): Mutation {
  const value: ActivityEntry = {
    timestamp: at,
    task: summary,
    actions: '',
    outcome: 'suspect user action',
    decisions: '',
    agent,
    model: UNKNOWN,
    project: UNKNOWN,
    automatic: false,
    userAction: provenance,
  };
  return { table: 'activities', key, value };
}

/** Meta keys that hold the user's reviews and the evidence around the record: only the tracker's own writes make them, never a spill. */
const EVIDENCE_META_PREFIXES = [REVIEW_KEY_PREFIX, 'chain:', 'suspect-index', 'import:', 'legacy:', SPILL_MARKER_PREFIX];

/**
 * Counters that stand for the user's grades, which `recommend` weighs most: a spill brings them only as
 * far as the user grades it carries account for them, counted again from those grades.
 */
const USER_GRADE_COUNTERS = ['userGradedCommits', 'userGradeSum', 'reportedGradedCommits', 'reportedGradeSum'] as const;

function withoutUserGradeCounters(counters: CounterDeltas): CounterDeltas {
  const kept = { ...counters };
  for (const name of USER_GRADE_COUNTERS) delete kept[name];
  return kept;
}

/** Adds each user grade of `grades` to the usage record of the setup that made its commit (a new one when the spill has none). */
function countUserGrades(merged: Mutation[], grades: readonly { grade: UserGradeRecord; delta: number; first: boolean }[]): void {
  for (const { grade, delta, first } of grades) {
    const key: SessionKey = [grade.sessionId, grade.agent, grade.model];
    const found = merged.find((m): m is Extract<Mutation, { table: 'usage' }> => m.table === 'usage' && m.key.every((part, i) => part === key[i]));
    const usage = found ?? { table: 'usage', key, init: { sessionId: grade.sessionId, source: 'live', agent: grade.agent, model: grade.model, project: grade.project, firstAt: grade.timestamp }, counters: {}, lastAt: grade.timestamp };
    if (!found) merged.push(usage);
    usage.counters = { ...usage.counters, userGradedCommits: (usage.counters.userGradedCommits ?? 0) + (first ? 1 : 0), userGradeSum: (usage.counters.userGradeSum ?? 0) + delta };
  }
}

/** A user-only journal entry of a spill, marked suspect with the spill's sign. */
function suspectEntry(entry: ActivityEntry, sign: string): ActivityEntry {
  if (!entry.userAction) return entry;
  return { ...entry, outcome: 'suspect user action', userAction: spilledProvenance(entry.userAction.action, sign, entry.userAction) };
}

/**
 * `mutations` of the spill `id` (read from `file`) as they may be merged at `at`: user-only journal
 * entries marked suspect with the spill's sign, each revive replaced by a held revive, each user grade
 * without a journal entry of its own given a suspect one, the user-grade counters of usage records
 * counted from the user grades it carries, and no review or evidence key.
 */
export function spilledMutations(mutations: readonly Mutation[], spill: { id: string; file: string }, at: string): Mutation[] {
  const sign = spillSign(spill.file);
  // Agents whose user grade the spill journals itself (a /grade the plugin could not write in time).
  const journaledGrades = new Set<string>();
  for (const m of mutations) if (m.table === 'activities' && m.value.userAction?.action === 'grade') journaledGrades.add(m.value.agent);
  const added: Mutation[] = [];
  const hold = (agent: string, action: string, summary: (via: UserActionProvenance['via']) => string): void => {
    const provenance = spilledProvenance(action, sign);
    added.push(heldEntry(agent, at, summary(provenance.via), provenance, [agent, at, `spill-${spill.id}-${added.length}`]));
  };
  /** The ops a spill may apply to `agent`: a revive is held, a user grade keeps (or gets) a suspect journal entry. */
  const allowedOps = <Op extends AgentMutationOp>(agent: string, ops: readonly Op[]): Op[] =>
    ops.filter((op) => {
      if (op.kind === 'revive') {
        hold(agent, 'revive', (via) => heldReviveSummary(agent, via));
        return false;
      }
      if (op.kind === 'grade' && 'userGrade' in op && !journaledGrades.has(agent)) {
        hold(agent, 'grade', () => `User graded ${op.userGrade.commit.slice(0, 12)} ${op.userGrade.grade} (from a spill file)`);
        journaledGrades.add(agent);
      }
      return true;
    });
  const merged: Mutation[] = [];
  const userGrades: { grade: UserGradeRecord; delta: number; first: boolean }[] = [];
  for (const m of mutations) {
    if (m.table === 'activities') merged.push({ ...m, value: suspectEntry(m.value, sign) });
    else if (m.table === 'agents') {
      const ops = allowedOps(m.key, m.ops);
      for (const op of ops) if (op.kind === 'grade' && 'userGrade' in op) userGrades.push({ grade: op.userGrade, delta: op.userGrade.grade - (op.replaces ?? 0), first: op.replaces === undefined });
      merged.push({ ...m, ops });
    } else if (m.table === 'events') {
      const agentOps = m.agentOps.map(({ agent, ops }) => ({ agent, ops: allowedOps(agent, ops) }));
      merged.push({ ...m, totals: withoutUserGradeCounters(m.totals), agentOps, ...(m.activity ? { activity: { key: m.activity.key, value: suspectEntry(m.activity.value, sign) } } : {}) });
    } else if (m.table === 'usage') merged.push({ ...m, counters: withoutUserGradeCounters(m.counters) });
    else if (m.table !== 'meta' || !EVIDENCE_META_PREFIXES.some((prefix) => m.key.startsWith(prefix))) merged.push(m);
  }
  countUserGrades(merged, userGrades);
  return [...merged, ...added];
}

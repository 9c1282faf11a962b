/**
 * The usage report: one row per setup (agent × model), or per agent, per model, or per setup and
 * project, summed from the usage records.
 */
import type { History } from './history.js';
import { commitGradeSum, totalTokens } from './history.js';
import { gradeEvidence, gradedCommitCount } from '../outcomes/counters.js';
import type { GradeEvidence } from '../outcomes/counters.js';
import { addOutcomes, emptyOutcomeSums, outcomeFields } from './outcome-columns.js';
import type { OutcomeSums } from './outcome-columns.js';
import { lacksPrice } from './recommend-prices.js';
import type { CostEstimator } from './recommend-prices.js';
import type { UsageRecord, UsageSource } from '../types.js';
import { localTimeZone, periodLabeller } from './periods.js';
import type { Period } from './periods.js';
import type { ReportGrouping, ReportRow } from '../../contract/answers.js';
export type { ReportGrouping, ReportRow } from '../../contract/answers.js';

export const REPORT_GROUPINGS: readonly ReportGrouping[] = ['setup', 'agent', 'model', 'project', 'session'];

/** Rows per calendar period too (`--period`), in a time zone; how to price usage stored at cost 0; which projects git was read for. */
export interface ReportOptions {
  period?: Period;
  timeZone?: string;
  /**
   * Prices usage OpenCode stored at cost 0 while spending tokens (the catalog `recommend` uses). Without
   * it such usage is of unknown cost, never free.
   */
  estimateCost?: CostEstimator;
  /** Projects whose git history was read (their revert and follow-up-fix counts mean something); none without it. */
  gitReadProjects?: ReadonlySet<string>;
}

export interface Report {
  by: ReportGrouping;
  rows: ReportRow[];
  /** Every row together. */
  totals: ReportRow;
}

/** A row's cost in parts: what OpenCode stored, what the catalog estimates, what nobody knows. */
interface CostParts {
  stored: number;
  /** A record had a stored cost above 0 (a cost of 0 with no tokens spent says nothing). */
  storedKnown: boolean;
  /**
   * Usage OpenCode stored at cost 0 while spending tokens, summed per model (the tokens on a copy of
   * the first such record) with its sessions: priced once per row and model when the row is finished.
   */
  unpriced: Map<string, { usage: UsageRecord; sessions: Set<string> }>;
  estimated: number;
  estimatedAny: boolean;
  unknownSessions: Set<string>;
}

interface Accumulator {
  row: ReportRow;
  sessionIds: Set<string>;
  sourceIds: Record<UsageSource, Set<string>>;
  gradeSum: number;
  outcomes: OutcomeSums;
  cost: CostParts;
}

function newAccumulator(row: ReportRow): Accumulator {
  return {
    row,
    sessionIds: new Set(),
    sourceIds: { live: new Set(), backfill: new Set() },
    gradeSum: 0,
    outcomes: emptyOutcomeSums(),
    cost: { stored: 0, storedKnown: false, unpriced: new Map(), estimated: 0, estimatedAny: false, unknownSessions: new Set() },
  };
}

const DIMENSIONS: Readonly<Record<ReportGrouping, readonly ('agent' | 'model' | 'project' | 'session')[]>> = {
  setup: ['agent', 'model'],
  agent: ['agent'],
  model: ['model'],
  project: ['agent', 'model', 'project'],
  session: ['session', 'agent', 'model', 'project'],
};

function emptyRow(agent: string | null, model: string | null, project: string | null, period: string | null = null, session: string | null = null): ReportRow {
  return {
    period,
    session,
    task: null,
    agent,
    model,
    project,
    sessions: 0,
    liveSessions: 0,
    backfilledSessions: 0,
    messages: 0,
    toolCalls: 0,
    toolFailures: 0,
    failureRate: null,
    commits: 0,
    pushes: 0,
    bugs: 0,
    bugsPerCommit: null,
    gradedCommits: 0,
    meanGrade: null,
    trackerFileEdits: 0,
    csChange: 0,
    tokensInput: 0,
    tokensOutput: 0,
    tokensReasoning: 0,
    tokensCacheRead: 0,
    tokensCacheWrite: 0,
    tokens: 0,
    cost: 0,
    costPerCommit: null,
    costEstimated: false,
    costUnknownSessions: 0,
    firstAt: null,
    lastAt: null,
    ...outcomeFields(emptyOutcomeSums(), 0),
  };
}

function ratio(numerator: number, denominator: number): number | null {
  return denominator > 0 ? numerator / denominator : null;
}

/**
 * Money summed over records carries floating-point dust (ten sessions at $0.10 make 0.9999999999999999):
 * rounded to a billionth of a dollar, far below any price OpenCode records, it reads as the sum it is.
 */
function money(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}

function widen(row: ReportRow, first: string, last: string): void {
  if (row.firstAt === null || first < row.firstAt) row.firstAt = first;
  if (row.lastAt === null || last > row.lastAt) row.lastAt = last;
}

/** Prices a row's usage stored at cost 0, once per model: an estimate, or sessions of unknown cost. */
function priceUnpriced(parts: CostParts, estimate: CostEstimator | undefined): void {
  for (const { usage, sessions } of parts.unpriced.values()) {
    const price = estimate ? estimate(usage) : null;
    if (price === null) {
      for (const session of sessions) parts.unknownSessions.add(session);
    } else {
      parts.estimated += price;
      parts.estimatedAny = true;
    }
  }
  parts.unpriced.clear();
}

function finish(accumulator: Accumulator): ReportRow {
  const { row, cost } = accumulator;
  row.sessions = accumulator.sessionIds.size;
  row.liveSessions = accumulator.sourceIds.live.size;
  row.backfilledSessions = accumulator.sourceIds.backfill.size;
  row.failureRate = ratio(row.toolFailures, row.toolCalls);
  row.bugsPerCommit = ratio(row.bugs, row.commits);
  row.meanGrade = ratio(accumulator.gradeSum, row.gradedCommits);
  row.costEstimated = cost.estimatedAny;
  row.costUnknownSessions = cost.unknownSessions.size;
  // Unknown usage is left out of the sum: partial when part of it is known, null when none is.
  const known = cost.storedKnown || cost.estimatedAny || row.costUnknownSessions === 0;
  row.cost = known ? money(cost.stored + cost.estimated) : null;
  const perCommit = row.cost === null || row.costUnknownSessions > 0 ? null : ratio(row.cost, row.commits);
  row.costPerCommit = perCommit === null ? null : money(perCommit);
  Object.assign(row, outcomeFields(accumulator.outcomes, row.commits));
  return row;
}

/** What one usage record adds to a row beyond its own counters. */
interface RecordFigures {
  grades: GradeEvidence;
  tokens: number;
  gradedCommits: number;
  gradeSum: number;
  /** The record's project had its git history read. */
  gitRead: boolean;
  /** OpenCode stored cost 0 while tokens were spent: the record's cost is to be estimated. */
  unpriced: boolean;
}

/** Adds a record stored at cost 0 with tokens spent to its row's usage of that model, to be priced once. */
function addUnpriced(parts: CostParts, record: UsageRecord): void {
  const pending = parts.unpriced.get(record.model);
  if (!pending) {
    parts.unpriced.set(record.model, { usage: { ...record }, sessions: new Set([record.sessionId]) });
    return;
  }
  const { usage } = pending;
  usage.tokensInput += record.tokensInput;
  usage.tokensOutput += record.tokensOutput;
  usage.tokensReasoning += record.tokensReasoning;
  usage.tokensCacheRead += record.tokensCacheRead;
  usage.tokensCacheWrite += record.tokensCacheWrite;
  pending.sessions.add(record.sessionId);
}

/** Adds a record to a row; `priceHere`: its unpriced usage is priced with this row (the totals take their rows' prices instead). */
function addRecord(target: Accumulator, record: UsageRecord, added: RecordFigures, priceHere = true): void {
  const row = target.row;
  target.sessionIds.add(record.sessionId);
  target.sourceIds[record.source ?? 'live'].add(record.sessionId);
  row.messages += record.messages;
  row.toolCalls += record.toolCalls;
  row.toolFailures += record.toolFailures;
  row.commits += record.commits;
  row.pushes += record.pushes;
  row.bugs += record.bugs;
  row.tokensInput += record.tokensInput;
  row.tokensOutput += record.tokensOutput;
  row.tokensReasoning += record.tokensReasoning;
  row.tokensCacheRead += record.tokensCacheRead;
  row.tokensCacheWrite += record.tokensCacheWrite;
  row.tokens += added.tokens;
  if (!added.unpriced) {
    target.cost.stored += record.cost;
    if (record.cost > 0) target.cost.storedKnown = true;
  } else if (priceHere) addUnpriced(target.cost, record);
  row.gradedCommits += added.gradedCommits;
  addOutcomes(target.outcomes, record, added.grades, added.gitRead);
  row.csChange += record.csDelta;
  row.trackerFileEdits += record.trackerFileEdits ?? 0;
  target.gradeSum += added.gradeSum;
  widen(row, record.firstAt, record.lastAt);
}

/**
 * Aggregates the history into report rows: by period first when asked (oldest first), then by agent,
 * model and project; sessions newest first. A session's work counts in the period it began.
 */
export function buildReport(history: History, by: ReportGrouping = 'setup', options: ReportOptions = {}): Report {
  const dimensions = DIMENSIONS[by];
  const groups = new Map<string, Accumulator>();
  const totals: Accumulator = newAccumulator(emptyRow(null, null, null));
  const periodOf = options.period ? periodLabeller(options.period, options.timeZone ?? localTimeZone()) : undefined;

  const split = { session: dimensions.includes('session'), agent: dimensions.includes('agent'), model: dimensions.includes('model'), project: dimensions.includes('project') };

  const groupOf = (record: UsageRecord): Accumulator => {
    const period = periodOf ? periodOf(record.firstAt) : null;
    const session = split.session ? record.sessionId : null;
    const agent = split.agent ? record.agent : null;
    const model = split.model ? record.model : null;
    const project = split.project ? record.project : null;
    const key = `${period ?? ''}\u0000${session ?? ''}\u0000${agent ?? ''}\u0000${model ?? ''}\u0000${project ?? ''}`;
    let group = groups.get(key);
    if (!group) {
      group = newAccumulator(emptyRow(agent, model, project, period, session));
      groups.set(key, group);
    }
    return group;
  };

  // What a record adds is worked out once and added to its group and to the totals: a report runs
  // once per process, so this loop runs mostly unoptimized and its cost is the work it does.
  const gitRead = options.gitReadProjects ?? new Set<string>();
  for (const record of history.usage) {
    const grades = gradeEvidence(record);
    const added: RecordFigures = {
      grades,
      tokens: totalTokens(record),
      gradedCommits: gradedCommitCount(record, grades),
      gradeSum: commitGradeSum(record, grades),
      gitRead: gitRead.has(record.project),
      unpriced: lacksPrice(record),
    };
    addRecord(groupOf(record), record, added);
    addRecord(totals, record, added, false);
  }

  // The totals' estimate is the sum of their rows' (each priced once per model), so rows add up to it.
  for (const group of groups.values()) {
    priceUnpriced(group.cost, options.estimateCost);
    totals.cost.estimated += group.cost.estimated;
    totals.cost.estimatedAny ||= group.cost.estimatedAny;
    for (const session of group.cost.unknownSessions) totals.cost.unknownSessions.add(session);
  }
  const rows = [...groups.values()].map(finish).sort(compareRows);
  return { by, rows, totals: finish(totals) };
}

function compareRows(a: ReportRow, b: ReportRow): number {
  if (a.period !== b.period) return (a.period ?? '') < (b.period ?? '') ? -1 : 1;
  // Sessions: newest first.
  if (a.session !== b.session) return (a.firstAt ?? '') > (b.firstAt ?? '') ? -1 : (a.firstAt ?? '') < (b.firstAt ?? '') ? 1 : (a.session ?? '') < (b.session ?? '') ? -1 : 1;
  for (const name of ['agent', 'model', 'project'] as const) {
    const left = a[name] ?? '';
    const right = b[name] ?? '';
    if (left !== right) return left < right ? -1 : 1;
  }
  return 0;
}

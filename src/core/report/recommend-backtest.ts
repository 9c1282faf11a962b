/**
 * The backtest: the user's own history replayed in time order. At a few points in time the
 * recommendation is made again from only the sessions before that point, and each session after it
 * (until the next point) is sorted into "used what recommend would have said" or "used something
 * else". Comparing how the two groups' work turned out shows whether the tool is worth trusting on
 * this user's data. What the other model would have done is never seen, so this compares what was
 * done, not what might have been; the interval says how much the comparison can be trusted.
 */
import type { History } from './history.js';
import { Z_80 } from './recommend-math.js';
import { recommendSetups } from './recommend.js';
import type { Preference, ProjectSimilarity } from './recommend.js';
import type { CostEstimator } from './recommend-prices.js';
import { acceptedCommits, emptyTally, addRecord, gradeGood } from './recommend-signals.js';
import { UNKNOWN } from '../types.js';
import type { ProjectProfile, UsageRecord } from '../types.js';

/** How many points in time the history is replayed at (each a full recommendation per project). */
export const BACKTEST_POINTS = 12;
/** The first share of the history only teaches: nothing before it is judged. */
export const BACKTEST_WARMUP = 0.25;
/**
 * Below this many judged sessions in either group the backtest says it cannot tell yet. Only sessions
 * whose kind of outcome the other group has too are counted: the rest are compared with nothing.
 */
export const BACKTEST_MIN_SESSIONS = 10;
/** The largest variance an outcome in 0..1 can have: assumed for a group of one session in a kind. */
const MAX_OUTCOME_VARIANCE = 0.25;

/**
 * The kinds of outcome, by what a session has to go on: the user's grade (a grade g of -1..5 counts
 * (g + 1) / 6), else the share of its commits that held, else the share of its turns not undone.
 * Their scales differ (a "good" grade is 0.5, a commit that held is 1), so only like is compared with like.
 */
const OUTCOME_KINDS = ['grade', 'commits', 'turns'] as const;
export type OutcomeKind = (typeof OUTCOME_KINDS)[number];

export interface SessionOutcome {
  kind: OutcomeKind;
  /** 0..1 */
  value: number;
}

export interface BacktestGroup {
  sessions: number;
  /**
   * Mean outcome 0..1 over the kinds of outcome both groups have, each kind weighted as in the
   * difference (so followed minus other is the difference); null when the groups share no kind.
   */
  outcome: number | null;
}

/** One kind of outcome: each group's sessions of that kind and their mean outcome (null: none). */
export interface BacktestKind {
  kind: OutcomeKind;
  followed: BacktestGroup;
  other: BacktestGroup;
  /** The kind's share 0..1 of the difference; 0 when only one group has sessions of this kind. */
  weight: number;
}

export interface Backtest {
  /** Sessions judged (after the warm-up, in a role recommend had an answer for). */
  judged: number;
  points: number;
  followed: BacktestGroup;
  other: BacktestGroup;
  /** The comparison within each kind of outcome either group has. */
  byKind: BacktestKind[];
  /** Followed minus other, in outcome points (0..100), with its 80% interval; null when either group has too few sessions of a kind the other has too. */
  difference: { mean: number; interval: [number, number] } | null;
  /** One sentence for the user. */
  verdict: string;
}

/** A session's outcome and its kind, or null when it has none (nothing graded, committed or turned). */
export function sessionOutcome(record: UsageRecord): SessionOutcome | null {
  const tally = emptyTally();
  addRecord(tally, record, 1);
  if (tally.userGraded > 0) return { kind: 'grade', value: gradeGood(tally.userGradeSum, tally.userGraded) / tally.userGraded };
  if (tally.commits > 0) return { kind: 'commits', value: acceptedCommits(tally) / tally.commits };
  if (tally.turns > 0) return { kind: 'turns', value: (tally.turns - tally.undoneTurns) / tally.turns };
  return null;
}

interface Moments {
  n: number;
  mean: number;
  /** The variance of the mean. */
  meanVariance: number;
}

function moments(values: readonly number[]): Moments | null {
  if (values.length === 0) return null;
  const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
  const variance = values.length < 2 ? MAX_OUTCOME_VARIANCE : values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (values.length - 1);
  return { n: values.length, mean, meanVariance: variance / values.length };
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;
const summary = (m: Moments | null): BacktestGroup => ({ sessions: m?.n ?? 0, outcome: m === null ? null : round3(m.mean) });

/**
 * Followed against other, within each kind of outcome, combined as a stratified difference: a kind
 * weighs n_followed·n_other / (n_followed + n_other) (the Cochran–Mantel–Haenszel weight, so a kind
 * only one group has weighs nothing and a lopsided kind little), and the interval is that weighted
 * mean's. Which group happened to be graded more then moves nothing.
 */
function compareByKind(followed: readonly SessionOutcome[], other: readonly SessionOutcome[]) {
  const of = (outcomes: readonly SessionOutcome[], kind: OutcomeKind) => moments(outcomes.filter((o) => o.kind === kind).map((o) => o.value));
  const kinds = OUTCOME_KINDS.map((kind) => {
    const a = of(followed, kind);
    const b = of(other, kind);
    return { kind, a, b, weight: a && b ? (a.n * b.n) / (a.n + b.n) : 0 };
  });
  const total = kinds.reduce((sum, k) => sum + k.weight, 0);
  const shared = kinds.filter((k) => k.weight > 0);
  const weighted = (pick: (k: (typeof kinds)[number]) => number) => shared.reduce((sum, k) => sum + k.weight * pick(k), 0) / total;
  const outcomes = total > 0 ? { followed: weighted((k) => k.a?.mean ?? 0), other: weighted((k) => k.b?.mean ?? 0) } : null;
  const variance = shared.reduce((sum, k) => sum + k.weight ** 2 * ((k.a?.meanVariance ?? 0) + (k.b?.meanVariance ?? 0)), 0) / (total * total || 1);
  return {
    byKind: kinds
      .filter((k) => k.a || k.b)
      .map((k): BacktestKind => ({ kind: k.kind, followed: summary(k.a), other: summary(k.b), weight: total > 0 ? round3(k.weight / total) : 0 })),
    outcomes,
    variance,
    /** Sessions in a kind the other group has too. */
    comparable: { followed: shared.reduce((sum, k) => sum + (k.a?.n ?? 0), 0), other: shared.reduce((sum, k) => sum + (k.b?.n ?? 0), 0) },
  };
}

const round1 = (value: number) => Math.round(value * 10) / 10;

export interface BacktestInput {
  history: History;
  profiles: ReadonlyMap<string, ProjectProfile>;
  similarity: ProjectSimilarity;
  prefer?: Preference;
  estimateCost?: CostEstimator;
}

/** A profile for a project with none stored: unclassified, so only its own history counts as alike. */
function bareProfile(project: string): ProjectProfile {
  return { path: project, language: UNKNOWN, framework: UNKNOWN, scope: UNKNOWN, dependencies: [], manifestType: UNKNOWN, classifiedAt: '', agentsmdHash: '' };
}

/** Replays the history at BACKTEST_POINTS points in time. */
export function backtestRecommendations(input: BacktestInput): Backtest {
  const usage = input.history.usage.filter((r) => r.agent !== UNKNOWN && r.model !== UNKNOWN).sort((a, b) => a.firstAt.localeCompare(b.firstAt) || a.sessionId.localeCompare(b.sessionId));
  const start = Math.floor(usage.length * BACKTEST_WARMUP);
  const span = usage.length - start;
  const points = Math.max(0, Math.min(BACKTEST_POINTS, span));
  const followed: SessionOutcome[] = [];
  const other: SessionOutcome[] = [];
  for (let p = 0; p < points; p += 1) {
    const from = start + Math.floor((span * p) / points);
    const to = start + Math.floor((span * (p + 1)) / points);
    const past = usage.slice(0, from);
    if (past.length === 0) continue;
    const answers = new Map<string, Map<string, string>>();
    for (const record of usage.slice(from, to)) {
      const outcome = sessionOutcome(record);
      if (outcome === null) continue;
      let picks = answers.get(record.project);
      if (!picks) {
        const target = input.profiles.get(record.project) ?? bareProfile(record.project);
        const answer = recommendSetups({
          target,
          history: { usage: past },
          profiles: input.profiles,
          similarity: input.similarity,
          ...(input.prefer ? { prefer: input.prefer } : {}),
          ...(input.estimateCost ? { estimateCost: input.estimateCost } : {}),
        });
        picks = new Map(answer.roles.map((role) => [role.agent, role.pick.model]));
        answers.set(record.project, picks);
      }
      const pick = picks.get(record.agent);
      if (pick === undefined) continue;
      (pick === record.model ? followed : other).push(outcome);
    }
  }
  const compared = compareByKind(followed, other);
  const { comparable } = compared;
  const enough = comparable.followed >= BACKTEST_MIN_SESSIONS && comparable.other >= BACKTEST_MIN_SESSIONS;
  let difference: Backtest['difference'] = null;
  if (enough && compared.outcomes !== null) {
    const mean = 100 * (compared.outcomes.followed - compared.outcomes.other);
    const half = 100 * Z_80 * Math.sqrt(compared.variance);
    difference = { mean: round1(mean), interval: [round1(mean - half), round1(mean + half)] };
  }
  const groupOf = (sessions: number, outcome: number | undefined): BacktestGroup => ({ sessions, outcome: outcome === undefined ? null : round3(outcome) });
  return {
    judged: followed.length + other.length,
    points,
    followed: groupOf(followed.length, compared.outcomes?.followed),
    other: groupOf(other.length, compared.outcomes?.other),
    byKind: compared.byKind,
    difference,
    verdict: verdictOf(difference, { followed: followed.length, other: other.length }, comparable),
  };
}

function verdictOf(difference: Backtest['difference'], sessions: { followed: number; other: number }, comparable: { followed: number; other: number }): string {
  if (difference === null) {
    const counts = `${sessions.followed} session${sessions.followed === 1 ? '' : 's'} used what recommend would have said and ${sessions.other} did not`;
    const unlike =
      comparable.followed === sessions.followed && comparable.other === sessions.other
        ? ''
        : comparable.followed === 0
          ? ', but none of them has an outcome of a kind the other group has too (your grade, commits that held, turns not undone)'
          : `, but only ${comparable.followed} and ${comparable.other} of them have an outcome of a kind the other group has too (your grade, commits that held, turns not undone)`;
    return `Too little history to judge yet: ${counts}${unlike}; the backtest needs at least ${BACKTEST_MIN_SESSIONS} of each.`;
  }
  const [low, high] = difference.interval;
  if (low > 0) return `Following recommend went better on your own history: ${difference.mean} outcome points ahead (80%: ${low} to ${high}).`;
  if (high < 0) return `Following recommend went worse on your own history: ${Math.abs(difference.mean)} outcome points behind (80%: ${low} to ${high}); trust it less here.`;
  return `No clear difference on your own history between following recommend and not (${difference.mean} points, 80%: ${low} to ${high}).`;
}

/**
 * The evidence a setup's score is made of: one tally of sums per setup (read from usage records),
 * and the signals computed from it. Every signal is a share in 0..1 where higher is better
 * ("good" out of "trials"), so each can be shrunk and given an interval the same way.
 */
import { gradeEvidence, undoTrials } from '../outcomes/counters.js';
import type { GradePairs } from '../outcomes/counters.js';
import type { UsageRecord } from '../types.js';
import type { SignalName } from '../../contract/answers.js';
export type { SignalName } from '../../contract/answers.js';

/** Sums over usage records (similarity-weighted, or plain counts). */
export interface Tally {
  sessions: number;
  commits: number;
  bugs: number;
  toolCalls: number;
  toolFailures: number;
  cost: number;
  userGraded: number;
  userGradeSum: number;
  reportedGraded: number;
  reportedGradeSum: number;
  selfGraded: number;
  selfGradeSum: number;
  /** Turns whose undo could be seen (live sessions': counters.ts, undoTrials). */
  turns: number;
  undoneTurns: number;
  testRuns: number;
  testPasses: number;
  reverted: number;
  followUpFixes: number;
  /**
   * Commits of records the user and the setup both graded (the smaller of the two counts per record),
   * and the sum and sum of squares of (mean self-grade − mean user grade) over them: the overclaim.
   */
  pairedGraded: number;
  overclaimSum: number;
  overclaimSquares: number;
  /** Σ self-graded commits × (the record's mean self-grade)²: how much a setup's self-grades vary from record to record. */
  selfMeanSquares: number;
  /** Sessions whose cost was estimated from the price catalog, and sessions whose model has no known price. */
  costEstimated: number;
  costUnknown: number;
  /** Sessions whose cost is known: recorded by OpenCode (above 0), or estimated. Work that spent nothing is neither. */
  costKnown: number;
}

export function emptyTally(): Tally {
  return {
    sessions: 0,
    commits: 0,
    bugs: 0,
    toolCalls: 0,
    toolFailures: 0,
    cost: 0,
    userGraded: 0,
    userGradeSum: 0,
    reportedGraded: 0,
    reportedGradeSum: 0,
    selfGraded: 0,
    selfGradeSum: 0,
    turns: 0,
    undoneTurns: 0,
    testRuns: 0,
    testPasses: 0,
    reverted: 0,
    followUpFixes: 0,
    pairedGraded: 0,
    overclaimSum: 0,
    overclaimSquares: 0,
    selfMeanSquares: 0,
    costEstimated: 0,
    costUnknown: 0,
    costKnown: 0,
  };
}

/**
 * A record's grades by provenance as [commits, sum] pairs; records from before provenance read as
 * outcomes/counters.ts reads them (agent-reported), so report and recommend agree.
 */
export function gradesByProvenance(record: UsageRecord): { user: [number, number]; reported: [number, number]; self: [number, number]; paired: GradePairs } {
  const { user, self, agentReported, paired } = gradeEvidence(record);
  return { user: [user.commits, user.sum], reported: [agentReported.commits, agentReported.sum], self: [self.commits, self.sum], paired };
}

/** Adds `weight` × the record to the tally; `grades` are its gradesByProvenance when the caller has them already. */
export function addRecord(tally: Tally, record: UsageRecord, weight: number, grades = gradesByProvenance(record)): void {
  tally.sessions += weight;
  tally.commits += weight * record.commits;
  tally.bugs += weight * record.bugs;
  tally.toolCalls += weight * record.toolCalls;
  tally.toolFailures += weight * record.toolFailures;
  tally.cost += weight * record.cost;
  tally.userGraded += weight * grades.user[0];
  tally.userGradeSum += weight * grades.user[1];
  tally.reportedGraded += weight * grades.reported[0];
  tally.reportedGradeSum += weight * grades.reported[1];
  tally.selfGraded += weight * grades.self[0];
  tally.selfGradeSum += weight * grades.self[1];
  tally.turns += weight * undoTrials(record);
  tally.undoneTurns += weight * (record.undoneTurns ?? 0);
  tally.testRuns += weight * (record.testRuns ?? 0);
  tally.testPasses += weight * (record.testPasses ?? 0);
  tally.reverted += weight * (record.revertedCommits ?? 0);
  tally.followUpFixes += weight * (record.followUpFixCommits ?? 0);
  if (grades.self[0] > 0) tally.selfMeanSquares += (weight * grades.self[1] * grades.self[1]) / grades.self[0];
  // Its overclaim: self − user grade on each commit both graded (counters.ts, gradePairs).
  const { paired } = grades;
  if (paired.commits > 0) {
    tally.pairedGraded += weight * paired.commits;
    tally.overclaimSum += weight * paired.gapSum;
    tally.overclaimSquares += weight * paired.gapSquares;
  }
}

/**
 * Adds `weight` × every sum of `from` into `into`. Field by field by name, in emptyTally's order: a
 * loop over the field names read and wrote each by a computed name, several times slower, and this
 * runs for every setup, project and kind of every recommendation. A field added to Tally is added
 * here too (the compiler checks the list below against Tally).
 */
export function addScaledTally(into: Tally, from: Tally, weight: number): void {
  into.sessions += weight * from.sessions;
  into.commits += weight * from.commits;
  into.bugs += weight * from.bugs;
  into.toolCalls += weight * from.toolCalls;
  into.toolFailures += weight * from.toolFailures;
  into.cost += weight * from.cost;
  into.userGraded += weight * from.userGraded;
  into.userGradeSum += weight * from.userGradeSum;
  into.reportedGraded += weight * from.reportedGraded;
  into.reportedGradeSum += weight * from.reportedGradeSum;
  into.selfGraded += weight * from.selfGraded;
  into.selfGradeSum += weight * from.selfGradeSum;
  into.turns += weight * from.turns;
  into.undoneTurns += weight * from.undoneTurns;
  into.testRuns += weight * from.testRuns;
  into.testPasses += weight * from.testPasses;
  into.reverted += weight * from.reverted;
  into.followUpFixes += weight * from.followUpFixes;
  into.pairedGraded += weight * from.pairedGraded;
  into.overclaimSum += weight * from.overclaimSum;
  into.overclaimSquares += weight * from.overclaimSquares;
  into.selfMeanSquares += weight * from.selfMeanSquares;
  into.costEstimated += weight * from.costEstimated;
  into.costUnknown += weight * from.costUnknown;
  into.costKnown += weight * from.costKnown;
}

/** The fields addScaledTally adds: a field added to Tally and not to this list (and to addScaledTally) fails to compile. */
type TallyFieldsAdded = 'sessions' | 'commits' | 'bugs' | 'toolCalls' | 'toolFailures' | 'cost' | 'userGraded' | 'userGradeSum' | 'reportedGraded' | 'reportedGradeSum' | 'selfGraded' | 'selfGradeSum' | 'turns' | 'undoneTurns' | 'testRuns' | 'testPasses' | 'reverted' | 'followUpFixes' | 'pairedGraded' | 'overclaimSum' | 'overclaimSquares' | 'selfMeanSquares' | 'costEstimated' | 'costUnknown' | 'costKnown';
export const TALLY_FIELDS_COMPLETE: [Exclude<keyof Tally, TallyFieldsAdded>] extends [never] ? true : never = true;

/** Adds every sum of `from` into `into`. */
export function addTally(into: Tally, from: Tally): void {
  addScaledTally(into, from, 1);
}

/**
 * Accepted commits: commits that held, i.e. not reverted later and not needing a follow-up fix to
 * the same lines. (A commit graded -1 is not subtracted: usage records hold grade sums, not how many
 * grades were -1, and the grades already count in the score.)
 */
export function acceptedCommits(tally: Tally): number {
  return Math.max(0, tally.commits - tally.reverted - tally.followUpFixes);
}

/** One signal: how it weighs, how much evidence it takes to trust, and how to read it from a tally. */
export interface Signal {
  name: SignalName;
  /** Relative weight in the quality score. */
  weight: number;
  /**
   * Credibility: the prior (the role's pooled share) counts as this many trials of evidence, so a
   * setup needs about this much of its own before its record outweighs the role's average.
   */
  credibility: number;
  /** Good outcomes (0..trials) and trials, from a tally. */
  good: (tally: Tally) => number;
  trials: (tally: Tally) => number;
}

/** Grades run -1..5; a grade g counts as (g + 1) / 6 of a good outcome. */
const GRADE_MIN = -1;
const GRADE_RANGE = 6;
export const gradeGood = (sum: number, count: number) => (sum - GRADE_MIN * count) / GRADE_RANGE;

/**
 * Signal weights. The user's own grade is the answer this product exists for, so it counts most.
 * What happened to the work (reverted or fixed after, undone, tests, bugs) no model can inflate, so
 * it comes next; each alone counts less than the user's grade. "User grades" an agent relayed before
 * grades had a provenance probably are the user's words, but the judged setup carried them. A
 * setup's grade of itself counts least: it is the setup writing its own report card.
 */
export const SIGNAL_WEIGHTS: Readonly<Record<SignalName, number>> = {
  userGrade: 4,
  acceptedCommits: 2,
  undo: 1.5,
  reportedGrade: 1,
  tests: 1,
  bugs: 1,
  toolFailures: 0.5,
  selfGrade: 0.25,
};

/** Prior strength per signal, in that signal's trials (graded commits, commits, turns, test runs, tool calls). */
export const SIGNAL_CREDIBILITY: Readonly<Record<SignalName, number>> = {
  userGrade: 20,
  reportedGrade: 20,
  selfGrade: 20,
  acceptedCommits: 20,
  bugs: 20,
  undo: 20,
  tests: 10,
  toolFailures: 200,
};

function signal(name: SignalName, good: Signal['good'], trials: Signal['trials']): Signal {
  return { name, weight: SIGNAL_WEIGHTS[name], credibility: SIGNAL_CREDIBILITY[name], good, trials };
}

/** Every signal, in the order the one-line why prefers on equal influence. */
export const SIGNALS: readonly Signal[] = [
  signal('userGrade', (t) => gradeGood(t.userGradeSum, t.userGraded), (t) => t.userGraded),
  signal('acceptedCommits', acceptedCommits, (t) => t.commits),
  signal('undo', (t) => Math.max(0, t.turns - t.undoneTurns), (t) => t.turns),
  signal('reportedGrade', (t) => gradeGood(t.reportedGradeSum, t.reportedGraded), (t) => t.reportedGraded),
  signal('tests', (t) => Math.min(t.testPasses, t.testRuns), (t) => t.testRuns),
  signal('bugs', (t) => Math.max(0, t.commits - t.bugs), (t) => t.commits),
  signal('toolFailures', (t) => Math.max(0, t.toolCalls - t.toolFailures), (t) => t.toolCalls),
  signal('selfGrade', (t) => gradeGood(t.selfGradeSum, t.selfGraded), (t) => t.selfGraded),
];

/** A signal's estimate for one setup: the posterior mean and variance of its share. */
export interface SignalEstimate {
  name: SignalName;
  weight: number;
  /** The role's pooled share (the prior mean). */
  prior: number;
  mean: number;
  variance: number;
  /** The part of `variance` that comes from estimating how hard each kind of task is (0 without task kinds). */
  kindVariance?: number;
}

/**
 * A Beta posterior with an empirical-Bayes prior: the role's pooled share p0 counts as k trials, so
 *
 *   mean = (good + k·p0) / (trials + k),   variance = mean·(1 − mean) / (trials + k + 1).
 *
 * With no evidence the mean is p0; at trials = k it is halfway; with trials ≫ k it is the setup's own
 * share. For grades (not 0/1 outcomes) the Bernoulli variance is an upper bound, so their intervals
 * err on the wide side. Weighted (fractional) trials are used as they are.
 */
export function posterior(good: number, trials: number, prior: number, credibility: number): { mean: number; variance: number } {
  const mean = (good + credibility * prior) / (trials + credibility);
  return { mean, variance: (mean * (1 - mean)) / (trials + credibility + 1) };
}

/** The role's pooled share of a signal, or null when nobody in the role has evidence for it. */
export function pooledShare(signal: Signal, pool: Tally): number | null {
  const trials = signal.trials(pool);
  return trials > 0 ? signal.good(pool) / trials : null;
}

/**
 * What to add to each signal's share so work of one mix of tasks reads as work of the reference mix
 * (recommend-kinds.ts): for the setup's own work and for the role's pool (its prior).
 */
export interface MixShifts {
  /** Per signal: the amount, and the variance of the setup's share so read (replacing the plain posterior's). */
  setup: Partial<Record<SignalName, { amount: number; variance?: number }>>;
  pool: Partial<Record<SignalName, { amount: number }>>;
}
/** A shifted prior stays a share strictly inside 0..1. */
const MIN_SHARE = 0.001;
const MAX_SHARE = 0.999;

/** The prior of a setup alone in its role, in trials: a uniform Beta(1, 1), knowing nothing of what is usual. */
export const ALONE_PRIOR_TRIALS = 2;
const ALONE_PRIOR = 0.5;
/** Signals whose bad outcome is an event someone records (a revert, a bug report, an undo): none recorded is no evidence alone. */
const NEVER_SEEN_IS_NOTHING: ReadonlySet<SignalName> = new Set<SignalName>(['acceptedCommits', 'bugs', 'undo']);

/**
 * Every signal's posterior for a setup's tally against its role's pool (both with self-grades already
 * corrected). A signal nobody in the role varies on (no revert ever recorded, no turn ever undone)
 * tells the setups nothing apart; kept in, it would only squeeze every score toward the middle.
 *
 * A setup `alone` in its role is its role's pool: that prior would count its own work twice (one
 * commit graded 5 read as certain) and its grades, all alike, would read as "nobody varies" (its one
 * grade dropped). It is judged on its own work against knowing nothing (ALONE_PRIOR_TRIALS), on the
 * signals it has evidence for, as it is, not as on the role's mix of tasks (its mix is the role's).
 */
export function signalEstimates(setup: Tally, rolePool: Tally, shifts: MixShifts, alone: boolean): SignalEstimate[] {
  const estimates: SignalEstimate[] = [];
  for (const signal of SIGNALS) {
    if (alone) {
      const trials = signal.trials(setup);
      const good = Math.min(trials, Math.max(0, signal.good(setup)));
      // No revert, no bug report, no undo ever recorded against its work may only mean none was looked
      // for (git never read): alone, that says nothing. Everything else it has is evidence, all alike too.
      if (trials <= 0 || (NEVER_SEEN_IS_NOTHING.has(signal.name) && good === trials)) continue;
      const { mean, variance } = posterior(good, trials, ALONE_PRIOR, ALONE_PRIOR_TRIALS);
      estimates.push({ name: signal.name, weight: signal.weight, prior: ALONE_PRIOR, mean, variance, kindVariance: 0 });
      continue;
    }
    const pooled = pooledShare(signal, rolePool);
    if (pooled === null || pooled === 0 || pooled === 1) continue;
    const prior = Math.min(MAX_SHARE, Math.max(MIN_SHARE, pooled + (shifts.pool[signal.name]?.amount ?? 0)));
    const trials = signal.trials(setup);
    const shift = shifts.setup[signal.name];
    const good = Math.min(trials, Math.max(0, signal.good(setup) + (shift?.amount ?? 0) * trials));
    const { mean, variance } = posterior(good, trials, prior, signal.credibility);
    const total = shift?.variance ?? variance;
    estimates.push({ name: signal.name, weight: signal.weight, prior, mean, variance: total, kindVariance: Math.max(0, total - variance) });
  }
  return estimates;
}

/**
 * The variance of a share nothing is known of (uniform on 0..1): a setup with nothing measurable is
 * scored in the middle with an interval as wide as that ignorance, never a certain 50.
 */
export const NOTHING_KNOWN_VARIANCE = 1 / 12;

/** The weighted mean of the signals and its variance; with no signal at all (nothing measurable) the middle, 0.5, knowing nothing. */
export function combineEstimates(estimates: readonly SignalEstimate[]): { quality: number; variance: number; kindVariance: number } {
  const totalWeight = estimates.reduce((sum, estimate) => sum + estimate.weight, 0);
  if (totalWeight <= 0) return { quality: 0.5, variance: NOTHING_KNOWN_VARIANCE, kindVariance: 0 };
  return {
    quality: estimates.reduce((sum, e) => sum + e.weight * e.mean, 0) / totalWeight,
    variance: estimates.reduce((sum, e) => sum + (e.weight / totalWeight) ** 2 * e.variance, 0),
    kindVariance: estimates.reduce((sum, e) => sum + (e.weight / totalWeight) ** 2 * (e.kindVariance ?? 0), 0),
  };
}

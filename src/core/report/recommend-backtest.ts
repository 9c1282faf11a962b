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
import { acceptedCommits, emptyTally, addRecord } from './recommend-signals.js';
import { UNKNOWN } from '../types.js';
import type { ProjectProfile, UsageRecord } from '../types.js';

/** How many points in time the history is replayed at (each a full recommendation per project). */
export const BACKTEST_POINTS = 12;
/** The first share of the history only teaches: nothing before it is judged. */
export const BACKTEST_WARMUP = 0.25;
/** Below this many judged sessions in either group the backtest says it cannot tell yet. */
export const BACKTEST_MIN_SESSIONS = 10;

export interface BacktestGroup {
  sessions: number;
  /** Mean outcome per session, 0..1 (user grade when graded, else share of commits that held, else turns not undone). */
  outcome: number | null;
}

export interface Backtest {
  /** Sessions judged (after the warm-up, in a role recommend had an answer for). */
  judged: number;
  points: number;
  followed: BacktestGroup;
  other: BacktestGroup;
  /** Followed minus other, in outcome points (0..100), with its 80% interval; null when a group is too small. */
  difference: { mean: number; interval: [number, number] } | null;
  /** One sentence for the user. */
  verdict: string;
}

/** A session's outcome 0..1, or null when it has none (nothing graded, committed or turned). */
export function sessionOutcome(record: UsageRecord): number | null {
  const tally = emptyTally();
  addRecord(tally, record, 1);
  if (tally.userGraded > 0) return (tally.userGradeSum + tally.userGraded) / (6 * tally.userGraded);
  if (tally.commits > 0) return acceptedCommits(tally) / tally.commits;
  if (tally.turns > 0) return (tally.turns - tally.undoneTurns) / tally.turns;
  return null;
}

function group(values: readonly number[]): BacktestGroup & { variance: number } {
  if (values.length === 0) return { sessions: 0, outcome: null, variance: 0 };
  const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
  const variance = values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / Math.max(1, values.length - 1);
  return { sessions: values.length, outcome: Math.round(mean * 1000) / 1000, variance };
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
  const followed: number[] = [];
  const other: number[] = [];
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
  const a = group(followed);
  const b = group(other);
  const enough = a.sessions >= BACKTEST_MIN_SESSIONS && b.sessions >= BACKTEST_MIN_SESSIONS;
  let difference: Backtest['difference'] = null;
  if (enough && a.outcome !== null && b.outcome !== null) {
    const mean = 100 * (a.outcome - b.outcome);
    const half = 100 * Z_80 * Math.sqrt(a.variance / a.sessions + b.variance / b.sessions);
    difference = { mean: round1(mean), interval: [round1(mean - half), round1(mean + half)] };
  }
  return {
    judged: followed.length + other.length,
    points,
    followed: { sessions: a.sessions, outcome: a.outcome },
    other: { sessions: b.sessions, outcome: b.outcome },
    difference,
    verdict: verdictOf(difference, a.sessions, b.sessions),
  };
}

function verdictOf(difference: Backtest['difference'], followed: number, other: number): string {
  if (difference === null) {
    return `Too little history to judge yet: ${followed} session${followed === 1 ? '' : 's'} used what recommend would have said and ${other} did not; ` +
      `the backtest needs at least ${BACKTEST_MIN_SESSIONS} of each.`;
  }
  const [low, high] = difference.interval;
  if (low > 0) return `Following recommend went better on your own history: ${difference.mean} outcome points ahead (80%: ${low} to ${high}).`;
  if (high < 0) return `Following recommend went worse on your own history: ${Math.abs(difference.mean)} outcome points behind (80%: ${low} to ${high}); trust it less here.`;
  return `No clear difference on your own history between following recommend and not (${difference.mean} points, 80%: ${low} to ${high}).`;
}

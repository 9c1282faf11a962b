/**
 * Self-grade calibration: how much a setup rates its own commits above the user's grades of them
 * (its "overclaim"), and its self-grades corrected by that amount before they count. A setup that
 * grades itself 5 on every commit while the user gives 3 has an overclaim of 2, so its corrected
 * self-grades read 3: grading itself up gains it nothing.
 */
import { Z_80 } from './recommend-math.js';
import type { Tally } from './recommend-signals.js';
import type { Overclaim } from '../../contract/answers.js';
export type { Overclaim } from '../../contract/answers.js';

/** Pairs of prior the role's overclaim is worth in a setup's correction when the setups' agreement cannot be measured. */
export const OVERCLAIM_CREDIBILITY = 2;
/** Below this many commits graded by both, a setup's self-grades cannot be corrected and do not count. */
export const MIN_OVERCLAIM_PAIRS = 3;
/** The grade scale, for clamping a corrected self-grade. */
const GRADE_LOW = -1;
const GRADE_HIGH = 5;
/** Spread of (self − user) assumed when a setup has too few pairs to measure its own (grade points). */
const DEFAULT_OVERCLAIM_SD = 1.5;
/** The least spread of (self − user) an interval assumes: grades are whole points, so a few equal pairs do not make it certain. */
const MIN_OVERCLAIM_VARIANCE = 0.25;

const round1 = (value: number) => Math.round(value * 10) / 10;

/** At most this many pairs of prior: setups that overclaim exactly alike share the role's correction outright. */
export const MAX_AGREEMENT_CREDIBILITY = 1000;

/**
 * How many pairs of prior the role's overclaim is worth in each setup's correction, from how well the
 * setups' self-grades agree with the user's grades on the same commits: σ²/τ², the spread of
 * (self − user) within a setup over the spread of the setups' true overclaims beyond what σ² explains
 * (a method-of-moments estimate over setups with MIN_OVERCLAIM_PAIRS pairs or more). Corrected by its
 * own pairs alone, a setup's self-grades only repeat its user grades (the correction is made of them);
 * corrected by an overclaim the setups share, they are evidence of their own. Setups that overclaim
 * alike (τ² ≈ 0) so share one correction; setups that overclaim unevenly (one grades itself 5 on
 * everything) are each corrected by their own, as before. With fewer than two such setups:
 * OVERCLAIM_CREDIBILITY.
 */
export function agreementCredibility(setups: readonly Tally[]): number {
  const measured = setups.filter((setup) => setup.pairedGraded >= MIN_OVERCLAIM_PAIRS);
  let pairs = 0;
  let pairSquares = 0;
  let within = 0;
  let sum = 0;
  for (const setup of measured) {
    const n = setup.pairedGraded;
    pairs += n;
    pairSquares += n * n;
    within += Math.max(0, setup.overclaimSquares - (setup.overclaimSum * setup.overclaimSum) / n);
    sum += setup.overclaimSum;
  }
  const count = measured.length;
  if (count < 2 || pairs <= count) return OVERCLAIM_CREDIBILITY;
  const sigma2 = within / (pairs - count);
  const mean = sum / pairs;
  const between = measured.reduce((total, setup) => total + setup.pairedGraded * (setup.overclaimSum / setup.pairedGraded - mean) ** 2, 0);
  const tau2 = Math.max(0, (between - (count - 1) * sigma2) / (pairs - pairSquares / pairs));
  return tau2 > 0 ? Math.min(MAX_AGREEMENT_CREDIBILITY, sigma2 / tau2) : MAX_AGREEMENT_CREDIBILITY;
}

/**
 * A setup's overclaim shrunk toward the role's with `credibility` pairs (agreementCredibility); null
 * when it cannot be measured. Not floored at its own measured overclaim: a setup far from the role's
 * makes τ² large and the credibility small, and one that grades itself the same on every commit
 * counts nothing from its self-grades anyway (selfGradeInformation).
 */
export function agreedOverclaim(setup: Tally, pool: Tally, credibility: number): number | null {
  const prior = roleOverclaim(pool);
  if (prior === null || setup.pairedGraded < MIN_OVERCLAIM_PAIRS) return null;
  return (setup.overclaimSum + credibility * prior) / (setup.pairedGraded + credibility);
}

/**
 * How far a setup's corrected self-grades are trusted as the user's grades, 0..1: the part of its
 * correction that comes from the role's overclaim rather than its own pairs, credibility / (pairs +
 * credibility). That part is evidence independent of the setup's own user grades.
 */
export function selfGradeTrust(setup: Tally, credibility: number): number {
  return credibility / (setup.pairedGraded + credibility);
}

/**
 * The corrected tally with `trust` of its self-grades counted as user grades (the user-grade signal,
 * which weighs most) and the rest left as self-grades (which weigh least).
 */
export function trustSelfGrades(corrected: Tally, trust: number): Tally {
  const kept = 1 - trust;
  return {
    ...corrected,
    userGraded: corrected.userGraded + trust * corrected.selfGraded,
    userGradeSum: corrected.userGradeSum + trust * corrected.selfGradeSum,
    selfGraded: kept * corrected.selfGraded,
    selfGradeSum: kept * corrected.selfGradeSum,
  };
}

/** The role's own overclaim (its pooled mean), or null when no commit in the role was graded by both. */
export function roleOverclaim(pool: Tally): number | null {
  return pool.pairedGraded > 0 ? pool.overclaimSum / pool.pairedGraded : null;
}

/**
 * What a setup's self-grades measured against the user's grades on the commits in `tally` both graded:
 * its mean self-grade minus the user's, with an 80% interval, as a person can check it against the
 * commits (shown; never the pooled figure the score takes off). Null when no commit there was graded by both.
 */
export function measuredOverclaim(tally: Tally): Pick<Overclaim, 'mean' | 'interval' | 'commits'> | null {
  const pairs = tally.pairedGraded;
  if (pairs <= 0) return null;
  const mean = tally.overclaimSum / pairs;
  const variance = pairs > 1 ? Math.max(0, tally.overclaimSquares / pairs - mean * mean) : DEFAULT_OVERCLAIM_SD ** 2;
  const half = Z_80 * Math.sqrt(Math.max(variance, MIN_OVERCLAIM_VARIANCE) / pairs);
  return { mean: round1(mean), interval: [round1(mean - half), round1(mean + half)], commits: Math.round(pairs) };
}

/**
 * A setup's overclaim as shown (measuredOverclaim over its plain counts) with `correction`, what the
 * score takes off its self-grades (agreedOverclaim), null when they count for nothing. Null when no
 * commit of the setup was graded by both.
 */
export function overclaimOf(counts: Tally, correction: number | null = null): Overclaim | null {
  const measured = measuredOverclaim(counts);
  return measured === null ? null : { ...measured, correction: correction === null ? null : round1(correction) };
}

/**
 * How much a setup's self-grades can say, 0..1: the spread of its records' mean self-grades against
 * the role's. A setup that grades itself the same on every commit (always 5) says nothing about
 * which work was better; corrected by its overclaim, its self-grades would only repeat the user's
 * grades of it as if they were more commits, and so gain it from the inflation. Null spread in the
 * role: nobody's self-grades tell work apart.
 */
export function selfGradeInformation(setup: Tally, pool: Tally): number {
  const spread = (tally: Tally) => (tally.selfGraded > 0 ? Math.max(0, tally.selfMeanSquares / tally.selfGraded - (tally.selfGradeSum / tally.selfGraded) ** 2) : 0);
  const role = spread(pool);
  return role > 0 ? Math.min(1, spread(setup) / role) : 0;
}

/**
 * The tally with its self-grades corrected by `overclaim` (grade points per commit), the mean kept on
 * the grade scale, and counted only on commits the user did not grade: where the user graded, the
 * user's grade already says it, and counting the self-grade again would make the evidence look
 * larger than it is. They count `information` (selfGradeInformation) as much: nothing from a setup whose
 * self-grades never vary. With no overclaim known, the self-grades are dropped.
 */
export function correctSelfGrades(tally: Tally, overclaim: number | null, information = 1): Tally {
  const count = tally.selfGraded;
  if (overclaim === null || count <= 0) return { ...tally, selfGraded: 0, selfGradeSum: 0 };
  const correctedMean = Math.min(GRADE_HIGH, Math.max(GRADE_LOW, tally.selfGradeSum / count - overclaim));
  const unpaired = information * Math.max(0, count - tally.pairedGraded);
  return { ...tally, selfGraded: unpaired, selfGradeSum: correctedMean * unpaired };
}

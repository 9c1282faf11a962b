/**
 * The one-line why of a setup's score: the signals that moved it most away from its role's average,
 * quoted as plain counts a person can check ("user 4.2/5 over 23 commits; 1 of 40 commits reverted").
 */
import { plural } from './numbers.js';
import { measuredOverclaim, type Overclaim } from './recommend-overclaim.js';
import type { SignalEstimate, SignalName, Tally } from './recommend-signals.js';

/** "only 3 commits", "only 1 session", "no commits": a count too small to go by. */
export function fewOf(count: number, unit: string): string {
  return count === 0 ? `no ${unit}s` : `only ${count} ${unit}${count === 1 ? '' : 's'}`;
}

/** How many signals the why names. */
export const WHY_SIGNALS = 3;

const meanGrade = (sum: number, count: number) => (sum / count).toFixed(1);
const percent = (part: number, whole: number, digits = 0) => `${((100 * part) / whole).toFixed(digits)}%`;

/** A signal in words, from the setup's plain counts. */
export function describeSignal(name: SignalName, tally: Tally): string {
  switch (name) {
    case 'userGrade':
      return `user ${meanGrade(tally.userGradeSum, tally.userGraded)}/5 over ${plural(tally.userGraded, 'commit')}`;
    case 'reportedGrade':
      return `agent-relayed user grade ${meanGrade(tally.reportedGradeSum, tally.reportedGraded)}/5 over ${plural(tally.reportedGraded, 'commit')}`;
    case 'selfGrade':
      return `self-grade ${meanGrade(tally.selfGradeSum, tally.selfGraded)}/5 over ${plural(tally.selfGraded, 'commit')}`;
    case 'acceptedCommits': {
      const fixes = tally.followUpFixes > 0 ? `, ${plural(tally.followUpFixes, 'follow-up fix').replace(/fixs$/, 'fixes')}` : '';
      return `${Math.round(tally.reverted)} of ${plural(tally.commits, 'commit')} reverted${fixes}`;
    }
    case 'undo':
      return `${Math.round(tally.undoneTurns)} of ${plural(tally.turns, 'turn')} undone`;
    case 'tests':
      return `tests green ${percent(tally.testPasses, tally.testRuns)} of ${plural(tally.testRuns, 'run')}`;
    case 'bugs':
      return `${plural(tally.bugs, 'bug')} in ${plural(tally.commits, 'commit')}`;
    case 'toolFailures':
      return `${percent(tally.toolFailures, tally.toolCalls, 1)} tool failures`;
  }
}

/**
 * "grades itself 1.8 above the user (80%: 1.4 to 2.2, 12 commits both graded); its self-grades count
 * after taking 1.2 off each, pooled with the role's setups". The first figure is the setup's own, as
 * measured on its commits; the score takes off the second (`correction`), which is pooled with the
 * role's setups as far as they overclaim alike (`pooled`: most of it comes from them), so the two may
 * differ and both are said. `graded`: the commits both graded, when not simply `overclaim.commits`.
 */
export function describeOverclaim(overclaim: Overclaim, pooled = false, graded = plural(overclaim.commits, 'commit')): string {
  const [low, high] = overclaim.interval;
  const size = Math.abs(overclaim.mean).toFixed(1);
  const direction = overclaim.mean > 0 ? `${size} above` : overclaim.mean < 0 ? `${size} below` : 'the same as';
  const shown = `grades itself ${direction} the user (80%: ${low.toFixed(1)} to ${high.toFixed(1)}, ${graded} both graded)`;
  if (overclaim.correction === null) return `${shown}; its self-grades do not count`;
  const source = pooled ? "pooled with the role's setups" : 'mostly from its own commits';
  return `${shown}; its self-grades count ${adjustment(overclaim.correction)}, ${source}`;
}

/** What the score does to each self-grade: takes the overclaim off (adds an underclaim back). */
function adjustment(correction: number): string {
  const size = Math.abs(correction).toFixed(1);
  if (size === '0.0') return 'as given';
  return correction > 0 ? `after taking ${size} off each` : `after adding ${size} to each`;
}

/** Trials of a signal in a tally, to know whether the setup has any of its own. */
export type TrialsOf = (name: SignalName, tally: Tally) => number;

/** What the why says before its counts when they are those on projects like the target. */
export const LIKE_SCOPE = 'on projects like this one: ';

/**
 * The signals that decided the score, most influential first: each one's weight × how far the
 * setup's estimate sits from the role's average, among signals the setup has its own evidence for,
 * in plain counts a person can check. Where some of the setup's work was on projects unlike the
 * target (counting less in the score), the counts quoted are those on projects like it (`like`),
 * said so, as long as they hold any of those signals: the counts over every project could otherwise
 * rank the runner-up above the pick.
 */
export function explainScore(
  estimates: readonly SignalEstimate[],
  counts: Tally,
  trialsOf: TrialsOf,
  prefix: string,
  overclaim: Overclaim | null = null,
  pooled = false,
  like: Tally | null = null,
): string {
  const ranked = estimates
    .map((estimate, order) => ({ estimate, order, influence: Math.abs(estimate.weight * (estimate.mean - estimate.prior)) }))
    .sort((a, b) => b.influence - a.influence || a.order - b.order);
  const decisive = (tally: Tally) => ranked.filter(({ estimate }) => trialsOf(estimate.name, tally) > 0).slice(0, WHY_SIGNALS);
  const local = like !== null && like.sessions < counts.sessions ? decisive(like) : [];
  const scoped = like !== null && local.length > 0;
  const quoted = scoped ? like : counts;
  const facts = (scoped ? local : decisive(counts)).map(({ estimate }) => describeSignal(estimate.name, quoted));
  if (facts.length === 0) facts.push('no graded or measured work of its own yet, so scored at its role\'s average');
  if (overclaim) {
    // Measured where the other counts are quoted; on the other projects when none there was graded by both.
    const here = scoped ? measuredOverclaim(quoted) : null;
    const graded = here === null && scoped ? `${plural(overclaim.commits, 'commit')} on other projects` : undefined;
    facts.push(describeOverclaim(here === null ? overclaim : { ...here, correction: overclaim.correction }, pooled, graded));
  }
  return `${prefix}${scoped ? LIKE_SCOPE : ''}${facts.join('; ')}`;
}

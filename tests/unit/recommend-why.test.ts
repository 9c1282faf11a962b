/**
 * The one-line why of a setup, function by function: which signals it names and in what order, which
 * counts it quotes (every project's, or those on projects like the target), and how it words the
 * overclaim and what the score does with the self-grades. Every expected line is written out here.
 */
import { describe, expect, it } from '@jest/globals';
import { describeOverclaim, explainScore, LIKE_SCOPE } from '../../src/core/report/recommend-why.js';
import { emptyTally } from '../../src/core/report/recommend-signals.js';
import type { SignalEstimate, SignalName, Tally } from '../../src/core/report/recommend-signals.js';
import type { Overclaim } from '../../src/contract/answers.js';

/** Trials as recommend counts them, for the signals these tests use. */
function trialsOf(name: SignalName, tally: Tally): number {
  if (name === 'userGrade') return tally.userGraded;
  if (name === 'bugs') return tally.commits;
  if (name === 'toolFailures') return tally.toolCalls;
  return 0;
}

function estimate(name: SignalName, weight: number, mean: number, prior: number): SignalEstimate {
  return { name, weight, mean, prior, variance: 0 };
}

function tally(values: Partial<Tally>): Tally {
  return { ...emptyTally(), ...values };
}

// 20 sessions: 40 commits, 20 graded by the user at 2.0 on average, 2 bugs, 10 of 100 tool calls failed.
const ALL = tally({ sessions: 20, commits: 40, userGraded: 20, userGradeSum: 40, bugs: 2, toolCalls: 100, toolFailures: 10, pairedGraded: 12 });
// Of those, 8 sessions on projects like the target: 16 commits, 8 graded at 4.5, no bug, 2 of 40 calls failed;
// 5 commits graded by both, 1 point over on average (squares 7: a spread of 7/5 − 1 = 0.4).
const LIKE = tally({ sessions: 8, commits: 16, userGraded: 8, userGradeSum: 36, bugs: 0, toolCalls: 40, toolFailures: 2, pairedGraded: 5, overclaimSum: 5, overclaimSquares: 7 });

// Influence = weight × |mean − prior|: user 3 × 0.2 = 0.6, bugs 1 × 0.1 = 0.1, tool failures 1 × 0.3 = 0.3.
const ESTIMATES = [estimate('userGrade', 3, 0.7, 0.5), estimate('bugs', 1, 0.9, 0.8), estimate('toolFailures', 1, 0.6, 0.3)];

function overclaim(mean: number, correction: number | null, commits = 12): Overclaim {
  return { mean, interval: [mean - 0.3, mean + 0.3], commits, correction };
}

describe('explainScore', () => {
  it('names the signals that moved the score most, most first, in plain counts over every project', () => {
    expect(explainScore(ESTIMATES, ALL, trialsOf, '')).toBe('user 2.0/5 over 20 commits; 10.0% tool failures; 2 bugs in 40 commits');
  });

  it('keeps the listed order between signals of equal influence', () => {
    const equal = [estimate('bugs', 1, 0.9, 0.7), estimate('toolFailures', 1, 0.5, 0.3), estimate('userGrade', 1, 0.3, 0.5)];
    expect(explainScore(equal, ALL, trialsOf, '')).toBe('2 bugs in 40 commits; 10.0% tool failures; user 2.0/5 over 20 commits');
  });

  it('leaves out a signal the setup has no evidence of its own for', () => {
    expect(explainScore(ESTIMATES, tally({ sessions: 3, commits: 6, toolCalls: 30, toolFailures: 3 }), trialsOf, '')).toBe('10.0% tool failures; 0 bugs in 6 commits');
  });

  it('says a setup with no evidence of its own is scored at the role average, after the prefix', () => {
    expect(explainScore(ESTIMATES, tally({ sessions: 1 }), trialsOf, 'mostly on unlike projects; ')).toBe(
      "mostly on unlike projects; no graded or measured work of its own yet, so scored at its role's average",
    );
  });

  it('quotes the counts on projects like this one when some of its work was elsewhere', () => {
    expect(explainScore(ESTIMATES, ALL, trialsOf, '', null, false, LIKE)).toBe(`${LIKE_SCOPE}user 4.5/5 over 8 commits; 5.0% tool failures; 0 bugs in 16 commits`);
  });

  it('quotes every project when all of its work was on like projects, or none of it', () => {
    expect(explainScore(ESTIMATES, ALL, trialsOf, '', null, false, ALL)).toBe('user 2.0/5 over 20 commits; 10.0% tool failures; 2 bugs in 40 commits');
    expect(explainScore(ESTIMATES, ALL, trialsOf, '', null, false, emptyTally())).toBe('user 2.0/5 over 20 commits; 10.0% tool failures; 2 bugs in 40 commits');
  });

  it('quotes every project when its work on like projects holds none of the signals that decided the score', () => {
    const talkOnly = tally({ sessions: 2 });
    expect(explainScore(ESTIMATES, ALL, trialsOf, '', null, false, talkOnly)).toBe('user 2.0/5 over 20 commits; 10.0% tool failures; 2 bugs in 40 commits');
  });

  it('adds the overclaim as measured where the counts are quoted, with the correction the score uses', () => {
    const over = overclaim(1.5, 1.2);
    // On like projects: 1.0 over 5 pairs, half-width Z_80 × √(0.4 / 5) = 0.36.
    expect(explainScore(ESTIMATES.slice(0, 1), ALL, trialsOf, '', over)).toBe(
      'user 2.0/5 over 20 commits; grades itself 1.5 above the user (80%: 1.2 to 1.8, 12 commits both graded); its self-grades count after taking 1.2 off each, mostly from its own commits',
    );
    expect(explainScore(ESTIMATES.slice(0, 1), ALL, trialsOf, '', over, true, LIKE)).toBe(
      `${LIKE_SCOPE}user 4.5/5 over 8 commits; grades itself 1.0 above the user (80%: 0.6 to 1.4, 5 commits both graded); its self-grades count after taking 1.2 off each, pooled with the role's setups`,
    );
    const noLikePairs = { ...LIKE, pairedGraded: 0 };
    expect(explainScore(ESTIMATES.slice(0, 1), ALL, trialsOf, '', over, false, noLikePairs)).toContain('(80%: 1.2 to 1.8, 12 commits on other projects both graded)');
  });

  it('leaves the overclaim out when no commit was graded by both', () => {
    expect(explainScore(ESTIMATES.slice(0, 1), ALL, trialsOf, '', null, false, LIKE)).toBe(`${LIKE_SCOPE}user 4.5/5 over 8 commits`);
  });
});

describe('describeOverclaim', () => {
  it.each([
    [1.5, 'grades itself 1.5 above the user'],
    [-0.7, 'grades itself 0.7 below the user'],
    [0, 'grades itself the same as the user'],
  ])('words an overclaim of %p as "%s"', (mean, words) => {
    expect(describeOverclaim(overclaim(mean, null))).toBe(`${words} (80%: ${(mean - 0.3).toFixed(1)} to ${(mean + 0.3).toFixed(1)}, 12 commits both graded); its self-grades do not count`);
  });

  it.each([
    [1.24, 'after taking 1.2 off each'],
    [-2.3, 'after adding 2.3 to each'],
    [0.04, 'as given'],
    [-0.04, 'as given'],
  ])('words a correction of %p as "%s"', (correction, words) => {
    expect(describeOverclaim(overclaim(1, correction))).toBe(`grades itself 1.0 above the user (80%: 0.7 to 1.3, 12 commits both graded); its self-grades count ${words}, mostly from its own commits`);
  });

  it('says a correction mostly from the role is pooled, and takes the count of commits as the why quotes it', () => {
    expect(describeOverclaim(overclaim(1, 0.9), true, '4 commits')).toBe(
      "grades itself 1.0 above the user (80%: 0.7 to 1.3, 4 commits both graded); its self-grades count after taking 0.9 off each, pooled with the role's setups",
    );
  });
});

/**
 * Prior-art quality on two evaluation sets: tests/helpers/prior-art-eval-corpus.ts (written before
 * the analyzer) and tests/helpers/prior-art-eval-holdout.ts (written before the analyzer was ever
 * run on it, never tuned on). Paraphrased queries must find what was meant, and the entries' own
 * words must keep finding their entry first. The floors are the figures measured, rounded down.
 */
import { describe, expect, it } from '@jest/globals';
import { describeEvaluation, evaluatePriorArt } from '../helpers/prior-art-eval.js';
import type { Evaluation } from '../helpers/prior-art-eval.js';
import { HOLDOUT_ENTRIES, HOLDOUT_QUERIES } from '../helpers/prior-art-eval-holdout.js';

function report(name: string, evaluation: Evaluation): void {
  const missed = evaluation.outcomes
    .filter((outcome) => outcome.reciprocalRank < 1)
    .map((outcome) => `"${outcome.query.text}" -> [${outcome.ranked.slice(0, 5).join(', ')}]`);
  console.log(`prior-art evaluation, ${name}\n${describeEvaluation(evaluation)}\nnot first: ${missed.join('; ')}`);
}

/** Measured with the analyzer (before it: 0.66 and 0.75 on paraphrased queries, 1 on own words). */
const PARAPHRASED_MRR_FLOOR = 0.95;
const OWN_WORDS_MRR_FLOOR = 1;
const HOLDOUT_PARAPHRASED_MRR_FLOOR = 0.9;
const HOLDOUT_OWN_WORDS_MRR_FLOOR = 1;

describe('prior-art evaluation sets', () => {
  it('finds paraphrased tasks and keeps finding tasks in their own words', () => {
    const evaluation = evaluatePriorArt();
    report('first set', evaluation);
    expect(evaluation.paraphrased.mrr).toBeGreaterThanOrEqual(PARAPHRASED_MRR_FLOOR);
    expect(evaluation.ownWords.mrr).toBeGreaterThanOrEqual(OWN_WORDS_MRR_FLOOR);
  });

  it('does as well on the held-out set', () => {
    const evaluation = evaluatePriorArt(HOLDOUT_ENTRIES, HOLDOUT_QUERIES);
    report('held-out set', evaluation);
    expect(evaluation.paraphrased.mrr).toBeGreaterThanOrEqual(HOLDOUT_PARAPHRASED_MRR_FLOOR);
    expect(evaluation.ownWords.mrr).toBeGreaterThanOrEqual(HOLDOUT_OWN_WORDS_MRR_FLOOR);
  });
});

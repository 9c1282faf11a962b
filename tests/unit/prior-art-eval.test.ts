/**
 * Prior-art quality on the evaluation set in tests/helpers/prior-art-eval-corpus.ts (written before the
 * analyzer): paraphrased queries must find what was meant, and the entries' own words must keep
 * finding their entry first. The floors are the figures measured, rounded down.
 */
import { describe, expect, it } from '@jest/globals';
import { describeEvaluation, evaluatePriorArt } from '../helpers/prior-art-eval.js';

/** Measured before the analyzer (tokenizer of words >= 3 letters, no stemming). */
const PARAPHRASED_MRR_FLOOR = 0.66;
const OWN_WORDS_MRR_FLOOR = 1;

describe('prior-art evaluation set', () => {
  it('finds paraphrased tasks and keeps finding tasks in their own words', () => {
    const evaluation = evaluatePriorArt();
    console.log(`prior-art evaluation\n${describeEvaluation(evaluation)}\nmissed: ${evaluation.outcomes
      .filter((outcome) => outcome.reciprocalRank < 1)
      .map((outcome) => `"${outcome.query.text}" -> [${outcome.ranked.slice(0, 5).join(', ')}]`)
      .join('; ')}`);
    expect(evaluation.paraphrased.mrr).toBeGreaterThanOrEqual(PARAPHRASED_MRR_FLOOR);
    expect(evaluation.ownWords.mrr).toBeGreaterThanOrEqual(OWN_WORDS_MRR_FLOOR);
  });
});

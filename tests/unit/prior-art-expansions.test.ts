/**
 * No dead entry in the query-expansion tables: every abbreviation, long form and synonym is a word the
 * analyzer keeps, so each entry really makes a query find the words it stands for. (The table builder
 * skips an entry that analyzes to nothing: a typo or an edit there would silently switch it off.)
 */
import { describe, expect, it } from '@jest/globals';
import { ABBREVIATIONS, expansionsOf, SYNONYMS } from '../../src/core/search/expansions.js';
import { analyze } from '../../src/core/search/tokenizer.js';

function termsOf(text: string): string[] {
  const terms: string[] = [];
  analyze(text, (term) => terms.push(term));
  return terms;
}

const finds = (term: string, phrase: readonly string[]) => expansionsOf(term).some((to) => to.join(' ') === phrase.join(' '));

describe('the abbreviations', () => {
  it.each(ABBREVIATIONS.map(([short, longs]) => [short, longs] as const))('%s: one term, finding each of %j, and found by each one-word long form', (short, longs) => {
    const shortTerms = termsOf(short);
    expect(shortTerms).toHaveLength(1);
    const [shortTerm] = shortTerms as [string];
    expect(longs.length).toBeGreaterThan(0);
    for (const long of longs) {
      const longTerms = termsOf(long);
      expect(longTerms.length).toBeGreaterThan(0);
      expect(finds(shortTerm, longTerms)).toBe(true);
      if (longTerms.length === 1) expect(finds(longTerms[0] as string, [shortTerm])).toBe(true);
    }
  });
});

describe('the synonyms', () => {
  it.each(SYNONYMS.map((group) => [group.join(', '), group] as const))('%s: each one term, each finding the others', (_name, group) => {
    expect(group.length).toBeGreaterThan(1);
    const terms = group.map((word) => {
      const analyzed = termsOf(word);
      expect(analyzed).toHaveLength(1);
      return analyzed[0] as string;
    });
    for (const from of terms) for (const to of terms) if (to !== from) expect(finds(from, [to])).toBe(true);
  });
});

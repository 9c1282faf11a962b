/**
 * A prior-art query as weighted terms: the query's own words (its keywords, weight 1) through the
 * same analyzer as the entries, plus the abbreviations and synonyms they stand for (weight
 * EXPANSION_WEIGHT), each tied to the keyword it came from so an entry matching a keyword in
 * several ways counts it once.
 */
import { EXPANSION_WEIGHT, expansionsOf } from './expansions.js';
import { isCorrectable } from './fuzzy.js';
import { analyze } from './tokenizer.js';

/** One term to search for, its weight, and the keyword (index into `keywords`) it stands for. */
export interface WeightedTerm {
  term: string;
  weight: number;
  keyword: number;
}

/** What a query searches for. */
export interface AnalyzedQuery {
  /** The distinct terms of the query itself, in order. */
  keywords: string[];
  /** Per keyword: the word as typed (lower-cased) when a typo in it may be corrected. */
  correctable: (string | undefined)[];
  /** Expansion terms, ordered by keyword; never one of the keywords, never twice. */
  expansions: WeightedTerm[];
}

/** Analyzes a query's text; see the module comment. */
export function analyzeQuery(text: string): AnalyzedQuery {
  const keywords: string[] = [];
  const correctable: (string | undefined)[] = [];
  const position = new Map<string, number>();
  analyze(text, (term, word) => {
    if (position.has(term)) return;
    position.set(term, keywords.length);
    keywords.push(term);
    correctable.push(word !== undefined && isCorrectable(word) ? word : undefined);
  });
  const expansions: WeightedTerm[] = [];
  const seen = new Set(keywords);
  keywords.forEach((keyword, index) => {
    for (const phrase of expansionsOf(keyword)) {
      for (const term of phrase) {
        if (seen.has(term)) continue;
        seen.add(term);
        expansions.push({ term, weight: EXPANSION_WEIGHT, keyword: index });
      }
    }
  });
  return { keywords, correctable, expansions };
}

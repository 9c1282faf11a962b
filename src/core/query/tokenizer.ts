/**
 * Turns text into search terms: lower-cased words of at least three characters, common English
 * stop words removed. Documents and queries go through the same rules, so a query word matches
 * exactly the document words it should.
 */

/** Shorter words carry too little meaning to search on ("ui" and "db" are the price). */
export const MIN_TERM_LENGTH = 3;
/** Longer tokens are hashes, base64 or minified code, never a word someone searches for. */
export const MAX_TERM_LENGTH = 64;

/** Words so common in task descriptions and notes that matching them says nothing. */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'about', 'above', 'after', 'again', 'against', 'all', 'also', 'and', 'any', 'are', 'around', 'because',
  'been', 'before', 'being', 'below', 'between', 'both', 'but', 'can', 'cannot', 'could', 'did', 'does',
  'doing', 'done', 'down', 'during', 'each', 'either', 'else', 'etc', 'even', 'ever', 'every', 'few', 'for',
  'from', 'further', 'got', 'had', 'has', 'have', 'having', 'her', 'here', 'hers', 'him',
  'his', 'how', 'however', 'into', 'its', 'itself', 'just', 'let', 'lets', 'like', 'made', 'make', 'makes',
  'many', 'may', 'might', 'more', 'most', 'much', 'must', 'need', 'needs', 'never', 'new', 'nor', 'not',
  'now', 'off', 'once', 'one', 'only', 'other', 'our', 'ours', 'out', 'over', 'own', 'please', 'same',
  'shall', 'she', 'should', 'since', 'some', 'still', 'such', 'than', 'that', 'the', 'their', 'theirs',
  'them', 'then', 'there', 'these', 'they', 'this', 'those', 'though', 'through', 'too', 'under', 'until',
  'upon', 'use', 'used', 'using', 'very', 'via', 'want', 'was', 'way', 'were', 'what', 'when', 'where',
  'whether', 'which', 'while', 'who', 'whom', 'whose', 'why', 'will', 'with', 'within', 'without', 'would',
  'yet', 'you', 'your', 'yours',
]);

/** Runs of letters and digits: punctuation and whitespace both separate words ("auth.ts," gives "auth"). */
const WORD = /[\p{L}\p{N}]+/gu;

/** Every search term of `text`, in order, repeats kept (a document's term frequencies come from here). */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  for (const match of text.toLowerCase().matchAll(WORD)) {
    const word = match[0];
    if (word.length < MIN_TERM_LENGTH || word.length > MAX_TERM_LENGTH || STOP_WORDS.has(word)) continue;
    terms.push(word);
  }
  return terms;
}

/** The distinct keywords of a query, in the order they first appear. */
export function extractKeywords(text: string): string[] {
  return [...new Set(tokenize(text))];
}

/** How often each term occurs in `terms`. */
export function termFrequencies(terms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

/**
 * Typo tolerance for prior-art queries: a query word that matches nothing is compared with the
 * words the index has seen, and words one edit away (a letter changed, added, dropped, or two
 * neighbours swapped) are searched instead, weighed below exact words.
 */

/** Words shorter than this are not corrected: at four letters one edit turns a word into many others. */
export const FUZZY_MIN_LENGTH = 5;
/** Longer words are not kept in the index's word list (identifiers, not typos). */
export const FUZZY_MAX_LENGTH = 32;
/** The most edits between a typed word and a word of the index. */
export const FUZZY_MAX_EDITS = 1;
/** The weight of a corrected word against 1 for a word found as typed: a correction is a guess. */
export const FUZZY_WEIGHT = 0.5;

const FUZZY_WORD = /^[a-z]+$/;

/** Whether `word` may be corrected, and kept in the index's word list: lower-case letters, long enough. */
export function isFuzzyWord(word: string): boolean {
  return word.length >= FUZZY_MIN_LENGTH - FUZZY_MAX_EDITS && word.length <= FUZZY_MAX_LENGTH && FUZZY_WORD.test(word);
}

/** Whether a query word is long enough to be corrected. */
export function isCorrectable(word: string): boolean {
  return word.length >= FUZZY_MIN_LENGTH && isFuzzyWord(word);
}

/**
 * Whether `a` and `b` differ by at most one edit: a substitution, an insertion, a deletion, or a
 * swap of two neighbouring letters (the optimal string alignment distance is at most 1).
 */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  const lengthDifference = a.length - b.length;
  if (lengthDifference > 1 || lengthDifference < -1) return false;
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  if (lengthDifference === 1) return a.slice(start + 1) === b.slice(start);
  if (lengthDifference === -1) return a.slice(start) === b.slice(start + 1);
  if (a.slice(start + 1) === b.slice(start + 1)) return true;
  return a[start] === b[start + 1] && a[start + 1] === b[start] && a.slice(start + 2) === b.slice(start + 2);
}

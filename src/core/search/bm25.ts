/**
 * Okapi BM25, the ranking inside the prior-art rules. Hand-written: the formula is a few lines,
 * and the index it needs (document frequency, term frequency, document length) lives in our own
 * LMDB term index; a search library would bring its own in-memory index that every process would
 * have to rebuild from all entries.
 */

/** Term-frequency saturation: the third mention of a word adds far less than the first. */
export const BM25_K1 = 1.2;
/** Length normalisation: a word in a short, focused entry counts more than in a long one. */
export const BM25_B = 0.75;

/**
 * Inverse document frequency, the non-negative form (as in Lucene): rare words weigh more, and a
 * word found in every document still weighs a little instead of going negative.
 */
export function inverseDocumentFrequency(documents: number, documentFrequency: number): number {
  const n = Math.max(documents, documentFrequency);
  return Math.log(1 + (n - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/** The weight of one term in one document, before multiplying by the term's idf. */
export function saturatedTermFrequency(termFrequency: number, documentLength: number, averageLength: number): number {
  const lengthRatio = averageLength > 0 ? documentLength / averageLength : 1;
  return (termFrequency * (BM25_K1 + 1)) / (termFrequency + BM25_K1 * (1 - BM25_B + BM25_B * lengthRatio));
}

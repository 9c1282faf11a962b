/**
 * "Did you mean": the closest known word to a mistyped command or option, by edit distance, so
 * `--jsn` points at `--json` and `reprot` at `report`. Pure.
 */

/** The most edits a word may be away from a known one and still be suggested. */
export const MAX_SUGGESTION_DISTANCE = 2;

/** Levenshtein distance between two short words. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The known word closest to `word` within MAX_SUGGESTION_DISTANCE (or a word it starts), else undefined. */
export function closest(word: string, known: readonly string[]): string | undefined {
  let best: { word: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = candidate.startsWith(word) && word.length >= 3 ? 1 : editDistance(word, candidate);
    if (distance <= MAX_SUGGESTION_DISTANCE && (!best || distance < best.distance)) best = { word: candidate, distance };
  }
  return best?.word;
}

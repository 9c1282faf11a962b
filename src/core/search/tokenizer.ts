/**
 * The text analyzer of prior-art search: turns text into search terms. Entries (when indexed) and
 * queries go through the same rules, so a query word meets every form of it an entry used.
 *
 * The rules, in order:
 * 1. Unicode NFKC, so full-width letters, ligatures and compatibility forms match their plain
 *    spelling; apostrophes inside words are dropped ("user's" is "users", "don't" is "dont").
 * 2. A token is a run of letters and digits, possibly joined by `_`, `-` or `.` into an identifier
 *    (`get_user_by_id`, `use-fetch-orders`, `logging.config`, `auth.ts`).
 * 3. Each token splits into words at those separators, at case changes (`getUserById` is get, user,
 *    by, id; `XMLHttpRequest` is xml, http, request; `OpenAPI` is open, api) and between letters and
 *    digits (`utf8` is utf, 8; a hash like `3ce04e5` stays whole). A token made of several words also gives its whole, lower-cased and
 *    without separators (`getuserbyid`), so every spelling of one identifier meets the others.
 * 4. Words are lower-cased; stop words are dropped; words of one character are dropped, but
 *    two-letter words are kept (ci, ui, db, js, io, pr: the short words developers search by).
 * 5. Words of letters are stemmed with the Porter2 (Snowball English) stemmer, so "caching",
 *    "cached" and "cache" are one term.
 */
import { stem } from 'porter2';

/** One-letter words carry no meaning to search on; two-letter words do (ci, ui, db, js). */
export const MIN_TERM_LENGTH = 2;
/** Longer tokens are hashes, base64 or minified code, never a word someone searches for. */
export const MAX_TERM_LENGTH = 64;
/** Shorter words are left as they are by the stemmer (Porter2 leaves them alone too). */
export const MIN_STEM_LENGTH = 3;

/** Words so common in task descriptions and notes that matching them says nothing. */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  // two letters: the function words; every other two-letter word is kept (ci, ui, db, go, id, io, os)
  'am', 'an', 'as', 'at', 'be', 'by', 'do', 'he', 'if', 'in', 'is', 'it', 'me', 'my', 'no', 'of', 'oh', 'ok',
  'on', 'or', 'so', 'to', 'up', 'us', 'we',
  'about', 'above', 'after', 'again', 'against', 'all', 'also', 'and', 'any', 'are', 'around', 'because',
  'been', 'before', 'being', 'below', 'between', 'both', 'but', 'can', 'cannot', 'cant', 'could', 'did', 'didnt',
  'does', 'doesnt', 'doing', 'done', 'dont', 'down', 'during', 'each', 'either', 'else', 'etc', 'even', 'ever',
  'every', 'few', 'for', 'from', 'further', 'got', 'had', 'has', 'have', 'having', 'her', 'here', 'hers', 'him',
  'his', 'how', 'however', 'into', 'isnt', 'its', 'itself', 'just', 'let', 'lets', 'like', 'made', 'make', 'makes',
  'many', 'may', 'might', 'more', 'most', 'much', 'must', 'need', 'needs', 'never', 'new', 'nor', 'not',
  'now', 'off', 'once', 'one', 'only', 'other', 'our', 'ours', 'out', 'over', 'own', 'please', 'same',
  'shall', 'she', 'should', 'since', 'some', 'still', 'such', 'than', 'that', 'the', 'their', 'theirs',
  'them', 'then', 'there', 'these', 'they', 'this', 'those', 'though', 'through', 'too', 'under', 'until',
  'upon', 'use', 'used', 'using', 'very', 'via', 'want', 'was', 'way', 'were', 'what', 'when', 'where',
  'whether', 'which', 'while', 'who', 'whom', 'whose', 'why', 'will', 'with', 'within', 'without', 'wont', 'would',
  'yet', 'you', 'your', 'yours',
]);

/** Letters, combining marks and digits, joined into one identifier by `_`, `-` and `.`. */
const TOKEN = /[\p{L}\p{M}\p{N}]+(?:[._-][\p{L}\p{M}\p{N}]+)*/gu;
/** Apostrophes inside a word ("user's", "don't"), removed so the word stays one. */
const INNER_APOSTROPHE = /(?<=[\p{L}\p{N}])['\u2019](?=[\p{L}\p{N}])/gu;
/**
 * The words of one separator-free segment: an acronym before a capitalised word (XML of
 * XMLHttpRequest), a capitalised or lower-case word, an acronym, a number, or letters without case.
 */
const WORD = /\p{Lu}+(?=\p{Lu}[\p{Ll}\p{M}])|\p{Lu}?[\p{Ll}\p{M}]+|\p{Lu}+|\p{N}+|[\p{L}\p{M}]+/gu;
const SEPARATOR = /[._-]/;
const SEPARATORS = /[._-]/g;
const LETTER = /\p{L}/u;
const DIGIT = /\p{N}/u;
/**
 * A segment of letters and digits that splits into more words than this is a hash, an id or code
 * (`3ce04e5`, `a1b2c3`), kept whole: split, it would put runs of junk two-letter terms in the index.
 */
export const MAX_MIXED_WORDS = 3;
const STEMMABLE = /^[a-z]+$/;
/** A lower-case or capitalised word of ASCII letters, the common case. */
const PLAIN_WORD = /^[A-Z]?[a-z]+$/;
/** A number of ASCII digits: one word, as splitIdentifier would give it, without its cost. */
const PLAIN_NUMBER = /^[0-9]+$/;

/** Stems already computed: word frequencies are Zipfian, so most words of a text were stemmed before. */
const stems = new Map<string, string>();
/** Beyond this many cached stems the cache starts over (bounds memory in a long-running process). */
export const STEM_CACHE_LIMIT = 50_000;

function cachedStem(word: string): string {
  let stemmed = stems.get(word);
  if (stemmed === undefined) {
    if (stems.size >= STEM_CACHE_LIMIT) stems.clear();
    stemmed = stem(word);
    stems.set(word, stemmed);
  }
  return stemmed;
}

/** How a word of a token becomes a term (or nothing): stop words, length, the stemmer. */
export function wordTerm(word: string): string | undefined {
  if (word.length < MIN_TERM_LENGTH || word.length > MAX_TERM_LENGTH || STOP_WORDS.has(word)) return undefined;
  return word.length >= MIN_STEM_LENGTH && STEMMABLE.test(word) ? cachedStem(word) : word;
}

/**
 * One token split (see rule 3): its words, and its whole when it has several parts (numbers
 * inside a word count as parts of the whole, not as words: the 18 of i18n means nothing alone).
 */
export function splitIdentifier(token: string): { words: string[]; whole: string | undefined } {
  const words: string[] = [];
  let parts = 0;
  for (const segment of token.split(SEPARATOR)) {
    const pieces: string[] = [];
    WORD.lastIndex = 0;
    for (let match = WORD.exec(segment); match !== null; match = WORD.exec(segment)) pieces.push(match[0].toLowerCase());
    const mixed = DIGIT.test(segment) && LETTER.test(segment);
    if (mixed && pieces.length > MAX_MIXED_WORDS) {
      words.push(segment.toLowerCase());
      parts += 1;
      continue;
    }
    parts += pieces.length;
    words.push(...(mixed ? pieces.filter((piece) => !DIGIT.test(piece)) : pieces));
  }
  const whole = parts > 1 && LETTER.test(token) ? token.toLowerCase().replace(SEPARATORS, '') : undefined;
  return { words, whole };
}

/** Receives each term of a text in order, and the word it came from (undefined for a whole identifier). */
export type TermSink = (term: string, word: string | undefined) => void;

/** Runs the analyzer over `text`, handing every term to `sink` in order, repeats kept. */
export function analyze(text: string, sink: TermSink): void {
  let normalized = text.normalize('NFKC');
  if (normalized.includes("'") || normalized.includes('\u2019')) normalized = normalized.replace(INNER_APOSTROPHE, '');
  // exec in a loop rather than matchAll: half the cost per token (no iterator, no copy of the regex).
  // The position is kept here, not in the shared regex, so a sink may analyze another text.
  for (let at = 0; ; ) {
    TOKEN.lastIndex = at;
    const match = TOKEN.exec(normalized);
    if (match === null) break;
    at = TOKEN.lastIndex;
    const token = match[0];
    if (PLAIN_WORD.test(token)) {
      // Most tokens are plain words: nothing to split (the same result, without the splitting's cost).
      const word = token.toLowerCase();
      const term = wordTerm(word);
      if (term !== undefined) sink(term, word);
      continue;
    }
    if (PLAIN_NUMBER.test(token)) {
      const term = wordTerm(token);
      if (term !== undefined) sink(term, token);
      continue;
    }
    if (token.length > MAX_TERM_LENGTH * 2) continue;
    const { words, whole } = splitIdentifier(token);
    if (whole !== undefined && whole.length <= MAX_TERM_LENGTH) sink(whole, undefined);
    for (const word of words) {
      const term = wordTerm(word);
      if (term !== undefined) sink(term, word);
    }
  }
}

/** Every search term of `text`, in order, repeats kept (a document's term frequencies come from here). */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  analyze(text, (term) => terms.push(term));
  return terms;
}

/** The distinct keywords of a query, in the order they first appear. */
export function extractKeywords(text: string): string[] {
  return [...new Set(tokenize(text))];
}

/**
 * The distinct words of a query for a plain-text prefix search (the git-history fallback): each
 * word cut to the part it shares with its stem, so "retry" (stem "retri") is "retr" and finds
 * "retries", and "caching" is "cach" and finds "cache".
 */
export function prefixKeywords(text: string): string[] {
  const prefixes: string[] = [];
  analyze(text, (term, word) => {
    if (word === undefined) return;
    let shared = 0;
    while (shared < word.length && shared < term.length && word[shared] === term[shared]) shared += 1;
    prefixes.push(word.slice(0, Math.max(shared, Math.min(word.length, MIN_TERM_LENGTH))));
  });
  return [...new Set(prefixes)];
}

/**
 * The pure pieces prior art is ranked with, each against figures worked out by hand: the typo
 * tolerance (one edit), the best-k board, the BM25 formula, the quoting of recorded text, and the
 * analyzer's rules on the examples its doc comment gives.
 */
import { describe, expect, it } from '@jest/globals';
import { BM25_B, BM25_K1, inverseDocumentFrequency, saturatedTermFrequency } from '../../src/core/search/bm25.js';
import { buildExpansionTable, EXPANSION_WEIGHT } from '../../src/core/search/expansions.js';
import { isCorrectable, isFuzzyWord, withinOneEdit } from '../../src/core/search/fuzzy.js';
import { analyzeQuery } from '../../src/core/search/query-terms.js';
import { projectName, quoteNote } from '../../src/core/search/quote.js';
import { TopK } from '../../src/core/search/top-k.js';
import { prefixKeywords, tokenize } from '../../src/core/search/tokenizer.js';

describe('one typo away', () => {
  it.each([
    ['parser', 'parser', true],
    ['parser', 'parsor', true], // a letter changed
    ['parser', 'xarser', true], // the first letter changed
    ['parser', 'parsex', true], // the last letter changed
    ['parser', 'parsers', true], // a letter added at the end
    ['parser', 'sparser', true], // a letter added at the start
    ['parser', 'paarser', true], // a letter added inside
    ['parser', 'parer', true], // a letter dropped
    ['parser', 'arser', true], // the first letter dropped
    ['parser', 'parse', true], // the last letter dropped
    ['parser', 'apsrer', false], // two swaps
    ['parser', 'aprser', true], // the first two letters swapped
    ['parser', 'parsre', true], // the last two letters swapped
    ['parser', 'pasrer', true], // two neighbours swapped inside
    ['parser', 'pxrsxr', false], // two letters changed
    ['parser', 'parserss', false], // two letters added
    ['parser', 'pars', false], // two letters dropped
    ['parser', 'parsrex', false], // a swap and a change
    ['parser', 'prasex', false], // a swap and a change further on
    ['parser', 'sparsr', false], // one added, one dropped
    ['parser', 'pxarsex', false], // a letter added and a letter changed
  ])('%s and %s: %s', (a, b, want) => {
    expect(withinOneEdit(a, b)).toBe(want);
    expect(withinOneEdit(b, a)).toBe(want);
  });

  it.each([
    ['pars', true, false],
    ['parse', true, true],
    ['par', false, false],
    ['a'.repeat(32), true, true],
    ['a'.repeat(33), false, false],
    ['pars3', false, false],
    ['Parser', false, false],
    ['parse-tree', false, false],
  ])('%s: kept in the word list %s, corrected as a query word %s', (word, fuzzy, correctable) => {
    expect(isFuzzyWord(word)).toBe(fuzzy);
    expect(isCorrectable(word)).toBe(correctable);
  });
});

describe('the best-k board', () => {
  const descending = () => new TopK<number>(3, (a, b) => b - a, (x) => x);

  it('keeps the best three, best first, and counts what did not fit', () => {
    const board = descending();
    for (const score of [5, 1, 4, 2, 3]) board.offer(score);
    expect(board.ranked()).toEqual([5, 4, 3]);
    expect(board.overflow).toBe(2);
  });

  it('keeps the earlier of two equal items, in the order offered', () => {
    const board = new TopK<{ score: number; id: string }>(2, (a, b) => b.score - a.score, (item) => item.score);
    for (const [score, id] of [[1, 'a'], [1, 'b'], [1, 'c'], [2, 'd']] as const) board.offer({ score, id });
    expect(board.ranked().map((item) => item.id)).toEqual(['d', 'a']);
    expect(board.overflow).toBe(2);
  });

  it('says an item scoring below the last of a full board cannot get in, and counts it', () => {
    const board = descending();
    expect(board.mightKeep(-100)).toBe(true);
    for (const score of [9, 8, 7]) board.offer(score);
    expect(board.mightKeep(8)).toBe(true);
    expect(board.mightKeep(7)).toBe(true);
    expect(board.overflow).toBe(0);
    expect(board.mightKeep(6)).toBe(false);
    expect(board.overflow).toBe(1);
    expect(board.ranked()).toEqual([9, 8, 7]);
  });

  it('keeps fewer than k when fewer were offered', () => {
    const board = descending();
    board.offer(2);
    board.offer(3);
    expect(board.ranked()).toEqual([3, 2]);
    expect(board.overflow).toBe(0);
  });
});

describe('BM25', () => {
  it('uses the usual constants', () => {
    expect([BM25_K1, BM25_B]).toEqual([1.2, 0.75]);
  });

  it.each([
    // ln(1 + (N − df + 0.5) / (df + 0.5))
    [10, 1, Math.log(1 + 9.5 / 1.5)],
    [10, 5, Math.log(1 + 5.5 / 5.5)],
    [10, 10, Math.log(1 + 0.5 / 10.5)],
    [1000, 1, Math.log(1 + 999.5 / 1.5)],
    // a document frequency above the count (an index written while the count lagged) reads as a word in every document
    [5, 10, Math.log(1 + 0.5 / 10.5)],
  ])('idf with %i documents, %i of them with the word', (documents, frequency, want) => {
    expect(inverseDocumentFrequency(documents, frequency)).toBeCloseTo(want, 12);
  });

  it('weighs a rare word above a common one, and never below zero', () => {
    expect(inverseDocumentFrequency(100, 1)).toBeGreaterThan(inverseDocumentFrequency(100, 50));
    expect(inverseDocumentFrequency(100, 100)).toBeGreaterThan(0);
  });

  it.each([
    // tf·(k1 + 1) / (tf + k1·(1 − b + b·len/avg))
    [1, 10, 10, 2.2 / (1 + 1.2)],
    [2, 10, 10, 4.4 / (2 + 1.2)],
    [3, 10, 10, 6.6 / (3 + 1.2)],
    [1, 20, 10, 2.2 / (1 + 1.2 * (0.25 + 0.75 * 2))],
    [1, 5, 10, 2.2 / (1 + 1.2 * (0.25 + 0.75 * 0.5))],
    [0, 10, 10, 0],
    // no average length (nothing indexed yet): every document counts as of average length
    [2, 7, 0, 4.4 / (2 + 1.2)],
  ])('term frequency %i in a document of %i words (average %i)', (frequency, length, average, want) => {
    expect(saturatedTermFrequency(frequency, length, average)).toBeCloseTo(want, 12);
  });
});

describe('quoting recorded text', () => {
  it.each([
    ['see [the docs](https://x.y/z) now', 'see the docs now'],
    ['![diagram](a.png)', 'diagram'],
    ['<b>bold</b> text', 'bold text'],
    ['<!-- hidden --> after', 'after'],
    ['ftp://files.example/a b', 'ftp[:]//files.example/a b'],
    ['git+ssh://host/repo', 'git+ssh[:]//host/repo'],
    ['a\u0007b\u200bc\u202ed', 'a b c d'],
    ['# Title\n\n* item', 'Title item'],
    ['`code` and ~~gone~~ | cell', 'code and gone cell'],
    ['  spaced   out  ', 'spaced out'],
    ['a < b and c > d', 'a < b and c d'],
    ['Mail me: x:y', 'Mail me: x:y'],
  ])('%j reads %j', (text, want) => {
    expect(quoteNote(text)).toBe(want);
  });

  it('caps a note at the limit, the last character an ellipsis', () => {
    expect(quoteNote('abcdef', 6)).toBe('abcdef');
    expect(quoteNote('abcdefg', 6)).toBe('abcde…');
  });

  it.each([
    ['/home/a/proj', 'proj'],
    ['/home/a/proj/', 'proj'],
    ['/home/a/proj//', 'proj'],
    ['/', '/'],
  ])('names %s by its folder: %s', (projectPath, want) => {
    expect(projectName(projectPath)).toBe(want);
  });
});

describe('the analyzer on its documented examples', () => {
  it.each([
    ['getUserById', ['getuserbyid', 'get', 'user', 'id']],
    ['get_user_by_id', ['getuserbyid', 'get', 'user', 'id']],
    ['XMLHttpRequest', ['xmlhttprequest', 'xml', 'http', 'request']],
    ['OpenAPI', ['openapi', 'open', 'api']],
    ['use-fetch-orders', ['usefetchorders', 'fetch', 'order']],
    ['logging.config', ['loggingconfig', 'log', 'config']],
    ['auth.ts', ['authts', 'auth', 'ts']],
    // letters and digits: the number is part of the whole, not a word; a hash or id stays whole
    ['utf8', ['utf8', 'utf']],
    ['i18n', ['i18n']],
    ['3ce04e5', ['3ce04e5']],
    ['a1b2c3', ['a1b2c3']],
    ['42', ['42']],
    // apostrophes inside a word go; NFKC folds full-width letters and ligatures
    ["user's", ['user']],
    ['don\u2019t', []],
    ['\uff21\uff22\uff23 caching', ['abc', 'cach']],
    ['\ufb01le', ['file']],
    // one letter is dropped, two are kept; a 65-letter run is no word
    ['x go db', ['go', 'db']],
    ['a'.repeat(64), ['a'.repeat(64)]],
    ['a'.repeat(65), []],
    ['\u00dcber gr\u00f6\u00dfe', ['\u00fcber', 'gr\u00f6\u00dfe']],
  ])('%j gives %j', (text, terms) => {
    expect(tokenize(text)).toEqual(terms);
  });

  it('cuts each query word to the part it shares with its stem for the plain-text search', () => {
    expect(prefixKeywords('retry')).toEqual(['retr']);
    expect(prefixKeywords('caching')).toEqual(['cach']);
    expect(prefixKeywords('Retries for the db')).toEqual(['retri', 'db']);
    expect(prefixKeywords('getUserById')).toEqual(['get', 'user', 'id']);
  });
});

describe('a query as weighted terms', () => {
  /** The term the analyzer makes of one word. */
  const term = (word: string) => tokenize(word)[0];
  const expansion = (word: string, keyword: number) => ({ term: term(word), weight: EXPANSION_WEIGHT, keyword });

  it('searches an abbreviation for its long forms and a long form for its abbreviation, at half weight', () => {
    expect(EXPANSION_WEIGHT).toBe(0.5);
    expect(analyzeQuery('db')).toEqual({ keywords: ['db'], correctable: [undefined], expansions: [expansion('database', 0)] });
    expect(analyzeQuery('database')).toEqual({ keywords: [term('database')], correctable: ['database'], expansions: [expansion('db', 0)] });
    expect(analyzeQuery('auth tokens')).toEqual({
      keywords: ['auth', term('tokens')],
      correctable: [undefined, 'tokens'],
      expansions: [expansion('authentication', 0), expansion('authorization', 0)],
    });
  });

  it('never expands to a word the query already has, nor to one term twice', () => {
    expect(analyzeQuery('db database').expansions).toEqual([]);
    expect(analyzeQuery('cfg db config').expansions).toEqual([expansion('configuration', 0), expansion('database', 1)]);
  });

  it('keeps each keyword once, and offers for correction only whole words of five letters or more', () => {
    expect(analyzeQuery('parsr parsr fix')).toEqual({ keywords: ['parsr', 'fix'], correctable: ['parsr', undefined], expansions: [] });
    expect(analyzeQuery('getUserById').correctable).toEqual([undefined, undefined, undefined, undefined]);
  });
});

describe('the expansion table', () => {
  it('maps an abbreviation to its long forms and a one-word long form back, members of a synonym group to each other', () => {
    const table = buildExpansionTable(
      [['db', ['database']], ['pr', ['pull request']], ['ab cd', ['something']], ['cfg', ['the', 'config', 'config']]],
      [['bug', 'defect', 'stack trace'], ['the', 'error']],
    );
    const database = tokenize('database')[0] as string;
    expect([...table]).toEqual([
      ['db', [[database]]],
      [database, [['db']]],
      // a phrase is searched for, but does not expand back
      ['pr', [['pull', 'request']]],
      // an abbreviation of two words has no entry; a long form of stop words only is left out; a long form listed twice counts once
      ['cfg', [['config']]],
      ['config', [['cfg']]],
      ['bug', [['defect'], ['stack', 'trace']]],
      ['defect', [['bug'], ['stack', 'trace']]],
      // a group left with one word finds nothing
    ]);
  });
});

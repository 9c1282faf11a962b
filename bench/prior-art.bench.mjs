/**
 * Prior-art query time over 1,000 / 10,000 / 100,000 entries: QueryService.searchPriorArt (BM25 over
 * the LMDB term index) against a full-scan keyword matcher (read every retrospective, activity and
 * commit, tokenize it, count matched keywords: the naive reading of the spec) over the same
 * database, in the same run.
 *
 * The corpus is synthetic: words drawn from a Zipf–Mandelbrot distribution over a 20,000-word
 * vocabulary (the most frequent content word is in ~1 of 8 entries, like "test" or "fix" in a real
 * history), entries of 6–40 words, 40% retrospectives with mixed grades, 40% activities, 20%
 * commits, 60 projects in 8 scopes. Words are made of letters (syllables), so the stemmer treats
 * them as words; IDENTIFIER_SHARE of them are identifiers of two or three words (camelCase,
 * snake_case, kebab-case, dotted) and SHORT_SHARE two-letter terms, as in real task descriptions.
 * Queries are 2–6 words taken from random entries, so common words are queried as often as they
 * occur; the typo queries change one letter of one word of 5+ letters (not the first), so typo
 * correction runs. Entries are written through Store.applyBatch, so the term index is built
 * exactly as the plugin builds it: inside each flush, each flush followed by one step of the merge
 * of the runs flushes write (Store.maintainIndexes), as the plugin runs it a moment after a flush.
 *
 * Index growth: the index holds one posting per distinct term per entry. The bench counts postings
 * per entry under the current analyzer and under the earlier one (lower-cased words of 3+ letters,
 * no stems, no identifier splitting: `v1Terms` below) over the same texts, in the same run.
 *
 * Size: the file's bytes per entry against the msgpack size of the entries' documents (what the
 * data is, before keys, pages and the index), and the pages the tables use (the file also holds
 * pages the last write freed, reused by later writes). The flush of 1,000 more entries into the
 * 100,000-entry database is compared with the same kind of flush into an empty database, rounds
 * interleaved; so is the merge step that follows each (its own transaction, after the turn's end).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { dist, median, percentile, removeDir, tempDir } from './support.mjs';

/** lmdb's own msgpack encoder (msgpackr, resolved as lmdb resolves it): the documents' msgpack size. */
const { pack } = createRequire(import.meta.resolve('lmdb'))('msgpackr');

const SIZES = [1_000, 10_000, 100_000];
const QUERIES = { 1_000: 300, 10_000: 300, 100_000: 300 };
const QUICK_QUERIES = { 1_000: 60, 10_000: 60, 100_000: 60 };
/** The full scan takes a while at large sizes; fewer samples there. */
const SCAN_QUERIES = { 1_000: 100, 10_000: 30, 100_000: 12 };
const QUICK_SCAN_QUERIES = { 1_000: 20, 10_000: 6, 100_000: 3 };
const WARMUP_QUERIES = 20;
const BATCH = 10_000;
const VOCABULARY = 20_000;
/** Zipf–Mandelbrot offset: the top ranks behave like content words, stop words being gone already. */
const ZIPF_OFFSET = 20;
const PROJECTS = 60;
const SCOPES = ['CLI', 'API', 'CMS', 'web app', 'library', 'mobile', 'data pipeline', 'game'];
const TARGET_SIZE = 100_000;
const TARGET_P95_MS = 10;
const MAX_DB_SIZE = 2047 * 1024 * 1024;
const GRADES = [-1, 1, 2, 5];
/** Entries in the flush whose indexing share is measured. */
const INDEXED_FLUSH = 1_000;
/** Flushes of INDEXED_FLUSH entries timed into the full and into an empty database, alternately. */
const FLUSH_ROUNDS = 7;
const QUICK_FLUSH_ROUNDS = 2;
/** The most a flush into the full database may take against one into an empty database. */
const MAX_FLUSH_GROWTH = 1.5;
/** The most the database may take per entry against the msgpack size of its document. */
const MAX_BYTES_PER_DOCUMENT_BYTE = 2;
/** The default size limit, and the bytes per entry measured before the packed index (213 MiB at 100,000). */
const DEFAULT_LIMIT = 512 * 1024 * 1024;
const EARLIER_BYTES_PER_ENTRY = (213 * 1024 * 1024) / 100_000;
const MIN_CAPACITY_GAIN = 4;
/** Shares of identifiers and of two-letter terms among the words of an entry. */
const IDENTIFIER_SHARE = 0.05;
const SHORT_SHARE = 0.03;
const SHORT_TERMS = ['ci', 'ui', 'db', 'js', 'ts', 'io', 'os', 'pr', 'qa', 'ux', 'id', 'vm'];
const CONSONANTS = 'bdfgklmnprtvz';
const VOWELS = 'aeiou';
/** The most the index may grow against the earlier analyzer. */
const MAX_INDEX_GROWTH = 1.5;
const V1_MIN_LENGTH = 3;

export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** A pronounceable word of letters for vocabulary rank `i`: syllables, then a final consonant. */
function wordOf(i) {
  let word = '';
  let rest = i + CONSONANTS.length * VOWELS.length;
  while (rest > 0) {
    const syllable = rest % (CONSONANTS.length * VOWELS.length);
    word += CONSONANTS[Math.floor(syllable / VOWELS.length)] + VOWELS[syllable % VOWELS.length];
    rest = Math.floor(rest / (CONSONANTS.length * VOWELS.length));
  }
  return `${word}k`;
}

/** A sampler of words by Zipf–Mandelbrot rank, with identifiers and two-letter terms mixed in. */
function vocabulary(random) {
  const words = Array.from({ length: VOCABULARY }, (_, i) => wordOf(i));
  const cumulative = new Float64Array(VOCABULARY);
  let total = 0;
  for (let rank = 0; rank < VOCABULARY; rank += 1) {
    total += 1 / (rank + 1 + ZIPF_OFFSET);
    cumulative[rank] = total;
  }
  const plain = () => {
    const target = random() * total;
    let low = 0;
    let high = VOCABULARY - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (cumulative[mid] < target) low = mid + 1;
      else high = mid;
    }
    return words[low];
  };
  const capitalised = (word) => word[0].toUpperCase() + word.slice(1);
  const identifier = () => {
    const parts = Array.from({ length: 2 + Math.floor(random() * 2) }, plain);
    switch (Math.floor(random() * 4)) {
      case 0: return parts[0] + parts.slice(1).map(capitalised).join('');
      case 1: return parts.join('_');
      case 2: return parts.join('-');
      default: return parts.join('.');
    }
  };
  return () => {
    const roll = random();
    if (roll < IDENTIFIER_SHARE) return identifier();
    if (roll < IDENTIFIER_SHARE + SHORT_SHARE) return SHORT_TERMS[Math.floor(random() * SHORT_TERMS.length)];
    return plain();
  };
}

/** The earlier analyzer's distinct terms of a text: lower-cased words of 3+ letters, no stop words. */
function v1Terms(text, stopWords) {
  const terms = new Set();
  for (const [word] of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    if (word.length >= V1_MIN_LENGTH && word.length <= 64 && !stopWords.has(word)) terms.add(word);
  }
  return terms;
}

/** A query with one letter of one long word changed (never the first letter), or undefined. */
function withTypo(text, random) {
  const words = text.split(' ');
  const long = words.map((word, at) => [word, at]).filter(([word]) => /^[a-z]{5,}$/.test(word));
  if (long.length === 0) return undefined;
  const [word, at] = long[Math.floor(random() * long.length)];
  const position = 1 + Math.floor(random() * (word.length - 1));
  const replacement = word[position] === 'q' ? 'x' : 'q';
  words[at] = word.slice(0, position) + replacement + word.slice(position + 1);
  return words.join(' ');
}

/** `size` entries numbered from `first` (keys and times never collide across calls with disjoint ranges). */
export function corpus(size, random, first = 0) {
  const word = vocabulary(random);
  const text = (min, max) => Array.from({ length: min + Math.floor(random() * (max - min + 1)) }, word).join(' ');
  const base = Date.UTC(2024, 0, 1);
  const mutations = [];
  const texts = [];
  for (let i = first; i < first + size; i += 1) {
    const project = `/bench/project-${i % PROJECTS}`;
    const agent = ['build', 'plan', 'general', 'review'][i % 4];
    const timestamp = new Date(base + i * 60_000).toISOString();
    const roll = random();
    const task = text(4, 12);
    if (roll < 0.4) {
      const note = text(2, 20);
      const grade = GRADES[Math.floor(random() * GRADES.length)];
      mutations.push({
        table: 'agents',
        key: agent,
        ops: [{ kind: 'grade', delta: 0, retrospective: {
          commit: i.toString(16).padStart(40, '0'), timestamp, task, agent_grade: grade, user_grade: grade,
          agent_note: note, user_note: '', agent, model: 'bench/model', project,
        } }],
      });
      texts.push(`${task} ${note}`);
    } else if (roll < 0.8) {
      const outcome = text(2, 14);
      const decisions = text(0, 14);
      mutations.push({
        table: 'activities',
        key: [agent, timestamp, String(i)],
        value: { timestamp, task, actions: '', outcome, decisions, agent, model: 'bench/model', project, automatic: false },
      });
      texts.push(`${task} ${outcome} ${decisions}`);
    } else {
      const message = `${task}\n\n${text(0, 16)}`;
      const hash = `c${i.toString(16).padStart(39, '0')}`;
      mutations.push({
        table: 'commits',
        key: [project, hash],
        value: { hash, project, agent, model: 'bench/model', sessionId: 's', message, files: [], insertions: 1, deletions: 0, timestamp },
      });
      texts.push(message);
    }
  }
  const profiles = Array.from({ length: PROJECTS }, (_, p) => {
    const projectPath = `/bench/project-${p}`;
    return { table: 'projects', key: projectPath, value: {
      path: projectPath, language: 'typescript', framework: 'unknown', scope: SCOPES[p % SCOPES.length], dependencies: [],
      manifestType: 'package.json', classifiedAt: new Date(base).toISOString(), agentsmdHash: '',
    } };
  });
  return { mutations: [...profiles, ...mutations], texts };
}

export function queriesFrom(texts, count, random) {
  const queries = [];
  for (let i = 0; i < count; i += 1) {
    const words = texts[Math.floor(random() * texts.length)].split(/\s+/).filter(Boolean);
    const length = 2 + Math.floor(random() * 5);
    const chosen = new Set();
    for (let tries = 0; chosen.size < length && tries < 50; tries += 1) chosen.add(words[Math.floor(random() * words.length)]);
    queries.push({ text: [...chosen].join(' '), scope: SCOPES[Math.floor(random() * SCOPES.length)] });
  }
  return queries;
}

/** The naive matcher: every entry read and tokenized for every query. */
function fullScan(m, store, query) {
  const keywords = m.extractKeywords(query.text);
  const found = [];
  const consider = (entry) => {
    const terms = new Set(m.tokenize(m.searchableText(entry)));
    let matched = 0;
    for (const keyword of keywords) if (terms.has(keyword)) matched += 1;
    if (keywords.length > 0 && matched / keywords.length >= m.RELEVANCE_THRESHOLD) found.push({ relevance: matched / keywords.length, entry });
  };
  for (const { value } of store.tables.retrospectives.getRange()) consider({ kind: 'retrospective', value });
  for (const { value } of store.tables.activities.getRange()) consider({ kind: 'activity', value });
  for (const { value } of store.tables.commits.getRange()) consider({ kind: 'commit', value });
  found.sort((a, b) => b.relevance - a.relevance);
  return found.slice(0, 15);
}

/**
 * Runs `flush` (untimed) and returns every entry it put: [database, key]. The put is caught where
 * the tables' `putSync` is defined (their prototype), and put back after: the tables themselves
 * are never changed, so later flushes run as before.
 */
function writesOf(store, flush) {
  const writes = [];
  const owners = new Set();
  for (const table of Object.values(store.tables)) {
    let owner = table;
    while (owner && !Object.hasOwn(owner, 'putSync')) owner = Object.getPrototypeOf(owner);
    if (owner) owners.add(owner);
  }
  const originals = [...owners].map((owner) => [owner, owner.putSync]);
  for (const [owner, put] of originals) {
    owner.putSync = function capture(key, value, options) {
      writes.push([this, key]);
      return put.call(this, key, value, options);
    };
  }
  try {
    flush();
  } finally {
    for (const [owner, put] of originals) owner.putSync = put;
  }
  return writes;
}

/** Puts the entries at those keys again, as stored and unconditionally, in one transaction of `store`; timed. */
function rewrite(store, writes) {
  const entries = writes.map(([table, key]) => [table, key, table.get(key)]);
  const started = performance.now();
  store.write(() => {
    for (const [table, key, value] of entries) table.putSync(key, value);
  });
  return performance.now() - started;
}

function time(action) {
  const started = performance.now();
  action();
  return performance.now() - started;
}

export default async function run({ quick = false } = {}) {
  const { Store } = await dist('core/store/store.js');
  const { termIndexer } = await dist('core/search/indexer.js');
  const { DEFAULT_RULES } = await dist('core/rules.js');
  const { QueryService, RELEVANCE_THRESHOLD } = await dist('core/search/service.js');
  const { extractKeywords, tokenize, STOP_WORDS } = await dist('core/search/tokenizer.js');
  const { searchableText } = await dist('core/search/documents.js');
  const { rebuildStaleTermIndex } = await dist('core/search/reindex.js');
  const { TermIndexReader } = await dist('core/search/index/reader.js');
  const m = { extractKeywords, tokenize, searchableText, RELEVANCE_THRESHOLD };
  const rows = [{ name: 'prior-art machine load', metric: 'load average (1 min) at start', value: os.loadavg()[0], unit: '' }];

  for (const size of SIZES) {
    const random = seededRandom(size);
    const dir = tempDir('prior-art');
    const dbPath = path.join(dir, 'db.lmdb');
    const store = Store.open({ path: dbPath, maxDatabaseSize: MAX_DB_SIZE, indexer: termIndexer });
    try {
      const { mutations, texts } = corpus(size, random);
      const now = new Date().toISOString();
      const buildMs = time(() => {
        for (let at = 0; at < mutations.length; at += BATCH) {
          store.applyBatch(mutations.slice(at, at + BATCH), DEFAULT_RULES, now);
          store.maintainIndexes();
        }
      });
      const service = new QueryService(store);
      const queries = queriesFrom(texts, (quick ? QUICK_QUERIES : QUERIES)[size], random);
      for (const query of queries.slice(0, WARMUP_QUERIES)) service.searchPriorArt({ taskDescription: query.text, scope: query.scope });
      const indexed = queries.map((query) => time(() => service.searchPriorArt({ taskDescription: query.text, scope: query.scope })));
      const scanned = queries
        .slice(0, (quick ? QUICK_SCAN_QUERIES : SCAN_QUERIES)[size])
        .map((query) => time(() => fullScan(m, store, query)));
      // What the runs cost a query: the same queries on a copy of the database with every run merged.
      // A plain copy of the file (no write is under way): lmdb's compacting copy must not be written to
      // (it aborts in mdb_page_alloc; lmdb-js issue 198).
      const runsLeft = new TermIndexReader(store.tables.terms).pendingRuns();
      const copyPath = path.join(dir, 'merged.lmdb');
      fs.copyFileSync(dbPath, copyPath);
      const copy = Store.open({ path: copyPath, maxDatabaseSize: MAX_DB_SIZE, indexer: termIndexer });
      let merged;
      try {
        while (copy.maintainIndexes());
        const mergedService = new QueryService(copy);
        for (const query of queries.slice(0, WARMUP_QUERIES)) mergedService.searchPriorArt({ taskDescription: query.text, scope: query.scope });
        merged = queries.map((query) => time(() => mergedService.searchPriorArt({ taskDescription: query.text, scope: query.scope })));
      } finally {
        copy.close();
        fs.rmSync(copyPath, { force: true });
        fs.rmSync(`${copyPath}-lock`, { force: true });
      }
      const typoQueries = queries.map((query) => ({ ...query, text: withTypo(query.text, random) })).filter((query) => query.text);
      const typos = typoQueries.map((query) => time(() => service.searchPriorArt({ taskDescription: query.text, scope: query.scope })));
      const label = `prior-art query, ${size.toLocaleString('en-US')} entries`;
      rows.push({ name: label, metric: `p95, one typo per query (${typos.length} queries)`, value: percentile(typos, 95), unit: 'ms' });
      for (const p of [50, 95]) {
        const value = percentile(indexed, p);
        const baseline = percentile(scanned, p);
        const row = { name: label, metric: `p${p} (full scan = baseline)`, value, unit: 'ms', baseline, ratio: value / baseline };
        if (p === 95 && size === TARGET_SIZE) Object.assign(row, { target: TARGET_P95_MS, pass: value <= TARGET_P95_MS });
        rows.push(row);
      }
      for (const p of [50, 95]) {
        const value = percentile(indexed, p);
        const baseline = percentile(merged, p);
        rows.push({ name: label, metric: `p${p} with the ${runsLeft.runs} runs the flushes left (baseline: every run merged, on a copy)`, value, unit: 'ms', baseline, ratio: value / baseline });
      }
      rows.push({ name: label, metric: 'index build (flushes of 10,000)', value: (size / buildMs) * 1000, unit: 'entries/s' });
      const bytes = fs.statSync(dbPath).size;
      let documentBytes = 0;
      for (const name of ['retrospectives', 'activities', 'commits']) {
        for (const { value } of store.tables[name].getRange()) documentBytes += pack(value).length;
      }
      const usedPages = Object.values(store.tables).reduce((sum, table) => {
        const stats = table.getStats();
        return sum + stats.treeBranchPageCount + stats.treeLeafPageCount + stats.overflowPages;
      }, 0);
      const termStats = store.tables.terms.getStats();
      const indexBytes = (termStats.treeBranchPageCount + termStats.treeLeafPageCount + termStats.overflowPages) * termStats.pageSize;
      rows.push({ name: label, metric: 'database size (entries + index)', value: bytes / (1024 * 1024), unit: 'MiB' });
      const perEntry = { name: label, metric: 'file bytes per entry (baseline: msgpack of its document)', value: bytes / size, unit: 'B', baseline: documentBytes / size, ratio: bytes / documentBytes };
      if (size === TARGET_SIZE) Object.assign(perEntry, { target: `<= ${MAX_BYTES_PER_DOCUMENT_BYTE}x`, pass: bytes / documentBytes <= MAX_BYTES_PER_DOCUMENT_BYTE });
      rows.push(perEntry);
      rows.push({ name: label, metric: 'bytes per entry in pages the tables use (baseline: msgpack)', value: (usedPages * termStats.pageSize) / size, unit: 'B', baseline: documentBytes / size, ratio: (usedPages * termStats.pageSize) / documentBytes });
      rows.push({ name: label, metric: 'term index bytes per entry (its pages)', value: indexBytes / size, unit: 'B' });
      if (size === TARGET_SIZE) {
        const fits = DEFAULT_LIMIT / (bytes / size);
        const before = DEFAULT_LIMIT / EARLIER_BYTES_PER_ENTRY;
        rows.push({ name: label, metric: 'entries the 512 MiB default holds (baseline: at 213 MiB per 100,000)', value: fits, unit: 'entries', baseline: before, ratio: fits / before, target: `>= ${MIN_CAPACITY_GAIN}x`, pass: fits / before >= MIN_CAPACITY_GAIN });
      }
      let postings = 0;
      let v1Postings = 0;
      for (const text of texts) {
        postings += new Set(tokenize(text)).size;
        v1Postings += v1Terms(text, STOP_WORDS).size;
      }
      const growth = { name: label, metric: 'index postings per entry (baseline: the earlier analyzer)', value: postings / size, unit: '', baseline: v1Postings / size, ratio: postings / v1Postings };
      if (size === TARGET_SIZE) Object.assign(growth, { target: `<= ${MAX_INDEX_GROWTH}x`, pass: postings / v1Postings <= MAX_INDEX_GROWTH });
      rows.push(growth);
      if (size === TARGET_SIZE) {
        // More flushes into the full database (what a large import batch costs with its indexing),
        // alternating with the same flushes into an empty one.
        const emptyDir = tempDir('prior-art-empty');
        const full = [];
        const empty = [];
        const mergeFull = [];
        const mergeEmpty = [];
        const rewriteFull = [];
        const rewriteEmpty = [];
        try {
          const rounds = quick ? QUICK_FLUSH_ROUNDS : FLUSH_ROUNDS;
          const flushInto = (target, round) => {
            const extra = corpus(INDEXED_FLUSH, seededRandom(size + 1 + round), size + round * INDEXED_FLUSH).mutations.filter((mutation) => mutation.table !== 'projects');
            return () => target.applyBatch(extra, DEFAULT_RULES, now);
          };
          const emptyStore = (round) => Store.open({ path: path.join(emptyDir, `empty-${round}.lmdb`), maxDatabaseSize: MAX_DB_SIZE, indexer: termIndexer });
          for (let round = 0; round < rounds; round += 1) {
            full.push(time(flushInto(store, round)));
            mergeFull.push(time(() => store.maintainIndexes()));
            const fresh = emptyStore(round);
            try {
              empty.push(time(flushInto(fresh, round)));
              mergeEmpty.push(time(() => fresh.maintainIndexes()));
            } finally {
              fresh.close();
            }
          }
          // Then as many flushes again, untimed, whose writes are put again raw and timed (see rewrite).
          for (let round = rounds; round < 2 * rounds; round += 1) {
            rewriteFull.push(rewrite(store, writesOf(store, flushInto(store, round))));
            store.maintainIndexes();
            const fresh = emptyStore(round);
            try {
              rewriteEmpty.push(rewrite(fresh, writesOf(fresh, flushInto(fresh, round))));
              fresh.maintainIndexes();
            } finally {
              fresh.close();
            }
          }
        } finally {
          removeDir(emptyDir);
        }
        const flushRatio = median(full) / median(empty);
        rows.push({
          name: label,
          metric: `flush of ${INDEXED_FLUSH.toLocaleString('en-US')} more entries, median of ${full.length} (baseline: into an empty database)`,
          value: median(full), unit: 'ms', baseline: median(empty), ratio: flushRatio,
          target: `<= ${MAX_FLUSH_GROWTH}x`, pass: flushRatio <= MAX_FLUSH_GROWTH,
        });
        rows.push({
          name: label,
          metric: `the merge step after it (own transaction, after the turn's end), median of ${mergeFull.length} (baseline: after the flush into an empty database)`,
          value: median(mergeFull), unit: 'ms', baseline: median(mergeEmpty), ratio: median(mergeFull) / median(mergeEmpty),
        });
        const both = full.map((ms, round) => ms + mergeFull[round]);
        const bothEmpty = empty.map((ms, round) => ms + mergeEmpty[round]);
        rows.push({
          name: label,
          metric: `flush and its merge step together, median of ${both.length} (baseline: the same into an empty database)`,
          value: median(both), unit: 'ms', baseline: median(bothEmpty), ratio: median(both) / median(bothEmpty),
        });
        // The floor the layout leaves: what such a flush wrote, put again raw in one transaction (what
        // it dirties and syncs: the entries' pages where they go, the run's pages at the end).
        rows.push({
          name: label,
          metric: `its writes alone: what such a flush wrote, put again raw, median of ${rewriteFull.length} (baseline: the same into an empty database)`,
          value: median(rewriteFull), unit: 'ms', baseline: median(rewriteEmpty), ratio: median(rewriteFull) / median(rewriteEmpty),
        });
      }
      if (size === TARGET_SIZE) {
        // The one-time rebuild after an upgrade: the index marked as built by the earlier analyzer.
        store.write((tables) => tables.terms.putSync(['s', 'version'], 1));
        const rebuildMs = time(() => rebuildStaleTermIndex(store));
        rows.push({ name: label, metric: 'one-time index rebuild after an upgrade (one transaction)', value: rebuildMs, unit: 'ms' });
      }
    } finally {
      store.close();
      removeDir(dir);
    }
  }
  return rows;
}

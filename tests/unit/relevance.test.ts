/**
 * Relevance on a labelled corpus: 50 two-word queries, each with the one entry a person planning
 * that task would want first, among 240 entries. Reports the mean reciprocal rank (MRR@10) of the
 * BM25 ranking (QueryService over a real temp LMDB) and of plain keyword overlap (matched / total,
 * the same threshold and the same grade/recency tie-breaks, over a full scan) in the same run.
 *
 * How the corpus is built: each topic has a focused target entry that contains both query words;
 * the distractors are what a real history holds: long session digests that mention several topics
 * in passing (so they contain both words too), entries that use one query word in another context,
 * some repeating it, and unrelated chores. Kinds, grades (2 or 5) and times are assigned by a seeded
 * random generator, the same for both rankers.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { searchableText } from '../../src/core/search/documents.js';
import { QueryService, RELEVANCE_THRESHOLD } from '../../src/core/search/service.js';
import { extractKeywords, tokenize } from '../../src/core/search/tokenizer.js';
import type { Grade } from '../../src/core/types.js';
import { DEFAULT_PROJECT, priorArtStore } from '../helpers/prior-art-store.js';
import type { PriorArtStore, Seed } from '../helpers/prior-art-store.js';

/** [specific word, general word, the target entry's text]; the query is the two words. */
const TOPICS: [string, string, string][] = [
  ['websocket', 'reconnect', 'Websocket client: reconnect with exponential backoff after server restarts'],
  ['invoice', 'rounding', 'Invoice totals: fix rounding of VAT to two decimals per line'],
  ['login', 'throttle', 'Throttle login attempts per IP with a sliding window'],
  ['avatar', 'upload', 'Avatar upload resizes to 256px and strips EXIF before storing'],
  ['csv', 'export', 'CSV export of orders streams rows instead of buffering the whole file'],
  ['migration', 'rollback', 'Rollback script for the users table migration'],
  ['pagination', 'cursor', 'Cursor pagination for the activity feed endpoint'],
  ['dark', 'theme', 'Dark theme toggle persisted in local storage'],
  ['email', 'template', 'Email template for password reset with a plain-text fallback'],
  ['cache', 'invalidation', 'Cache invalidation on product update via tag keys'],
  ['docker', 'image', 'Shrink the docker image with a multi-stage build'],
  ['flaky', 'e2e', 'Quarantine flaky e2e tests and retry them once in CI'],
  ['timezone', 'scheduler', 'Scheduler runs jobs in the user timezone instead of UTC'],
  ['search', 'autocomplete', 'Search autocomplete with debounce and a prefix index'],
  ['oauth', 'refresh', 'OAuth token refresh before expiry with a single in-flight request'],
  ['pdf', 'report', 'Monthly report rendered as PDF with headless Chrome'],
  ['webhook', 'signature', 'Verify webhook signature with HMAC and a constant-time compare'],
  ['memory', 'leak', 'Memory leak from event listeners in the dashboard charts'],
  ['i18n', 'plural', 'i18n plural rules for Polish and Russian'],
  ['permissions', 'role', 'Role-based permissions check on the admin routes'],
  ['queue', 'retry', 'Job queue retry with a dead-letter queue after five attempts'],
  ['graphql', 'dataloader', 'GraphQL resolvers batch database calls with dataloader'],
  ['config', 'schema', 'Validate the config file at startup against a schema with clear errors'],
  ['logging', 'json', 'Structured JSON logging with request ids'],
  ['deploy', 'canary', 'Canary deploy to five percent of traffic before the full rollout'],
  ['backup', 'restore', 'Nightly database backup with a tested restore procedure'],
  ['images', 'lazy', 'Lazy loading of product images below the fold'],
  ['sql', 'injection', 'Parameterized queries close the SQL injection in search filters'],
  ['cors', 'preflight', 'CORS preflight handling for the public endpoints'],
  ['feature', 'flag', 'Feature flag service with a per-user rollout percentage'],
  ['password', 'hashing', 'Password hashing moved from SHA1 to argon2'],
  ['form', 'validation', 'Client-side form validation with inline error messages'],
  ['session', 'timeout', 'Session timeout warning modal after 25 minutes idle'],
  ['notification', 'push', 'Push notification delivery through FCM with backoff'],
  ['markdown', 'sanitize', 'Sanitize markdown rendering to prevent XSS'],
  ['metrics', 'prometheus', 'Expose Prometheus metrics for request latency'],
  ['typescript', 'strict', 'Enable TypeScript strict mode and fix the null errors'],
  ['monorepo', 'workspace', 'Move the packages into an npm workspace monorepo'],
  ['accessibility', 'keyboard', 'Keyboard navigation and focus rings for accessibility'],
  ['resumable', 'chunks', 'Resumable large file transfer in 5 MB chunks'],
  ['payment', 'refund', 'Partial refund flow for card payment captures'],
  ['cli', 'completion', 'Shell completion for the cli commands'],
  ['eslint', 'lint', 'ESLint flat config migration and the lint fixes it found'],
  ['audit', 'trail', 'Append-only audit trail of admin actions'],
  ['geolocation', 'map', 'Show nearby stores on a map from the browser geolocation'],
  ['chat', 'typing', 'Typing indicator in chat over the existing channel'],
  ['react', 'upgrade', 'Upgrade React to 19 and fix the breaking changes'],
  ['gzip', 'compression', 'Enable gzip compression for large responses'],
  ['calendar', 'recurring', 'Recurring calendar events with RRULE expansion'],
  ['tenant', 'isolation', 'Tenant isolation with row-level security in Postgres'],
];

/** Areas for distractors; none of them is a query word. */
const AREAS = ['billing module', 'admin panel', 'mobile app', 'reporting jobs', 'onboarding wizard', 'gateway service', 'staging box', 'partner portal'];
const OTHER_CONTEXTS = [
  (word: string, area: string) => `Rename ${word} helpers in the ${area}`,
  (word: string, area: string) => `Docs: explain the ${word} settings of the ${area}`,
  (word: string, area: string) => `Investigated ${word} behaviour in the ${area}; nothing to change`,
  (word: string, area: string) => `${word} ${word} ${word}: cleaned up repeated ${word} code across the ${area}`,
];
const CHORES = [
  'Bump version and update the changelog', 'Update README badges', 'Rename variables in utils for clarity',
  'Remove dead code from the legacy helpers', 'Tidy imports and formatting', 'Pin Node in the CI matrix',
  'Fix typo in contributor guide', 'Sort package scripts alphabetically', 'Add editorconfig',
  'Delete unused fixtures', 'Refresh lockfile', 'Split long utility file into modules',
];
const TOPICS_PER_DIGEST = 5;
const CUTOFF = 10;

/** mulberry32: a small seeded generator, so the corpus is the same in every run. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

interface Labelled {
  seeds: Seed[];
  queries: { text: string; target: string }[];
}

function buildCorpus(): Labelled {
  const random = seededRandom(20250101);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const grade = (): Grade => (random() < 0.5 ? 2 : 5);
  const at = () => new Date(Date.UTC(2024, 0, 1) + Math.floor(random() * 365 * 24 * 3600) * 1000).toISOString();
  const entry = (id: string, text: string, note = ''): Seed => {
    const roll = random();
    if (roll < 0.4) return { kind: 'retrospective', id, task: text, userGrade: grade(), agentNote: note, at: at() };
    if (roll < 0.7) return { kind: 'activity', id, task: text, decisions: note, at: at() };
    return { kind: 'commit', id, message: note ? `${text}\n\n${note}` : text, at: at() };
  };
  const seeds: Seed[] = [];
  const queries: { text: string; target: string }[] = [];
  TOPICS.forEach(([specific, general, target], i) => {
    seeds.push(entry(`target-${i}`, target, random() < 0.3 ? `Kept it small; reviewed with the user, ${pick(AREAS)} untouched.` : ''));
    queries.push({ text: `${specific} ${general}`, target: `target-${i}` });
    seeds.push(entry(`general-a-${i}`, pick(OTHER_CONTEXTS)(general, pick(AREAS))));
    seeds.push(entry(`general-b-${i}`, pick(OTHER_CONTEXTS)(general, pick(AREAS))));
    seeds.push(entry(`specific-${i}`, pick(OTHER_CONTEXTS)(specific, pick(AREAS))));
  });
  for (let d = 0; d < TOPICS.length / TOPICS_PER_DIGEST; d += 1) {
    const mentioned = TOPICS.slice(d * TOPICS_PER_DIGEST, (d + 1) * TOPICS_PER_DIGEST).map(([s, g]) => `${s} ${g}`);
    seeds.push(entry(
      `digest-${d}`,
      `Session digest: long pairing session across the ${pick(AREAS)} and the ${pick(AREAS)}. Touched ${mentioned.join(', ')}; ` +
        `also reviewed open pull requests, answered questions about deployment windows, triaged issues and wrote notes for the next sprint planning meeting.`,
    ));
  }
  CHORES.forEach((chore, i) => {
    seeds.push(entry(`chore-${i}`, chore));
    seeds.push(entry(`chore-again-${i}`, `${chore} in the ${pick(AREAS)}`));
  });
  return { seeds, queries };
}

/** Entries are told apart by kind and time: every seed has its own random time (checked below). */
function seedKey(kind: string, timestamp: string): string {
  return `${kind}|${timestamp}`;
}

/** The baseline: plain keyword overlap over a full scan, with the same threshold and tie-breaks. */
function overlapRanking(store: PriorArtStore['store'], query: string): string[] {
  const keywords = extractKeywords(query);
  const scored: { key: string; relevance: number; grade: number; time: string }[] = [];
  const consider = (kind: string, text: string, grade: number, time: string) => {
    const terms = new Set(tokenize(text));
    const relevance = keywords.filter((keyword) => terms.has(keyword)).length / keywords.length;
    if (relevance >= RELEVANCE_THRESHOLD && relevance > 0) scored.push({ key: seedKey(kind, time), relevance, grade, time });
  };
  for (const { value } of store.tables.retrospectives.getRange()) {
    consider('retrospective', searchableText({ kind: 'retrospective', value }), value.user_grade ?? 0, value.timestamp);
  }
  for (const { value } of store.tables.activities.getRange()) consider('activity', searchableText({ kind: 'activity', value }), 0, value.timestamp);
  for (const { value } of store.tables.commits.getRange()) consider('commit', searchableText({ kind: 'commit', value }), 0, value.timestamp);
  scored.sort((a, b) => b.relevance - a.relevance || b.grade - a.grade || b.time.localeCompare(a.time));
  return scored.slice(0, CUTOFF).map((item) => item.key);
}

function reciprocalRank(ranked: readonly string[], target: string): number {
  const at = ranked.indexOf(target);
  return at < 0 ? 0 : 1 / (at + 1);
}

let t: PriorArtStore;
let corpus: Labelled;
beforeAll(() => {
  corpus = buildCorpus();
  t = priorArtStore();
  t.write(corpus.seeds);
});
afterAll(() => t.dispose());

describe('prior-art relevance on a labelled corpus', () => {
  it('has at least 200 entries and 50 two-word queries', () => {
    expect(corpus.seeds.length).toBeGreaterThanOrEqual(200);
    expect(corpus.queries).toHaveLength(50);
    expect(corpus.queries.every((query) => extractKeywords(query.text).length === 2)).toBe(true);
    expect(new Set(corpus.seeds.map((seed) => seedKey(seed.kind, seed.at ?? ''))).size).toBe(corpus.seeds.length);
  });

  it('ranks the labelled entry higher with BM25 than with plain overlap (MRR@10)', () => {
    const service = new QueryService(t.store);
    const targetKey = new Map(corpus.seeds.map((seed) => [seed.id, seedKey(seed.kind, seed.at ?? '')]));
    let bm25 = 0;
    let overlap = 0;
    for (const query of corpus.queries) {
      const target = targetKey.get(query.target) ?? '';
      const result = service.searchPriorArt({ taskDescription: query.text, scope: DEFAULT_PROJECT, maxResults: CUTOFF });
      bm25 += reciprocalRank(result.positivePatterns.map((match) => seedKey(match.source, match.timestamp)), target);
      overlap += reciprocalRank(overlapRanking(t.store, query.text), target);
    }
    const mrr = { bm25: bm25 / corpus.queries.length, overlap: overlap / corpus.queries.length };
    console.log(`prior-art relevance: MRR@${CUTOFF} BM25 ${mrr.bm25.toFixed(3)}, plain overlap ${mrr.overlap.toFixed(3)} (${corpus.queries.length} queries, ${corpus.seeds.length} entries)`);
    expect(mrr.bm25).toBeGreaterThan(mrr.overlap);
  });
});

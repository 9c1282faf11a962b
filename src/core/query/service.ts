/**
 * QueryService: prior art for a task being planned, in the three categories the planning skill
 * shows (scope-local positive patterns, cross-scope positive patterns, mistakes).
 *
 * The rules: the query's keywords come from `extractKeywords`; an entry qualifies when it matches
 * at least RELEVANCE_THRESHOLD of them (its relevanceScore); inside a category entries rank by
 * BM25, then grade, then recency. Only the postings of the query's own terms are read, and only
 * the entries returned are fetched.
 *
 * Which entries are which:
 * - A retrospective is positive when the user graded it good (2) or excellence (5), a mistake when
 *   the user graded it bad (-1); neutral (1) is neither and is not shown. The user's grade decides
 *   because it is the outside judgement; the agent also grades itself.
 * - Activities and commits carry no grade. They count as positive patterns, ranked below a graded
 *   retrospective of equal relevance: a commit that was kept and a turn that finished are evidence
 *   of work that got done, and a hand-written journal entry records decisions someone chose to
 *   keep. They are never mistakes: nothing says they went wrong.
 * - A commit that has a retrospective is left out: the retrospective stands for it with its grade
 *   and notes (a commit graded bad must not show up as a positive pattern too).
 */
import type { Store } from '../store/store.js';
import type { ActivityEntry, CommitRecord, Grade, RetrospectiveEntry } from '../types.js';
import { InputError } from '../validation.js';
import { inverseDocumentFrequency, saturatedTermFrequency } from './bm25.js';
import { scopeOfProject } from './scope.js';
import { POSTING_WORDS, TermIndexReader, decodePosting } from './term-index.js';
import type { DocumentRef, Posting } from './term-index.js';
import { extractKeywords } from './tokenizer.js';
import { TopK } from './top-k.js';
import type { PatternMatch, PriorArtQuery, PriorArtResult } from './types.js';

/** Results per category when the query does not say. */
export const DEFAULT_MAX_RESULTS = 5;
/** The most results per category a query may ask for. */
export const MAX_RESULTS_LIMIT = 50;
/** An entry must match at least this share of the query's keywords. */
export const RELEVANCE_THRESHOLD = 0.1;
const POSITIVE_GRADES: ReadonlySet<Grade> = new Set<Grade>([2, 5]);
const MISTAKE_GRADE: Grade = -1;
/** Candidates kept beyond maxResults, for commits skipped because a retrospective stands for them. */
const SKIP_ALLOWANCE = 8;
/** How much more to keep when the allowance ran out. */
const CAPACITY_GROWTH = 4;
/** Listed files of a commit in its notes. */
const FILES_SHOWN = 5;
/** Ungraded entries rank below graded ones on ties; as a number it sorts between -1 and 1. */
const UNGRADED_RANK = 0;

interface Candidate {
  posting: Posting;
  score: number;
  matched: number;
}

type Category = 'local' | 'cross' | 'mistake';

function byRank(a: Candidate, b: Candidate): number {
  return (
    b.score - a.score ||
    (b.posting.grade ?? UNGRADED_RANK) - (a.posting.grade ?? UNGRADED_RANK) ||
    b.posting.seconds - a.posting.seconds ||
    b.posting.document - a.posting.document
  );
}

/** Checks a query; a bad one gets an InputError saying what to pass instead. */
export function validatePriorArtQuery(query: PriorArtQuery): Required<Pick<PriorArtQuery, 'taskDescription' | 'scope' | 'maxResults'>> & PriorArtQuery {
  if (typeof query.taskDescription !== 'string' || query.taskDescription.trim() === '') {
    throw new InputError('the task description is empty: describe the task or feature to find prior art for');
  }
  if (typeof query.scope !== 'string') throw new InputError('the scope must be a string (a project scope or a project path)');
  const maxResults = query.maxResults ?? DEFAULT_MAX_RESULTS;
  if (!Number.isInteger(maxResults) || maxResults < 1 || maxResults > MAX_RESULTS_LIMIT) {
    throw new InputError(`the maximum number of results must be a whole number from 1 to ${MAX_RESULTS_LIMIT}, got ${String(query.maxResults)}`);
  }
  return { ...query, scope: query.scope.trim(), maxResults };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function labelled(parts: [string, string][]): string {
  return parts
    .filter(([, text]) => oneLine(text) !== '')
    .map(([label, text]) => `${label}: ${oneLine(text)}`)
    .join(' ');
}

/** Searches prior art in the store's term index. Synchronous: LMDB reads are memory-mapped. */
export class QueryService {
  private readonly index: TermIndexReader;

  constructor(private readonly store: Store) {
    this.index = new TermIndexReader(store.tables.terms);
  }

  /** The prior art for `query`, ranked; see the module comment for the rules. */
  searchPriorArt(input: PriorArtQuery): PriorArtResult {
    const query = validatePriorArtQuery(input);
    const keywords = extractKeywords(query.taskDescription);
    const empty: PriorArtResult = { positivePatterns: [], crossScopePatterns: [], mistakes: [] };
    if (keywords.length === 0) return empty;
    const lists = keywords
      .map((keyword) => this.index.postings(keyword))
      .filter((list) => list.count > 0);
    if (lists.length === 0) return empty;

    let capacity = query.maxResults + SKIP_ALLOWANCE;
    for (;;) {
      const ranked = this.rank(query, keywords.length, lists, capacity);
      const scopes = new Map<number, string>();
      const take = (category: Category) => this.materialize(ranked[category].ranked(), query.maxResults, keywords.length, scopes);
      const local = take('local');
      const cross = local.matches.length < query.maxResults ? take('cross') : { matches: [], short: false };
      const mistakes = take('mistake');
      const ranOut =
        (local.short && ranked.local.overflow > 0) ||
        (cross.short && ranked.cross.overflow > 0) ||
        (mistakes.short && ranked.mistake.overflow > 0);
      if (!ranOut) return { positivePatterns: local.matches, crossScopePatterns: cross.matches, mistakes: mistakes.matches };
      capacity *= CAPACITY_GROWTH;
    }
  }

  /** Merges the terms' postings by document number and keeps the best candidates per category. */
  private rank(
    query: PriorArtQuery & { scope: string },
    keywordCount: number,
    lists: { words: Uint32Array; count: number }[],
    capacity: number,
  ): Record<Category, TopK<Candidate>> {
    const stats = this.index.statistics();
    const documents = Math.max(stats.documents, 1);
    const averageLength = stats.totalLength / documents;
    const weights = lists.map((list) => inverseDocumentFrequency(documents, list.count));
    const positions = lists.map(() => 0);
    const top: Record<Category, TopK<Candidate>> = {
      local: new TopK(capacity, byRank),
      cross: new TopK(capacity, byRank),
      mistake: new TopK(capacity, byRank),
    };
    const isLocal = this.localFilter(query);
    const crossAllowed = this.crossFilter(query);
    const minimumMatched = RELEVANCE_THRESHOLD * keywordCount;

    for (;;) {
      let document = Number.POSITIVE_INFINITY;
      for (let i = 0; i < lists.length; i += 1) {
        const list = lists[i] as { words: Uint32Array; count: number };
        const at = positions[i] as number;
        if (at < list.count) document = Math.min(document, list.words[at * POSTING_WORDS] as number);
      }
      if (document === Number.POSITIVE_INFINITY) break;
      let matched = 0;
      let score = 0;
      let posting: Posting | undefined;
      for (let i = 0; i < lists.length; i += 1) {
        const list = lists[i] as { words: Uint32Array; count: number };
        const at = positions[i] as number;
        if (at >= list.count || list.words[at * POSTING_WORDS] !== document) continue;
        const decoded = decodePosting(list.words, at);
        posting ??= decoded;
        matched += 1;
        score += (weights[i] as number) * saturatedTermFrequency(decoded.termFrequency, decoded.documentLength, averageLength);
        positions[i] = at + 1;
      }
      if (!posting || matched < minimumMatched) continue;
      const candidate: Candidate = { posting, score, matched };
      if (posting.grade === MISTAKE_GRADE) top.mistake.offer(candidate);
      else if (posting.grade !== undefined && !POSITIVE_GRADES.has(posting.grade)) continue;
      else if (isLocal(posting)) top.local.offer(candidate);
      else if (crossAllowed(posting)) top.cross.offer(candidate);
    }
    return top;
  }

  private localFilter(query: PriorArtQuery & { scope: string }): (posting: Posting) => boolean {
    const scopes = new Map<number, boolean>();
    const agentId = query.agentId === undefined ? undefined : (this.index.idOf('agent', query.agentId) ?? -1);
    return (posting) => {
      if (agentId !== undefined && posting.agentId !== agentId) return false;
      let inScope = scopes.get(posting.projectId);
      if (inScope === undefined) {
        inScope = this.scopeOf(posting.projectId) === query.scope;
        scopes.set(posting.projectId, inScope);
      }
      return inScope;
    };
  }

  private crossFilter(query: PriorArtQuery): (posting: Posting) => boolean {
    if (!query.crossScopeProjects) return () => true;
    const allowed = new Set<number>();
    for (const project of query.crossScopeProjects) {
      const id = this.index.idOf('project', project);
      if (id !== undefined) allowed.add(id);
    }
    return (posting) => allowed.has(posting.projectId);
  }

  private scopeOf(projectId: number, cache?: Map<number, string>): string {
    const known = cache?.get(projectId);
    if (known !== undefined) return known;
    const path = this.index.nameOf('project', projectId) ?? '';
    const scope = scopeOfProject(this.store.tables.projects, path);
    cache?.set(projectId, scope);
    return scope;
  }

  /** Fetches the ranked candidates' entries until `wanted` are found; `short` when fewer were. */
  private materialize(
    ranked: readonly Candidate[],
    wanted: number,
    keywordCount: number,
    scopes: Map<number, string>,
  ): { matches: PatternMatch[]; short: boolean } {
    const matches: PatternMatch[] = [];
    for (const candidate of ranked) {
      if (matches.length === wanted) break;
      const ref = this.index.documentRef(candidate.posting.document);
      const match = ref && this.toMatch(ref, candidate, keywordCount, scopes);
      if (match) matches.push(match);
    }
    return { matches, short: matches.length < wanted };
  }

  private toMatch(ref: DocumentRef, candidate: Candidate, keywordCount: number, scopes: Map<number, string>): PatternMatch | undefined {
    const t = this.store.tables;
    const relevanceScore = candidate.matched / keywordCount;
    const scope = this.scopeOf(candidate.posting.projectId, scopes);
    switch (ref[0]) {
      case 'retrospective': {
        const entry: RetrospectiveEntry | undefined = t.retrospectives.get([ref[1], ref[2]]);
        if (!entry) return undefined;
        return {
          source: 'retrospective',
          task: oneLine(entry.task) || `commit ${entry.commit.slice(0, 12)}`,
          notes: labelled([['Agent note', entry.agent_note], ['User note', entry.user_note]]),
          grade: entry.user_grade,
          agentId: entry.agent,
          scope,
          timestamp: entry.timestamp,
          relevanceScore,
          projectPath: entry.project,
        };
      }
      case 'activity': {
        const entry: ActivityEntry | undefined = t.activities.get([ref[1], ref[2], ref[3]]);
        if (!entry) return undefined;
        return {
          source: 'activity',
          task: oneLine(entry.task),
          notes: labelled([['Outcome', entry.outcome], ['Decisions', entry.decisions]]),
          agentId: entry.agent,
          scope,
          timestamp: entry.timestamp,
          relevanceScore,
          projectPath: entry.project,
        };
      }
      case 'commit': {
        const entry: CommitRecord | undefined = t.commits.get([ref[1], ref[2]]);
        if (!entry || t.retrospectives.doesExist([entry.agent, entry.hash])) return undefined;
        const [subject = '', ...body] = entry.message.split('\n');
        const files = entry.files.length > FILES_SHOWN
          ? `${entry.files.slice(0, FILES_SHOWN).join(', ')} (+${entry.files.length - FILES_SHOWN} more)`
          : entry.files.join(', ');
        return {
          source: 'commit',
          task: oneLine(subject),
          notes: labelled([['Message', body.join(' ')], ['Files', files]]),
          agentId: entry.agent,
          scope,
          timestamp: entry.timestamp,
          relevanceScore,
          projectPath: entry.project,
        };
      }
    }
  }
}

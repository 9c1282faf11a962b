/**
 * QueryService: prior art for a task being planned, in the three categories the planning skill
 * shows (scope-local positive patterns, cross-scope positive patterns, mistakes).
 *
 * The rules: the query's keywords come from `analyzeQuery` (the same analyzer as the index); an
 * entry qualifies when it matches at least RELEVANCE_THRESHOLD of them (its relevanceScore), a
 * keyword counting as matched through its own term, an abbreviation or synonym of it, or, for a
 * keyword the index has never seen, a word one typo away; inside a category entries rank by BM25
 * (each term's share weighed: 1 for the query's own words, less for expansions and corrections),
 * then grade, then recency. Only the postings of the query's terms are read, and only the entries
 * returned are fetched.
 *
 * Scope-local: entries of the query's scope (by `agentId` only, when set: another agent's work in the
 * scope is then not shown at all). Cross-scope: entries of other scopes, never of the query's own
 * `project` (its records are not "from other projects" whatever scope was searched).
 *
 * Which entries are which, by what judges them (`Judge`, judgements.ts):
 * - The user's own grade of the commit (`/grade`, `agent-tracker grade`) decides first, for its
 *   retrospective and for the commit itself: it is the outside judgement. A commit the user graded
 *   bad (-1) is a mistake whatever the agent wrote about it.
 * - Without one, a retrospective is judged by the grade an agent relayed as the user's (old records),
 *   else by the agent's own self-grade; the match says which (`gradedBy`). A good self-grade of a
 *   commit that earned no credit (a self-revert, say) judges nothing: the entry is left out.
 * - Good (2) and excellence (5) are positive, bad (-1) a mistake; neutral (1) is neither and is not shown.
 * - An activity that records a verified bug report is a mistake (`judgedBy: 'reported-bug'`, no
 *   grade); an unverified report is left out: nothing ties it to the agent's work, and any agent can
 *   write one. Another activity is judged by the lowest grade the user gave a commit of its session
 *   (`judgedBy: 'session-commits'`): the turns of a session whose commit the user graded bad are not
 *   a pattern to follow.
 * - Activities without such a judgement, and commits nobody graded, carry no grade. They count as
 *   positive patterns, ranked below a graded retrospective of equal relevance: a commit that was kept
 *   and a turn that finished are evidence of work that got done, and a hand-written journal entry
 *   records decisions someone chose to keep.
 * - A commit that has a retrospective is left out: the retrospective stands for it with its grade
 *   and notes (a commit graded bad must not show up as a positive pattern too).
 */
import type { Store } from '../store/store.js';
import type { Grade } from '../types.js';
import { InputError } from '../validation.js';
import { Accumulators, KEPT_AGENT, KEPT_PROJECT, KEPT_SECONDS, KEPT_SHAPE, KEPT_WORDS } from './accumulators.js';
import { inverseDocumentFrequency, saturatedTermFrequency } from './bm25.js';
import { FUZZY_WEIGHT } from './fuzzy.js';
import { decodePostings } from './index/codec.js';
import { gradeOfShape, kindOfShape } from './index/metadata.js';
import { TermIndexReader } from './index/reader.js';
import { Judge, LEFT_OUT } from './judgements.js';
import { matchOf } from './matches.js';
import { analyzeQuery } from './query-terms.js';
import { byRank, candidateOf, scoreOfCandidate } from './ranking.js';
import type { Candidate } from './ranking.js';
import { scopeOfProject } from './scope.js';
import { TopK } from './top-k.js';
import { DEFAULT_MAX_RESULTS, MAX_RESULTS_LIMIT } from './types.js';
import type { PatternMatch, PriorArtQuery, PriorArtResult } from './types.js';

export { DEFAULT_MAX_RESULTS, MAX_RESULTS_LIMIT };

/** An entry must match at least this share of the query's keywords. */
export const RELEVANCE_THRESHOLD = 0.1;
const POSITIVE_GRADES: ReadonlySet<Grade> = new Set<Grade>([2, 5]);
const MISTAKE_GRADE: Grade = -1;
/** Candidates kept beyond maxResults, for commits skipped because a retrospective stands for them. */
const SKIP_ALLOWANCE = 8;
/** How much more to keep when the allowance ran out. */
const CAPACITY_GROWTH = 4;

type Category = 'local' | 'cross' | 'mistake';

/** The postings of one searched term, its weight and the keyword it counts for. */
interface TermList {
  blocks: Uint8Array[];
  count: number;
  weight: number;
  keyword: number;
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

/** Searches prior art in the store's term index. Synchronous: LMDB reads are memory-mapped. */
export class QueryService {
  private readonly index: TermIndexReader;
  private readonly accumulators = new Accumulators();
  /** The projects (index ids) with a commit the user graded, read at the start of each query (see Judge). */
  private userGradedProjects = new Set<number>();

  constructor(private readonly store: Store) {
    this.index = new TermIndexReader(store.tables.terms);
  }

  /** The prior art for `query`, ranked; see the module comment for the rules. */
  searchPriorArt(input: PriorArtQuery): PriorArtResult {
    const query = validatePriorArtQuery(input);
    // An index of an earlier version is unreadable until its rebuild (plugin start, `agent-tracker prior-art`).
    if (!this.index.isCurrent()) return { positivePatterns: [], crossScopePatterns: [], mistakes: [] };
    const { keywords, lists } = this.termLists(query.taskDescription);
    const empty: PriorArtResult = { positivePatterns: [], crossScopePatterns: [], mistakes: [] };
    if (lists.length === 0) return empty;
    this.index.startQuery();
    this.userGradedProjects = this.projectsWithUserGrades();

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

  /**
   * The postings to score, ordered by keyword: each keyword's own term, or when the index has never
   * seen it, the words one typo away; then its expansions.
   */
  private termLists(text: string): { keywords: string[]; lists: TermList[] } {
    const { keywords, correctable, expansions } = analyzeQuery(text);
    const searched = new Set([...keywords, ...expansions.map((expansion) => expansion.term)]);
    const lists: TermList[] = [];
    const add = (term: string, weight: number, keyword: number) => {
      const list = this.index.postings(term);
      if (list.count > 0) lists.push({ ...list, weight, keyword });
    };
    keywords.forEach((keyword, index) => {
      const before = lists.length;
      add(keyword, 1, index);
      const typed = correctable[index];
      if (lists.length === before && typed !== undefined) {
        for (const term of this.index.similarTerms(typed)) {
          if (searched.has(term)) continue;
          searched.add(term);
          add(term, FUZZY_WEIGHT, index);
        }
      }
      for (const expansion of expansions) if (expansion.keyword === index) add(expansion.term, expansion.weight, index);
    });
    return { keywords, lists };
  }

  /**
   * Scores term at a time into per-document accumulators (BM25 summed over the query's terms),
   * then keeps the best candidates per category.
   */
  private rank(
    query: PriorArtQuery & { scope: string },
    keywordCount: number,
    lists: readonly TermList[],
    capacity: number,
  ): Record<Category, TopK<Candidate>> {
    const stats = this.index.statistics();
    const documents = Math.max(stats.documents, 1);
    const averageLength = stats.totalLength / documents;
    const acc = this.accumulators;
    const lastDocument = this.index.lastDocument();
    acc.prepare(lastDocument + 1);
    try {
      for (const list of lists) {
        const weight = list.weight * inverseDocumentFrequency(documents, list.count);
        const keywordMark = list.keyword + 1;
        for (const block of list.blocks) {
          acc.prepareBlock(block.length);
          const count = decodePostings(block, acc.blockDocuments, acc.blockFrequencies, acc.blockLengths);
          for (let i = 0; i < count; i += 1) {
            const document = acc.blockDocuments[i] as number;
            if (document < 1 || document > lastDocument) continue;
            if (acc.matched[document] === 0) {
              acc.touched[acc.touchedCount] = document;
              acc.touchedCount += 1;
            }
            if (acc.lastKeyword[document] !== keywordMark) {
              acc.lastKeyword[document] = keywordMark;
              acc.matched[document] = (acc.matched[document] as number) + 1;
            }
            const termFrequency = acc.blockFrequencies[i] as number;
            acc.scores[document] = (acc.scores[document] as number) + weight * saturatedTermFrequency(termFrequency, acc.blockLengths[i] as number, averageLength);
          }
        }
      }
      return this.select(query, keywordCount, capacity);
    } finally {
      acc.reset();
    }
  }

  /** Sorts the scored documents into the three categories, keeping the best `capacity` of each. */
  private select(query: PriorArtQuery & { scope: string }, keywordCount: number, capacity: number): Record<Category, TopK<Candidate>> {
    const acc = this.accumulators;
    const top: Record<Category, TopK<Candidate>> = {
      local: new TopK(capacity, byRank, scoreOfCandidate),
      cross: new TopK(capacity, byRank, scoreOfCandidate),
      mistake: new TopK(capacity, byRank, scoreOfCandidate),
    };
    const inScope = this.scopeFilter(query);
    const byAgent = this.agentFilter(query);
    const crossAllowed = this.crossFilter(query);
    const minimumMatched = RELEVANCE_THRESHOLD * keywordCount;
    const judge = new Judge(this.store, this.index, this.userGradedProjects);
    for (let i = 0; i < acc.touchedCount; i += 1) {
      const document = acc.touched[i] as number;
      const matched = acc.matched[document] as number;
      if (matched < minimumMatched) continue;
      const score = acc.scores[document] as number;
      // Its category is not known before its metadata is read; when no board could keep its
      // score, its own board would not either, so it is not read at all (each board counts the drop).
      if (!top.local.wouldKeep(score) && !top.cross.wouldKeep(score) && !top.mistake.wouldKeep(score)) {
        for (const board of [top.local, top.cross, top.mistake]) board.mightKeep(score);
        continue;
      }
      const kept = document * KEPT_WORDS;
      this.index.copyMetadata(document, acc.kept, kept);
      const shape = acc.kept[kept + KEPT_SHAPE] as number;
      const projectId = acc.kept[kept + KEPT_PROJECT] as number;
      const agentId = acc.kept[kept + KEPT_AGENT] as number;
      const judgement = judge.judge(document, kindOfShape(shape), gradeOfShape(shape), projectId);
      if (judgement === LEFT_OUT) continue;
      const { grade } = judgement;
      let category: Category;
      if (grade === MISTAKE_GRADE) category = 'mistake';
      else if (grade !== undefined && !POSITIVE_GRADES.has(grade)) continue;
      else if (inScope(projectId)) {
        // Another agent's work in the scope is not this agent's, and not from another scope either.
        if (!byAgent(agentId)) continue;
        category = 'local';
      } else if (crossAllowed(projectId)) category = 'cross';
      else continue;
      const board = top[category];
      if (!board.mightKeep(score)) continue;
      board.offer(candidateOf(judgement, document, score, matched, acc.kept[kept + KEPT_SECONDS] as number, projectId));
    }
    return top;
  }

  /**
   * The index ids of the projects the user graded a commit of. The user's grades are keyed by project,
   * then commit: one key read per project, each seeking past the last project's grades (a path holds no
   * NUL, so `[project + NUL, '']` sorts after all of them and before the next project's), not one per grade.
   */
  private projectsWithUserGrades(): Set<number> {
    const ids = new Set<number>();
    let start: [string, string] | undefined;
    for (;;) {
      const [key] = this.store.tables.userGrades.getKeys({ ...(start ? { start } : {}), limit: 1 });
      if (key === undefined) return ids;
      const [project] = key;
      const id = this.index.idOf('project', project);
      if (id !== undefined) ids.add(id);
      start = [`${project}\u0000`, ''];
    }
  }

  private scopeFilter(query: PriorArtQuery & { scope: string }): (projectId: number) => boolean {
    const scopes = new Map<number, boolean>();
    return (projectId) => {
      let inScope = scopes.get(projectId);
      if (inScope === undefined) {
        inScope = this.scopeOf(projectId) === query.scope;
        scopes.set(projectId, inScope);
      }
      return inScope;
    };
  }

  private agentFilter(query: PriorArtQuery): (agentId: number) => boolean {
    if (query.agentId === undefined) return () => true;
    const wanted = this.index.idOf('agent', query.agentId) ?? -1;
    return (agentId) => agentId === wanted;
  }

  /** Other projects' entries outside the scope (of the given projects, when set); never the query's own project's. */
  private crossFilter(query: PriorArtQuery): (projectId: number) => boolean {
    const own = query.project === undefined ? -1 : (this.index.idOf('project', query.project) ?? -1);
    if (!query.crossScopeProjects) return (projectId) => projectId !== own;
    const allowed = new Set<number>();
    for (const project of query.crossScopeProjects) {
      const id = this.index.idOf('project', project);
      if (id !== undefined && id !== own) allowed.add(id);
    }
    return (projectId) => allowed.has(projectId);
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
      const ref = this.index.documentRef(candidate.document);
      const match = ref && matchOf(this.store.tables, ref, candidate, candidate.matched / keywordCount, this.scopeOf(candidate.projectId, scopes));
      if (match) matches.push(match);
    }
    return { matches, short: matches.length < wanted };
  }
}

/**
 * Runs the prior-art evaluation set through the real QueryService over a real temporary LMDB
 * (entries written by the flush path) and computes MRR@10 and recall@5 per query group.
 */
import { QueryService } from '../../src/core/search/service.js';
import type { PatternMatch } from '../../src/core/search/types.js';
import { priorArtStore } from './prior-art-store.js';
import type { Seed } from './prior-art-store.js';
import { EVAL_ENTRIES, EVAL_QUERIES } from './prior-art-eval-corpus.js';
import type { EvalEntry, EvalQuery } from './prior-art-eval-corpus.js';

/** Rank cut-off of the mean reciprocal rank. */
export const MRR_CUTOFF = 10;
/** Rank cut-off of recall. */
export const RECALL_CUTOFF = 5;
/** A scope no entry has: every entry is then a cross-scope pattern, ranked in one list. */
const NO_SCOPE = '(evaluation: no scope)';
const BASE_TIME = Date.UTC(2025, 5, 1);

/** The figures of one group of queries. */
export interface Figures {
  queries: number;
  mrr: number;
  recall: number;
}

/** Per-query outcome, for reading a failure. */
export interface QueryOutcome {
  query: EvalQuery;
  ranked: string[];
  reciprocalRank: number;
  recall: number;
}

export interface Evaluation {
  paraphrased: Figures;
  ownWords: Figures;
  byKind: Record<string, Figures>;
  outcomes: QueryOutcome[];
}

function seedOf(entry: EvalEntry, at: string): Seed {
  switch (entry.kind) {
    case 'commit':
      return { kind: 'commit', id: entry.id, message: entry.message, project: entry.project, at };
    case 'activity':
      return { kind: 'activity', id: entry.id, task: entry.task, outcome: entry.outcome ?? '', decisions: entry.decisions ?? '', automatic: entry.automatic ?? false, project: entry.project, at };
    case 'retrospective':
      return { kind: 'retrospective', id: entry.id, task: entry.task, userGrade: entry.grade, agentNote: entry.agentNote ?? '', userNote: entry.userNote ?? '', project: entry.project, at };
  }
}

function figuresOf(outcomes: readonly QueryOutcome[]): Figures {
  const n = outcomes.length;
  const sum = (pick: (outcome: QueryOutcome) => number) => outcomes.reduce((total, outcome) => total + pick(outcome), 0);
  return { queries: n, mrr: n === 0 ? 0 : sum((o) => o.reciprocalRank) / n, recall: n === 0 ? 0 : sum((o) => o.recall) / n };
}

/** Writes the corpus into a fresh store, runs every query, and removes the store. */
export function evaluatePriorArt(entries: readonly EvalEntry[] = EVAL_ENTRIES, queries: readonly EvalQuery[] = EVAL_QUERIES): Evaluation {
  const store = priorArtStore();
  try {
    // Every entry gets its own time, so a match is told apart by its kind and timestamp.
    const idOfMatch = new Map<string, string>();
    const seeds = entries.map((entry, index) => {
      const at = new Date(BASE_TIME + index * 3_600_000).toISOString();
      idOfMatch.set(`${entry.kind}|${at}`, entry.id);
      return seedOf(entry, at);
    });
    store.write(seeds);
    const service = new QueryService(store.store);
    const outcomes = queries.map((query): QueryOutcome => {
      const result = service.searchPriorArt({ taskDescription: query.text, scope: NO_SCOPE, maxResults: MRR_CUTOFF });
      const matches: PatternMatch[] = [...result.positivePatterns, ...result.crossScopePatterns];
      const ranked = matches.map((match) => idOfMatch.get(`${match.source}|${match.timestamp}`) ?? '?');
      const first = ranked.findIndex((id) => query.expected.includes(id));
      const topRecall = ranked.slice(0, RECALL_CUTOFF).filter((id) => query.expected.includes(id)).length;
      return {
        query,
        ranked,
        reciprocalRank: first < 0 || first >= MRR_CUTOFF ? 0 : 1 / (first + 1),
        recall: topRecall / query.expected.length,
      };
    });
    const byKind: Record<string, Figures> = {};
    for (const kind of new Set(queries.map((query) => query.kind))) {
      byKind[kind] = figuresOf(outcomes.filter((outcome) => outcome.query.kind === kind));
    }
    return {
      paraphrased: figuresOf(outcomes.filter((outcome) => outcome.query.kind !== 'own-words')),
      ownWords: figuresOf(outcomes.filter((outcome) => outcome.query.kind === 'own-words')),
      byKind,
      outcomes,
    };
  } finally {
    store.dispose();
  }
}

/** The figures as a few printable lines. */
export function describeEvaluation(evaluation: Evaluation): string {
  const line = (name: string, f: Figures) => `${name.padEnd(12)} ${String(f.queries).padStart(3)} queries  MRR@${MRR_CUTOFF} ${f.mrr.toFixed(3)}  recall@${RECALL_CUTOFF} ${f.recall.toFixed(3)}`;
  return [
    line('paraphrased', evaluation.paraphrased),
    line('own-words', evaluation.ownWords),
    ...Object.entries(evaluation.byKind).map(([kind, figures]) => line(`  ${kind}`, figures)),
  ].join('\n');
}

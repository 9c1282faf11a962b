/**
 * How prior-art candidates compare: the grade that judges an entry, a scored candidate, and the
 * order inside a category (BM25 score, then grade with ungraded entries between bad and neutral,
 * then recency, then the later document).
 */
import type { PriorArtJudgedBy } from '../../contract/answers.js';
import type { Grade, GradeProvenance } from '../types.js';

/** Ungraded entries rank below graded ones on ties; as a number it sorts between -1 and 1. */
const UNGRADED_RANK = 0;

/** The grade that judges an entry, who gave it, the user's note with it, and what it was read from when not the entry's own grade. */
export interface Judgement {
  grade: Grade | undefined;
  gradedBy?: GradeProvenance;
  userNote?: string;
  judgedBy?: PriorArtJudgedBy;
}

/** The judgement of an entry nobody graded. */
export const UNJUDGED: Judgement = { grade: undefined };

/** A document that matched enough keywords, with its score and what it is ranked and shown by. */
export interface Candidate extends Judgement {
  document: number;
  score: number;
  matched: number;
  seconds: number;
  projectId: number;
}

/** A candidate with its judgement, field by field: on Node 20, a spread followed by new fields costs microseconds per field. */
export function candidateOf(judgement: Judgement, document: number, score: number, matched: number, seconds: number, projectId: number): Candidate {
  const candidate: Candidate = { grade: judgement.grade, document, score, matched, seconds, projectId };
  if (judgement.gradedBy !== undefined) candidate.gradedBy = judgement.gradedBy;
  if (judgement.userNote !== undefined) candidate.userNote = judgement.userNote;
  if (judgement.judgedBy !== undefined) candidate.judgedBy = judgement.judgedBy;
  return candidate;
}

/** Best first: by score, then grade, then recency, then the later document. */
export function byRank(a: Candidate, b: Candidate): number {
  return (
    b.score - a.score ||
    (b.grade ?? UNGRADED_RANK) - (a.grade ?? UNGRADED_RANK) ||
    b.seconds - a.seconds ||
    b.document - a.document
  );
}

/** The score a category's board keeps the best of. */
export const scoreOfCandidate = (candidate: Candidate): number => candidate.score;

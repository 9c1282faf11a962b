/**
 * The setup recommendation: which agent × model to use on a project, from the user's own history.
 *
 * Every past record counts in proportion to how alike its project is to the target. Each setup is
 * then scored on four outcomes (grades, bugs per commit, tool failure rate, cost per commit), each
 * shrunk toward the whole history's value by how much evidence the setup has, so two lucky commits
 * cannot outrank two hundred good ones.
 */
import type { History } from './history.js';
import { commitGradeSum } from './history.js';
import { gradedCommitCount } from '../outcomes/counters.js';
import { SIMILARITY_THRESHOLD } from '../projects/similarity.js';
import { UNKNOWN } from '../types.js';
import type { ProjectProfile, UsageRecord } from '../types.js';
import { GRADES } from '../types.js';

/** How alike two project profiles are, 0..1. */
export type ProjectSimilarity = (a: ProjectProfile, b: ProjectProfile) => number;

/**
 * A record on an entirely unlike project counts this much relative to one on the most alike
 * project in the history (which counts 1), so unlike history still says a little.
 */
export const MIN_RECORD_WEIGHT = 0.05;

/**
 * Credibility constants k: the similarity-weighted evidence at which a setup's own record and the
 * whole history count equally (Z = 1/2). Below it the setup's score stays near the overall mean.
 */
export const CREDIBILITY_GRADED_COMMITS = 20;
export const CREDIBILITY_COMMITS = 20;
export const CREDIBILITY_TOOL_CALLS = 200;

/** How much each outcome counts in the score (re-normalized over the outcomes the history has). */
export const OUTCOME_WEIGHTS = { grade: 0.4, bugs: 0.25, failures: 0.15, cost: 0.2 } as const;

/** Scores run from 0 to this. */
const SCORE_SCALE = 100;
/** Commit evidence below this share of k is called thin in the one-line why. */
const THIN_EVIDENCE_SHARE = 0.5;
const MIN_GRADE = Math.min(...GRADES);
const MAX_GRADE = Math.max(...GRADES);

export interface RecommendInput {
  /** The project a setup is wanted for. */
  target: ProjectProfile;
  /** All history (not narrowed to the target). */
  history: History;
  /** Stored profiles by project path; a project without one counts as unlike the target. */
  profiles: ReadonlyMap<string, ProjectProfile>;
  similarity: ProjectSimilarity;
}

/** The shrunk estimates a setup's score is made of. */
export interface OutcomeEstimates {
  meanGrade: number | null;
  bugsPerCommit: number | null;
  failureRate: number | null;
  costPerCommit: number | null;
}

export interface SetupRecommendation {
  agent: string;
  model: string;
  /** 0..100; higher is better. */
  score: number;
  /** Commits the setup made (the sample count, not weighted). */
  n: number;
  why: string;
  sessions: number;
  gradedCommits: number;
  /** Commits weighted by their project's similarity to the target. */
  evidence: number;
  /** Mean similarity of the setup's work to the target project, 0..1. */
  similarity: number;
  estimates: OutcomeEstimates;
}

export interface Recommendation {
  project: ProjectProfile;
  recommendations: SetupRecommendation[];
  /** Set when there is nothing to rank: what happened and how to start. */
  message?: string;
}

export const NO_HISTORY_MESSAGE =
  'No history yet: nothing has been recorded for any agent setup. Work in OpenCode with the agent-tracker plugin ' +
  'enabled, commit, and grade commits with the grade-commit tool; after a few sessions run recommend again.';

/** Sums of work: similarity-weighted, or plain counts. */
interface Tally {
  commits: number;
  bugs: number;
  toolCalls: number;
  toolFailures: number;
  cost: number;
  graded: number;
  gradeSum: number;
}

/** What is known of one setup (or of everyone, for the prior). */
interface Evidence {
  sessions: Set<string>;
  /** Every record weighted by its project's similarity: what the score uses. */
  weighted: Tally;
  /** Plain counts over all projects: the sample count. */
  all: Tally;
  /** Plain counts over similar projects only: what the one-line why quotes. */
  similar: Tally;
  /** Sum of work × similarity and of work (commits, else tool calls), for the mean similarity. */
  similaritySum: number;
  similarityMass: number;
}

function emptyTally(): Tally {
  return { commits: 0, bugs: 0, toolCalls: 0, toolFailures: 0, cost: 0, graded: 0, gradeSum: 0 };
}

function emptyEvidence(): Evidence {
  return { sessions: new Set(), weighted: emptyTally(), all: emptyTally(), similar: emptyTally(), similaritySum: 0, similarityMass: 0 };
}

function addUsage(tally: Tally, record: UsageRecord, weight: number): void {
  tally.graded += weight * gradedCommitCount(record);
  tally.gradeSum += weight * commitGradeSum(record);
  tally.commits += weight * record.commits;
  tally.bugs += weight * record.bugs;
  tally.toolCalls += weight * record.toolCalls;
  tally.toolFailures += weight * record.toolFailures;
  tally.cost += weight * record.cost;
}

/**
 * Credibility weighting (Bühlmann), the empirical-Bayes shrinkage used for every outcome:
 *
 *   estimate = Z · x̄ + (1 − Z) · μ,   Z = n / (n + k)
 *
 * x̄ is the setup's similarity-weighted mean, n its similarity-weighted evidence (graded commits
 * for grades, commits for bugs and cost, tool calls for failures), μ the same outcome pooled over
 * the whole history (the prior, estimated from the data itself) and k the credibility constant.
 * For a ratio x̄ = S / n (e.g. bugs / commits) this is (S + k · μ) / (n + k). With no evidence the
 * estimate is μ; with n = k it is halfway; with n ≫ k it is the setup's own record.
 */
export function credibilityEstimate(sum: number, evidence: number, prior: number, k: number): number {
  return (sum + k * prior) / (evidence + k);
}

function setupKey(agent: string, model: string): string {
  return `${agent}\u0000${model}`;
}

/** Ranks every known setup for the target project, best first. */
export function recommendSetups(input: RecommendInput): Recommendation {
  const { target, history } = input;
  if (history.usage.length === 0) {
    return { project: target, recommendations: [], message: NO_HISTORY_MESSAGE };
  }

  const similarityCache = new Map<string, number>();
  const similarityTo = (project: string): number => {
    let score = similarityCache.get(project);
    if (score === undefined) {
      const profile = input.profiles.get(project);
      score = project === target.path ? 1 : profile ? clamp01(input.similarity(target, profile)) : 0;
      similarityCache.set(project, score);
    }
    return score;
  };
  // Weights are relative to the most alike project on record: when nothing alike exists, all
  // history counts alike instead of every setup being pulled to the mean for want of evidence.
  const rawWeight = (similarity: number) => MIN_RECORD_WEIGHT + (1 - MIN_RECORD_WEIGHT) * similarity;
  let closest = 0;
  for (const record of history.usage) closest = Math.max(closest, similarityTo(record.project));
  const weightOf = (similarity: number) => rawWeight(similarity) / rawWeight(closest);

  const setups = new Map<string, { agent: string; model: string; evidence: Evidence }>();
  const pool = emptyEvidence();
  const evidenceOf = (agent: string, model: string): Evidence => {
    const key = setupKey(agent, model);
    let setup = setups.get(key);
    if (!setup) setups.set(key, (setup = { agent, model, evidence: emptyEvidence() }));
    return setup.evidence;
  };

  for (const record of history.usage) {
    const similarity = similarityTo(record.project);
    const weight = weightOf(similarity);
    for (const evidence of [evidenceOf(record.agent, record.model), pool]) {
      evidence.sessions.add(record.sessionId);
      addUsage(evidence.weighted, record, weight);
      addUsage(evidence.all, record, 1);
      if (similarity >= SIMILARITY_THRESHOLD) addUsage(evidence.similar, record, 1);
      const work = record.commits > 0 ? record.commits : record.toolCalls;
      evidence.similaritySum += work * similarity;
      evidence.similarityMass += work;
    }
  }

  const prior = priorOutcomes(pool);
  const recommendations: SetupRecommendation[] = [];
  for (const { agent, model, evidence } of setups.values()) {
    if (agent === UNKNOWN || model === UNKNOWN) continue;
    recommendations.push(scoreSetup(agent, model, evidence, prior));
  }
  recommendations.sort((a, b) => b.score - a.score || b.n - a.n || setupKey(a.agent, a.model).localeCompare(setupKey(b.agent, b.model)));
  if (recommendations.length === 0) {
    return { project: target, recommendations, message: NO_HISTORY_MESSAGE };
  }
  return { project: target, recommendations };
}

/** The pooled outcomes of the whole history: the value every setup is shrunk toward. */
interface Prior {
  meanGrade: number | null;
  bugsPerCommit: number | null;
  failureRate: number | null;
  costPerCommit: number | null;
}

function priorOutcomes(evidence: Evidence): Prior {
  const pool = evidence.weighted;
  return {
    meanGrade: pool.graded > 0 ? pool.gradeSum / pool.graded : null,
    bugsPerCommit: pool.commits > 0 ? pool.bugs / pool.commits : null,
    failureRate: pool.toolCalls > 0 ? pool.toolFailures / pool.toolCalls : null,
    // Cost says nothing when nobody's work cost anything (local or unpriced models).
    costPerCommit: pool.commits > 0 && pool.cost > 0 ? pool.cost / pool.commits : null,
  };
}

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}

function scoreSetup(agent: string, model: string, evidence: Evidence, prior: Prior): SetupRecommendation {
  const weighted = evidence.weighted;
  const estimates: OutcomeEstimates = {
    meanGrade: prior.meanGrade === null ? null : credibilityEstimate(weighted.gradeSum, weighted.graded, prior.meanGrade, CREDIBILITY_GRADED_COMMITS),
    bugsPerCommit: prior.bugsPerCommit === null ? null : credibilityEstimate(weighted.bugs, weighted.commits, prior.bugsPerCommit, CREDIBILITY_COMMITS),
    failureRate:
      prior.failureRate === null ? null : credibilityEstimate(weighted.toolFailures, weighted.toolCalls, prior.failureRate, CREDIBILITY_TOOL_CALLS),
    costPerCommit: prior.costPerCommit === null ? null : credibilityEstimate(weighted.cost, weighted.commits, prior.costPerCommit, CREDIBILITY_COMMITS),
  };

  // Each outcome on 0..1, higher is better. Cost is relative to the pooled cost per commit:
  // as costly as the average scores 1/2, half as costly 2/3, twice as costly 1/3.
  const parts: { weight: number; value: number }[] = [];
  if (estimates.meanGrade !== null) {
    parts.push({ weight: OUTCOME_WEIGHTS.grade, value: (estimates.meanGrade - MIN_GRADE) / (MAX_GRADE - MIN_GRADE) });
  }
  if (estimates.bugsPerCommit !== null) parts.push({ weight: OUTCOME_WEIGHTS.bugs, value: 1 - clamp01(estimates.bugsPerCommit) });
  if (estimates.failureRate !== null) parts.push({ weight: OUTCOME_WEIGHTS.failures, value: 1 - clamp01(estimates.failureRate) });
  if (estimates.costPerCommit !== null && prior.costPerCommit !== null) {
    parts.push({ weight: OUTCOME_WEIGHTS.cost, value: prior.costPerCommit / (prior.costPerCommit + estimates.costPerCommit) });
  }
  const totalWeight = parts.reduce((sum, part) => sum + part.weight, 0);
  const score = totalWeight > 0 ? (SCORE_SCALE * parts.reduce((sum, part) => sum + part.weight * part.value, 0)) / totalWeight : 0;
  const similarity = evidence.similarityMass > 0 ? evidence.similaritySum / evidence.similarityMass : 0;

  return {
    agent,
    model,
    score: Math.round(score * 10) / 10,
    n: evidence.all.commits,
    why: explain(evidence),
    sessions: evidence.sessions.size,
    gradedCommits: evidence.all.graded,
    evidence: Math.round(weighted.commits * 10) / 10,
    similarity: Math.round(similarity * 100) / 100,
    estimates,
  };
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function describeTally(tally: Tally): string[] {
  const parts: string[] = [];
  if (tally.graded > 0) parts.push(`mean grade ${(tally.gradeSum / tally.graded).toFixed(1)} over ${plural(tally.graded, 'graded commit')}`);
  if (tally.commits > 0) parts.push(`${(tally.bugs / tally.commits).toFixed(2)} bugs/commit`);
  if (tally.toolCalls > 0) parts.push(`${((100 * tally.toolFailures) / tally.toolCalls).toFixed(1)}% tool failures`);
  if (tally.commits > 0 && tally.cost > 0) parts.push(`$${(tally.cost / tally.commits).toFixed(3)}/commit`);
  return parts;
}

/**
 * One line a person can check: the setup's record on similar projects (else everywhere), how much
 * of its work that is, and whether it is too little to move the score far from the overall mean.
 */
function explain(evidence: Evidence): string {
  const { all, similar, weighted } = evidence;
  const onSimilar = similar.commits > 0 || similar.toolCalls > 0;
  const facts = describeTally(onSimilar ? similar : all);
  if (facts.length === 0) facts.push(`${plural(evidence.sessions.size, 'session')} without commits or tool calls`);
  const count = all.commits > 0 ? ` (${onSimilar ? `${similar.commits} of its ` : ''}${plural(all.commits, 'commit')})` : '';
  const where = `${onSimilar ? 'on similar projects' : 'on other kinds of projects only'}${count}`;
  const thinBar = THIN_EVIDENCE_SHARE * CREDIBILITY_COMMITS;
  let prefix = '';
  if (all.commits === 0) prefix = 'no commits yet, so held near the overall mean; ';
  else if (all.commits < thinBar) prefix = `only ${plural(all.commits, 'commit')}, so held near the overall mean; `;
  else if (weighted.commits < thinBar) prefix = 'little work on alike projects, so held near the overall mean; ';
  return `${prefix}${where}: ${facts.join(', ')}`;
}

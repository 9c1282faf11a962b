/**
 * The setup recommendation: for each role (OpenCode agent) in the user's history, the model that does
 * best in that role on projects like the target, from the user's own history.
 *
 * Every past record counts in proportion to how alike its project is to the target. Each setup
 * (agent × model) is scored on signals (the user's grades first, then what happened to the work —
 * reverts, follow-up fixes, undo, tests, bugs, tool failures — then the setup's grades of itself),
 * each a Beta posterior shrunk toward the role's average by the setup's own evidence, so two lucky
 * commits cannot outrank two hundred good ones. The score carries an 80% interval, and each role says
 * how likely its pick is truly the best.
 */
import type { History } from './history.js';
import { SIMILARITY_THRESHOLD } from '../projects/similarity.js';
import { UNKNOWN } from '../types.js';
import type { ProjectProfile } from '../types.js';
import { probabilityLargest, Z_80 } from './recommend-math.js';
import { acceptedCommits, addTally, combineEstimates, emptyTally, signalEstimates, SIGNALS } from './recommend-signals.js';
import type { MixShifts, SignalName, Tally } from './recommend-signals.js';
import { clamp01, gatherEvidence, setupKey } from './recommend-evidence.js';
import type { RoleEvidence, SetupEvidence } from './recommend-evidence.js';
import { comparable, describeKinds, fitKindEffects, mixShift } from './recommend-kinds.js';
import type { Stratum } from './recommend-kinds.js';
import { explainScore, fewOf } from './recommend-why.js';
import { plural } from './numbers.js';
import { agreedOverclaim, agreementCredibility, correctSelfGrades, overclaimOf, roleOverclaim, selfGradeInformation, selfGradeTrust, trustSelfGrades } from './recommend-overclaim.js';
import type { CostEstimator } from './recommend-prices.js';
import type { Preference, Confidence, ScoredSetup, RoleRecommendation, WorthTrying, Recommendation } from '../../contract/answers.js';
export type { Preference, Confidence, ScoredSetup, RoleRecommendation, WorthTrying, Recommendation } from '../../contract/answers.js';

/** How alike two project profiles are, 0..1. */
export type ProjectSimilarity = (a: ProjectProfile, b: ProjectProfile) => number;

export const PREFERENCES: readonly Preference[] = ['quality', 'balanced', 'cheap'];
export const DEFAULT_PREFERENCE: Preference = 'balanced';

/**
 * The share of the final score that cost per accepted commit takes. Balanced lets a clearly better
 * setup win at a higher price but breaks near-ties toward the cheaper one; cheap weighs cost as much
 * as outcome.
 */
export const COST_SHARE: Readonly<Record<Preference, number>> = { quality: 0, balanced: 0.15, cheap: 0.5 };

/** Cost per accepted commit is shrunk toward the role's like the other signals, with this many commits of prior. */
export const COST_CREDIBILITY = 20;

/**
 * Below this much of its own work a setup is "thin": it may be worth trying but is never the pick
 * while a setup with more evidence exists. Commits for roles that commit, sessions for the others.
 */
export const MIN_PICK_COMMITS = 10;
export const MIN_PICK_SESSIONS = 5;

/**
 * How likely the pick is the best: at least CLEAR (19 to 1) is "clear", at least LIKELY (4 to 1)
 * "likely", else "close call". Set high on purpose: between two truly equal setups the chance the
 * noise alone makes one look 70% likely the best is about one in three, but 80% only one in five.
 */
export const CONFIDENCE_CLEAR = 0.95;
export const CONFIDENCE_LIKELY = 0.8;
/**
 * A lead over the runner-up below this many score points is a close call however sure the estimate:
 * the two do practically the same work, and either would do (a difference the user's grading of a
 * few commits could undo).
 */
export const PRACTICAL_LEAD = 2;

/**
 * The intervals behind "probability best" are multiplied by this before the chance is computed. The
 * signals' Beta variances are upper bounds (a grade is not a coin toss) and several signals agree, so
 * unscaled they announced ~55% for picks right ~90% of the time (and 70% for ~97%) on the evaluation worlds
 * (docs/QUALITY.md); this factor was set on those worlds and checked on the held-out ones.
 */
export const PROBABILITY_SD_SCALE = 0.5;
/**
 * Below this much evidence behind the pick (commits on projects like the target, or sessions for a
 * role that does not commit), or when no project like the target is in the history, the chance it is
 * the best is never said to be above MAX_THIN_PROBABILITY: a handful of commits, or another kind of
 * project, cannot make anyone sure.
 */
export const SURE_EVIDENCE = 30;
export const MAX_THIN_PROBABILITY = 0.9;
/** The pick and the runner-up never did the same kind of task: the chance the pick is the better is not above a coin toss. */
export const NOT_COMPARABLE_PROBABILITY = 0.5;

/** Scores run from 0 to this. */
const SCORE_SCALE = 100;

export interface RecommendInput {
  /** The project a setup is wanted for. */
  target: ProjectProfile;
  /** All history (not narrowed to the target). */
  history: History;
  /** Stored profiles by project path; a project without one counts as unlike the target. */
  profiles: ReadonlyMap<string, ProjectProfile>;
  similarity: ProjectSimilarity;
  /** Defaults to balanced. */
  prefer?: Preference;
  /** Prices usage stored at cost 0 that spent tokens; without it such usage is of unknown cost. */
  estimateCost?: CostEstimator;
}

export const NO_HISTORY_MESSAGE =
  'No history yet: nothing has been recorded for any agent setup. Import your past OpenCode sessions with ' +
  '"agent-tracker backfill", or work in OpenCode with the agent-tracker plugin enabled, commit, and grade commits ' +
  '(/grade); then run recommend again.';

const round1 = (value: number) => Math.round(value * 10) / 10;

/** The caveat of a target whose kind of project is not in the history. */
function unlikeCaveat(target: ProjectProfile): string {
  const kind = [target.language, target.framework, target.scope].filter((fact) => fact !== UNKNOWN).join('/') || 'unclassified';
  return `no project like this one (${kind}) in the history: the answer comes from unlike projects and may not carry over`;
}

/** A scored setup with the numbers ranking needs. */
interface Candidate {
  scored: ScoredSetup;
  mean: number;
  sd: number;
  /** The spread behind "probability best" (recommendRole). */
  probabilitySd: number;
  /** The why without the "too little to pick" note (the pick's line says that once). */
  reason: string;
  /** Sessions per kind of task: whether two setups did the same kind of work. */
  kindSessions: ReadonlyMap<Stratum, number>;
}

/** The role's pooled cost per accepted commit, or null when its work cost nothing or nothing held. */
function roleCostPerAccepted(pool: Tally): number | null {
  const accepted = acceptedCommits(pool);
  return accepted > 0 && pool.cost > 0 ? pool.cost / accepted : null;
}

function trialsOf(name: SignalName, tally: Tally): number {
  const signal = SIGNALS.find((candidate) => candidate.name === name);
  return signal ? signal.trials(tally) : 0;
}

/**
 * From this share of a setup's correction coming from the role's setups (selfGradeTrust), its why
 * says the correction is pooled with theirs; below it, that it is mostly its own.
 */
export const POOLED_TRUST = 0.5;

/** Scores one setup against its role's pool. */
function scoreSetup(setup: SetupEvidence, pool: Tally, shifts: MixShifts, pricedPool: Tally, prefer: Preference, credibility: number, unlikeRole: boolean, alone: boolean): Candidate {
  // Self-grades count only after the setup's overclaim (and the role's, for the prior) is taken off,
  // and as the user's grades only as far as the setups' overclaims agree (agreementCredibility).
  const overclaimed = agreedOverclaim(setup.weighted, pool, credibility);
  const information = selfGradeInformation(setup.weighted, pool);
  const selfCorrected = correctSelfGrades(setup.weighted, overclaimed, information);
  const trust = selfGradeTrust(setup.weighted, credibility);
  const corrected = overclaimed === null ? selfCorrected : trustSelfGrades(selfCorrected, trust);
  const rolePool = correctSelfGrades(pool, roleOverclaim(pool));
  // Each signal's share is read as if the setup had done the role's mix of tasks (like with like).
  const estimates = signalEstimates(corrected, rolePool, shifts, alone);
  const { quality, variance: qualityVariance, kindVariance } = combineEstimates(estimates);

  // Cost enters as a known quantity (it is measured, not sampled like outcomes), so it moves the
  // score but not the width of its interval. As costly as the role's average scores 1/2, half as
  // costly 2/3, twice as costly 1/3.
  // A setup with work of unknown price is scored at the role's cost (neither cheap nor dear), never as free.
  const roleCost = roleCostPerAccepted(pricedPool);
  // Accepted commits too are read as if on the role's mix of tasks: hard bug fixes are reverted more often.
  const acceptedShift = (shifts.setup.acceptedCommits?.amount ?? 0) * setup.weighted.commits;
  const ownAccepted = Math.min(setup.weighted.commits, Math.max(0, acceptedCommits(setup.weighted) + acceptedShift));
  const priced = setup.counts.costUnknown === 0;
  const shrunkCost = roleCost === null ? null : priced ? (setup.weighted.cost + COST_CREDIBILITY * roleCost) / (ownAccepted + COST_CREDIBILITY) : roleCost;
  const costShare = roleCost === null || shrunkCost === null ? 0 : COST_SHARE[prefer];
  const costValue = roleCost !== null && shrunkCost !== null ? roleCost / (roleCost + shrunkCost) : 0;
  const mean = (1 - costShare) * quality + costShare * costValue;
  const sd = (1 - costShare) * Math.sqrt(qualityVariance);
  // PROBABILITY_SD_SCALE corrects the Beta variances' upper bound; the kind effects' variance is
  // from the fit and is not scaled down with them.
  const probabilitySd =
    kindVariance > 0 ? (1 - costShare) * Math.sqrt(PROBABILITY_SD_SCALE ** 2 * (qualityVariance - kindVariance) + kindVariance) : sd * PROBABILITY_SD_SCALE;

  const roleCommits = pool.commits > 0;
  const own = roleCommits ? setup.counts.commits : setup.counts.sessions;
  const thin = own < (roleCommits ? MIN_PICK_COMMITS : MIN_PICK_SESSIONS);
  const similarity = setup.similarityMass > 0 ? setup.similaritySum / setup.similarityMass : 0;
  const thinNote = thin ? `${fewOf(Math.round(own), roleCommits ? 'commit' : 'session')}, too little to pick; ` : '';
  // Where nothing in the history is like the target, the role's caveat says so once for every setup.
  // "Mostly": most of its work by the same measure that says which projects are like the target (`like`).
  const unlikeNote = unlikeRole || setup.likeMass >= setup.similarityMass / 2 ? '' : setup.likeMass > 0 ? 'mostly on unlike projects; ' : 'only on unlike projects; ';
  const accepted = acceptedCommits(setup.counts);
  // The overclaim shown is the setup's own, as counted; the score takes off the pooled one: the why says both.
  const counted = overclaimed !== null && information > 0;
  const overclaim = overclaimOf(setup.counts, counted ? overclaimed : null);
  const reason = explainScore(estimates, setup.counts, trialsOf, unlikeNote, overclaim, trust >= POOLED_TRUST, setup.like);

  return {
    mean,
    sd,
    probabilitySd,
    reason,
    kindSessions: setup.kindSessions,
    scored: {
      agent: setup.agent,
      model: setup.model,
      score: round1(SCORE_SCALE * mean),
      interval: [round1(SCORE_SCALE * clamp01(mean - Z_80 * sd)), round1(SCORE_SCALE * clamp01(mean + Z_80 * sd))],
      n: setup.counts.commits,
      sessions: setup.counts.sessions,
      why: `${thinNote}${reason}`,
      costPerAcceptedCommit: priced && accepted > 0 && (setup.counts.cost > 0 || setup.counts.costEstimated > 0) ? Math.round((setup.counts.cost / accepted) * 10_000) / 10_000 : null,
      acceptedCommits: accepted,
      costEstimated: priced && setup.counts.costEstimated > 0,
      unpricedSessions: setup.counts.costUnknown,
      pricedSessions: setup.counts.costKnown,
      userGradedCommits: setup.counts.userGraded,
      evidence: round1(setup.weighted.commits),
      similarity: Math.round(similarity * 100) / 100,
      thin,
      signals: estimates.map((e) => ({ name: e.name, estimate: Math.round(e.mean * 1000) / 1000, roleAverage: Math.round(e.prior * 1000) / 1000 })),
      overclaim,
    },
  };
}

/**
 * More sessions a thin setup needs before its 80% interval is no wider than its gap to the pick (at
 * least PRACTICAL_LEAD points): its spread shrinks as 1/√(evidence + prior), the prior counting as
 * SETTLE_PRIOR trials. A bandit's rule of thumb, not a promise.
 */
export const SETTLE_PRIOR = 20;
function sessionsToSettle(setup: ScoredSetup, sd: number, gap: number, commits: boolean): number {
  const target = Math.max(gap, PRACTICAL_LEAD / SCORE_SCALE);
  const now = (commits ? setup.n : setup.sessions) + SETTLE_PRIOR;
  const needed = Math.max(0, now * ((Z_80 * sd) / target) ** 2 - now);
  const perSession = commits && setup.sessions > 0 ? Math.max(1, setup.n / setup.sessions) : 1;
  return Math.max(1, Math.ceil(needed / perSession));
}

/** Best first: higher score, then more commits, then more sessions, then by name (so ties are stable). */
function byScore(a: Candidate, b: Candidate): number {
  return b.mean - a.mean || b.scored.n - a.scored.n || b.scored.sessions - a.scored.sessions || a.scored.model.localeCompare(b.scored.model);
}

/** The plain-words confidence of a pick, from the chance it is the best and its lead over the runner-up (null: none). */
export function confidenceOf(probability: number, lead: number | null): Confidence {
  if (lead !== null && lead < PRACTICAL_LEAD) return 'close call';
  if (probability >= CONFIDENCE_CLEAR) return 'clear';
  if (probability >= CONFIDENCE_LIKELY) return 'likely';
  return 'close call';
}

/** Ranks one role's setups: the pick among the well-evidenced ones, and thin ones worth a try. */
function recommendRole(agent: string, evidence: RoleEvidence, prefer: Preference, unlike: string | null): { role: RoleRecommendation; worthTrying: WorthTrying[]; all: ScoredSetup[] } {
  const { setups, mix } = evidence;
  const pool = emptyTally();
  const pricedPool = emptyTally();
  for (const setup of setups) {
    addTally(pool, setup.weighted);
    if (setup.counts.costUnknown === 0) addTally(pricedPool, setup.weighted);
  }
  // How hard each kind of task is, fitted on the setups' work with self-grades corrected as they count.
  const poolOverclaim = roleOverclaim(pool);
  const credibility = agreementCredibility(setups.map((setup) => setup.weighted));
  const byKind = setups.map((setup) => {
    const overclaim = agreedOverclaim(setup.weighted, pool, credibility);
    const information = selfGradeInformation(setup.weighted, pool);
    return new Map([...setup.byKind].map(([kind, tally]) => [kind, correctSelfGrades(tally, overclaim, information)] as const));
  });
  const difficulty = fitKindEffects(byKind, mix);
  const poolByKind = new Map<Stratum, Tally>();
  for (const setup of setups) {
    for (const [kind, tally] of setup.byKind) {
      let kindPool = poolByKind.get(kind);
      if (!kindPool) poolByKind.set(kind, (kindPool = emptyTally()));
      addTally(kindPool, tally);
    }
  }
  for (const [kind, tally] of poolByKind) poolByKind.set(kind, correctSelfGrades(tally, poolOverclaim));
  const poolShift = mixShift(poolByKind, difficulty);
  const candidates = setups
    .map((setup, i) => scoreSetup(setup, pool, { setup: mixShift(byKind[i] ?? new Map(), difficulty, i), pool: poolShift }, pricedPool, prefer, credibility, unlike !== null, setups.length === 1))
    .sort(byScore);
  const solid = candidates.filter((candidate) => !candidate.scored.thin);
  // Thin setups compete only when no setup in the role has enough evidence.
  const eligible = solid.length > 0 ? solid : candidates;
  const thin = candidates.filter((candidate) => !eligible.includes(candidate));
  const ordered = [...eligible, ...thin];
  const [pick, runnerUp, ...alternatives] = ordered as [Candidate, ...Candidate[]];
  // "Too little to pick" is said of a setup only where better-evidenced ones were picked from; when
  // every setup is thin, the pick's line says so once (confidence) and no why repeats it.
  const shown = (candidate: Candidate): ScoredSetup => (eligible.includes(candidate) ? { ...candidate.scored, why: candidate.reason } : candidate.scored);
  // How likely the pick is truly the best among the setups that could be picked; thin setups are
  // judged by "worth trying" instead, or every role with a new model would read as a close call.
  const scaled = eligible.map((candidate) => ({ mean: candidate.mean, sd: candidate.probabilitySd }));
  const pickEvidence = pool.commits > 0 ? pick.scored.evidence : setups.find((s) => s.model === pick.scored.model)?.weighted.sessions ?? 0;
  // Little evidence, or evidence only from unlike projects, is never "sure".
  const rival = eligible[1];
  // Two setups that never did the same kind of task are not ranked: their scores would rank their tasks.
  const notComparableWith = eligible.slice(1).filter((candidate) => !comparable(pick.kindSessions, candidate.kindSessions));
  const comparableWithRunnerUp = !rival || !notComparableWith.includes(rival);
  let cap = pickEvidence < SURE_EVIDENCE || unlike !== null ? MAX_THIN_PROBABILITY : 1;
  if (!comparableWithRunnerUp) cap = NOT_COMPARABLE_PROBABILITY;
  const probabilityBest = Math.round(Math.min(cap, probabilityLargest(scaled, 0)) * 1000) / 1000;
  const lead = rival ? SCORE_SCALE * (pick.mean - rival.mean) : null;
  // The only setup of its role was compared with nothing: it is the best of one, and no more is claimed.
  const confidence = candidates.length === 1 ? 'no alternative' : comparableWithRunnerUp ? confidenceOf(probabilityBest, lead) : 'close call';
  const tie = comparableWithRunnerUp && lead !== null && lead < PRACTICAL_LEAD;
  const caveats: string[] = [];
  if (unlike) caveats.push(unlike);
  if (rival && !comparableWithRunnerUp) {
    caveats.push(
      `not comparable yet: ${pick.scored.model} did ${describeKinds(pick.kindSessions)} and ${rival.scored.model} did ${describeKinds(rival.kindSessions)}; ` +
        'they never did the same kind of task, so neither is ranked above the other',
    );
  }
  if (prefer !== 'quality' && setups.every((setup) => setup.counts.costUnknown > 0)) {
    caveats.push('no model in this role has a known price (OpenCode stored 0 and the price catalog does not know it), so cost is left out of the pick');
  }
  if (pickEvidence < SURE_EVIDENCE) {
    // With nothing like the target in the history its evidence is all from unlike projects (the caveat above).
    const where = unlike === null ? ' on projects like this one' : '';
    caveats.push(`the pick rests on ${plural(pickEvidence, pool.commits > 0 ? 'commit' : 'session')}${where}, too few to be sure`);
  }
  const pickScore = pick.scored.score;
  const worthTrying: WorthTrying[] = thin
    .filter((candidate) => candidate.scored.interval[1] > pickScore)
    .map(({ scored, sd, mean }) => ({
      agent,
      model: scored.model,
      score: scored.score,
      interval: scored.interval,
      n: scored.n,
      sessions: scored.sessions,
      why: scored.why,
      experiment: true as const,
      insteadOf: pick.scored.model,
      sessionsToSettle: sessionsToSettle(scored, sd, Math.abs(pick.mean - mean), pool.commits > 0),
    }));
  return {
    role: {
      agent,
      pick: shown(pick),
      runnerUp: runnerUp ? shown(runnerUp) : null,
      alternatives: alternatives.map(shown),
      confidence,
      probabilityBest,
      thinEvidence: pick.scored.thin,
      certain: (confidence === 'clear' || confidence === 'likely') && !pick.scored.thin && unlike === null,
      tie,
      comparable: comparableWithRunnerUp,
      notComparableWith: notComparableWith.map((candidate) => candidate.scored.model),
      taskMix: Object.fromEntries([...mix].map(([kind, weight]) => [kind, Math.round(weight * 1000) / 1000])),
      ...(caveats.length > 0 ? { caveat: caveats.join('; ') } : {}),
    },
    worthTrying,
    all: candidates.map(shown),
  };
}

/** Recommends a model per role for the target project. */
export function recommendSetups(input: RecommendInput): Recommendation {
  const prefer = input.prefer ?? DEFAULT_PREFERENCE;
  const empty: Recommendation = { project: input.target, prefer, roles: [], setup: [], worthTrying: [], recommendations: [], message: NO_HISTORY_MESSAGE };
  const { roles: byRole, closest } = gatherEvidence(input);
  if (byRole.size === 0) return empty;
  const unlike = closest < SIMILARITY_THRESHOLD ? unlikeCaveat(input.target) : null;
  const roles: RoleRecommendation[] = [];
  const worthTrying: WorthTrying[] = [];
  const all: ScoredSetup[] = [];
  for (const agent of [...byRole.keys()].sort()) {
    const evidence = byRole.get(agent);
    if (!evidence) continue;
    const result = recommendRole(agent, evidence, prefer, unlike);
    roles.push(result.role);
    worthTrying.push(...result.worthTrying);
    all.push(...result.all);
  }
  all.sort((a, b) => b.score - a.score || b.n - a.n || b.sessions - a.sessions || setupKey(a.agent, a.model).localeCompare(setupKey(b.agent, b.model)));
  return {
    project: input.target,
    prefer,
    roles,
    setup: roles.map((role) => ({ agent: role.agent, model: role.pick.model, confidence: role.confidence })),
    worthTrying,
    recommendations: all,
  };
}

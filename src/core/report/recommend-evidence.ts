/**
 * The history read into what the recommendation scores: per setup (agent × model), its records summed
 * and weighted by how alike their project is to the target, split by kind of task; and per role, the
 * mix of tasks the scores are weighted by.
 */
import { SIMILARITY_THRESHOLD } from '../projects/similarity.js';
import { UNKNOWN } from '../types.js';
import type { ProjectProfile, UsageRecord } from '../types.js';
import type { History } from './history.js';
import { addMass, kindSharesAndTurns, mixWeights } from './recommend-kinds.js';
import type { Stratum } from './recommend-kinds.js';
import { costOf } from './recommend-prices.js';
import type { CostEstimator } from './recommend-prices.js';
import { addRecord, addScaledTally, addTally, emptyTally, gradesByProvenance } from './recommend-signals.js';
import type { Tally } from './recommend-signals.js';

/**
 * A record on an entirely unlike project counts this much relative to one on the most alike
 * project in the history (which counts 1), so unlike history still says a little.
 */
export const MIN_RECORD_WEIGHT = 0.05;

/**
 * The target project's own mix of tasks is shrunk toward the user's mix in the role with this many
 * turns of prior: a target with a few turns of docs is not judged on docs alone.
 */
export const MIX_PRIOR_TURNS = 20;

/** What the evidence is read from. */
export interface EvidenceInput {
  target: ProjectProfile;
  history: History;
  profiles: ReadonlyMap<string, ProjectProfile>;
  similarity: (a: ProjectProfile, b: ProjectProfile) => number;
  estimateCost?: CostEstimator;
}

/** What is known of one setup. */
export interface SetupEvidence {
  agent: string;
  model: string;
  /** Every record weighted by its project's similarity: what the score uses. */
  weighted: Tally;
  /** The same, split by kind of task. */
  byKind: Map<Stratum, Tally>;
  /** Sessions of each kind (plain counts; a session of mixed kinds counts in part to each). */
  kindSessions: Map<Stratum, number>;
  /** Plain counts over all projects: the sample count and the one-line why. */
  counts: Tally;
  /** Plain counts on projects like the target (similarity at least SIMILARITY_THRESHOLD): the why, when the others count less. */
  like: Tally;
  /** Σ work × similarity and Σ work (commits, else tool calls, per project): how alike its work is on average. */
  similaritySum: number;
  similarityMass: number;
  /** The work on projects like the target (those `like` counts). */
  likeMass: number;
}

/** One role's setups and the mix of tasks (weights summing to 1) their scores are weighted by. */
export interface RoleEvidence {
  setups: SetupEvidence[];
  mix: Map<Stratum, number>;
}

export function setupKey(agent: string, model: string): string {
  return `${agent}\u0000${model}`;
}

export function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}

/** Every sum of a tally per kind, each scaled by `weight`, added into `into`. */
function addKinds(into: Map<Stratum, Tally>, from: ReadonlyMap<Stratum, Tally>, weight: number): void {
  for (const [kind, tally] of from) {
    let sum = into.get(kind);
    if (!sum) into.set(kind, (sum = emptyTally()));
    addScaledTally(sum, tally, weight);
  }
}

/** A tally of one kind read from a tally whose records were all of that kind: the same sums, less the cost flags a kind's tally does not count. */
function soleKindTally(tally: Tally): Tally {
  return { ...tally, costEstimated: 0, costUnknown: 0, costKnown: 0 };
}

/** The role's mix: the target's own tasks in the role, shrunk toward the user's mix in it (MIX_PRIOR_TURNS). */
function roleMix(all: ReadonlyMap<Stratum, number>, target: ReadonlyMap<Stratum, number> | undefined): Map<Stratum, number> {
  const mass = new Map<Stratum, number>();
  for (const [kind, weight] of mixWeights(all)) addMass(mass, kind, MIX_PRIOR_TURNS * weight);
  for (const [kind, turns] of target ?? []) addMass(mass, kind, turns);
  return mixWeights(mass);
}

/** Reads the history into per-setup evidence, grouped by role, and how alike the closest recorded project is. */
export function gatherEvidence(input: EvidenceInput): { roles: Map<string, RoleEvidence>; closest: number } {
  const { target, history } = input;
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
  // Weights grow with the square of similarity, so a project sharing only a scope (0.2) counts
  // little next to one of the same family (0.9): a family's best setup is not pulled toward another
  // family's. They are relative to the most alike project on record: when nothing alike exists, all
  // history counts alike instead of every setup being pulled to the mean for want of evidence.
  const rawWeight = (similarity: number) => MIN_RECORD_WEIGHT + (1 - MIN_RECORD_WEIGHT) * similarity * similarity;

  // One pass sums each setup's records per project (plain counts); the similarity weight is then
  // applied once per setup × project instead of once per record.
  // Nested maps (agent → model → project) so the hot loop builds no key strings; each agent also
  // holds its mix of tasks: all of the user's, and the target project's own.
  // `sole`: every record so far was all of this one kind, so its tally of that kind is the entry's
  // own tally (the same sums in the same order) and is not summed twice; null once that stops.
  type ProjectEntry = { agent: string; model: string; project: string; tally: Tally; byKind: Map<Stratum, Tally>; kindSessions: Map<Stratum, number>; work: number; sole: Stratum | null | undefined };
  type AgentEntry = { models: Map<string, Map<string, ProjectEntry>>; allMix: Map<Stratum, number>; targetMix: Map<Stratum, number> };
  const byAgent = new Map<string, AgentEntry>();
  const perProject: ProjectEntry[] = [];
  for (const record of history.usage) {
    if (record.agent === UNKNOWN || record.model === UNKNOWN) continue;
    let agentEntry = byAgent.get(record.agent);
    if (!agentEntry) byAgent.set(record.agent, (agentEntry = { models: new Map(), allMix: new Map(), targetMix: new Map() }));
    let byProject = agentEntry.models.get(record.model);
    if (!byProject) agentEntry.models.set(record.model, (byProject = new Map()));
    let entry = byProject.get(record.project);
    if (!entry) {
      entry = { agent: record.agent, model: record.model, project: record.project, tally: emptyTally(), byKind: new Map(), kindSessions: new Map(), work: 0, sole: undefined };
      byProject.set(record.project, entry);
      perProject.push(entry);
    }
    const { cost, kind } = costOf(record, input.estimateCost);
    const costed: UsageRecord = kind === 'stored' ? record : { ...record, cost };
    // The grades are read once and added to the setup's tally and to its tally of each kind.
    const grades = gradesByProvenance(costed);
    const { shares, turns } = kindSharesAndTurns(record);
    const only = shares.length === 1 && shares[0]?.[1] === 1 ? shares[0][0] : null;
    if (only !== null && (entry.sole === undefined || entry.sole === only)) entry.sole = only;
    else if (entry.sole !== null) {
      // The entry stops being of one kind: its records so far become that kind's tally.
      if (entry.sole !== undefined) entry.byKind.set(entry.sole, soleKindTally(entry.tally));
      entry.sole = null;
    }
    addRecord(entry.tally, costed, 1, grades);
    if (kind === 'unknown') entry.tally.costUnknown += 1;
    else if (kind === 'estimated') {
      entry.tally.costEstimated += 1;
      entry.tally.costKnown += 1;
    } else if (cost > 0) entry.tally.costKnown += 1;
    const atTarget = record.project === target.path;
    for (const [task, share] of shares) {
      if (entry.sole === null) {
        let tally = entry.byKind.get(task);
        if (!tally) entry.byKind.set(task, (tally = emptyTally()));
        addRecord(tally, costed, share, grades);
      }
      addMass(entry.kindSessions, task, share);
      // The same product kindMass gives: the record's share of the kind × its turns.
      const mass = share * turns;
      addMass(agentEntry.allMix, task, mass);
      if (atTarget) addMass(agentEntry.targetMix, task, mass);
    }
    entry.work += record.commits > 0 ? record.commits : Math.max(1, record.toolCalls);
  }
  let closest = 0;
  for (const entry of perProject) closest = Math.max(closest, similarityTo(entry.project));
  const closestWeight = rawWeight(closest);
  const setups = new Map<string, SetupEvidence>();
  for (const entry of perProject) {
    const key = setupKey(entry.agent, entry.model);
    let setup = setups.get(key);
    if (!setup) {
      setup = { agent: entry.agent, model: entry.model, weighted: emptyTally(), byKind: new Map(), kindSessions: new Map(), counts: emptyTally(), like: emptyTally(), similaritySum: 0, similarityMass: 0, likeMass: 0 };
      setups.set(key, setup);
    }
    const similarity = similarityTo(entry.project);
    const weight = rawWeight(similarity) / closestWeight;
    addScaledTally(setup.weighted, entry.tally, weight);
    addKinds(setup.byKind, entry.sole ? new Map([[entry.sole, soleKindTally(entry.tally)]]) : entry.byKind, weight);
    for (const [task, sessions] of entry.kindSessions) addMass(setup.kindSessions, task, sessions);
    addTally(setup.counts, entry.tally);
    if (similarity >= SIMILARITY_THRESHOLD) {
      addTally(setup.like, entry.tally);
      setup.likeMass += entry.work;
    }
    setup.similaritySum += entry.work * similarity;
    setup.similarityMass += entry.work;
  }
  const roles = new Map<string, RoleEvidence>();
  for (const setup of setups.values()) {
    const agentEntry = byAgent.get(setup.agent);
    const role = roles.get(setup.agent) ?? { setups: [], mix: roleMix(agentEntry?.allMix ?? new Map(), agentEntry?.targetMix) };
    role.setups.push(setup);
    roles.set(setup.agent, role);
  }
  return { roles, closest };
}

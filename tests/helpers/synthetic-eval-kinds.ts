/**
 * Evaluation worlds for like-with-like: setups are not handed the same tasks. Every model has a true
 * mean user grade that moves with the kind of task (bug fixes are graded lower than docs for every
 * model, by the same offset), so the best model is the best WITHIN every kind. The best one is handed
 * mostly the hard kinds (bug fixes, refactors), its closest rival mostly the easy ones (docs, tests):
 * pooled over all tasks the rival looks better. Written before the stratified scoring was built; the
 * held-out seeds (9001-9030, with the held-out grading parameters) were not looked at while building it.
 */
import { TASK_KIND_COUNTERS } from '../../src/core/outcomes/task-kind.js';
import type { TaskKind } from '../../src/core/outcomes/task-kind.js';
import type { ProjectProfile, UsageRecord } from '../../src/core/types.js';
import { EVAL_FAMILIES, EVAL_MODELS, familyProfile, setupSessions, targetOf } from './synthetic-eval.js';
import type { EvalCase, EvalFamily, EvalWorld, WorldParameters } from './synthetic-eval.js';
import { seededRandom } from './synthetic-truth.js';

/** How much every model's mean user grade moves on each kind of task (the same for every model). */
export const KIND_OFFSET: Readonly<Record<TaskKind, number>> = {
  'bug fix': -0.9,
  refactor: -0.3,
  feature: 0,
  config: 0.2,
  tests: 0.4,
  docs: 0.8,
  'question/other': 0,
};

type Mix = readonly [TaskKind, number][];

/** The best model's tasks: mostly the hard ones. */
const HARD_MIX: Mix = [['bug fix', 0.6], ['refactor', 0.2], ['feature', 0.2]];
/** Its closest rival's: mostly the easy ones. */
const EASY_MIX: Mix = [['docs', 0.55], ['tests', 0.25], ['feature', 0.2]];
/** The rest: a bit of everything. */
const MIDDLE_MIX: Mix = [['feature', 0.4], ['bug fix', 0.2], ['docs', 0.2], ['tests', 0.2]];

function drawKind(mix: Mix, random: () => number): TaskKind {
  let left = random();
  for (const [kind, share] of mix) {
    left -= share;
    if (left < 0) return kind;
  }
  return mix[mix.length - 1]?.[0] ?? 'feature';
}

export interface MixWorldOptions {
  /** How far the rival trails the best within every kind (mean user grade): [min, max]. */
  gap: [number, number];
}

export const MIX_OPTIONS: MixWorldOptions = { gap: [0.3, 0.7] };
export const MIX_HELD_OUT_OPTIONS: MixWorldOptions = { gap: [0.25, 0.8] };
/**
 * A second held-out set (the same generator, parameters and gaps as 9001-9030, new seeds), added
 * before a scoring change was tuned, once the first held-out set had been measured and so was no
 * longer blind. Not looked at until that change is settled.
 */
export const MIX_FRESH_HELD_OUT_SEEDS: readonly number[] = Array.from({ length: 30 }, (_, i) => 9101 + i);
/**
 * A third held-out set (the same generator, parameters and gaps, new seeds), added before self-grades
 * were weighted by how well each setup's agree with the user's, once 9101-9130 had been measured.
 * Not looked at until that change is settled. The inflation and confounded worlds get held-out seeds
 * of their own with it (SPECIAL_HELD_OUT_SEEDS): their generators, seeds not used while tuning.
 */
export const MIX_THIRD_HELD_OUT_SEEDS: readonly number[] = Array.from({ length: 30 }, (_, i) => 9201 + i);
export const SPECIAL_HELD_OUT_SEEDS: readonly number[] = Array.from({ length: 30 }, (_, i) => 9201 + i);
/**
 * A fourth held-out set (the same generator, parameters and gaps, new seeds), added before the
 * task-mix scoring was reworked again, once 9201-9230 had been measured. Not looked at until that
 * change is settled. The inflation and confounded worlds get fresh held-out seeds with it.
 */
export const MIX_FOURTH_HELD_OUT_SEEDS: readonly number[] = Array.from({ length: 30 }, (_, i) => 9301 + i);
export const SPECIAL_FOURTH_HELD_OUT_SEEDS: readonly number[] = Array.from({ length: 30 }, (_, i) => 9301 + i);

/**
 * One world: one family, the role `build`, four models on the family's three projects, each session
 * one task whose kind is drawn from the model's mix; the target is a new project of the family.
 */
export function taskMixWorld(seed: number, parameters: WorldParameters, options: MixWorldOptions = MIX_OPTIONS): EvalWorld {
  const random = seededRandom(seed);
  const family = EVAL_FAMILIES[seed % EVAL_FAMILIES.length] as EvalFamily;
  const projects = [0, 1, 2].map((i) => `/eval/${family.name}-${i}`);
  const profiles: ProjectProfile[] = [...projects.map((project) => familyProfile(family, project)), familyProfile(family, targetOf(family), family.dependencies.slice(0, 2))];
  const models = [...EVAL_MODELS].sort(() => random() - 0.5).slice(0, 4) as [string, string, string, string];
  const [best, rival, ...rest] = models;
  const bestMean = 3.7 + 0.5 * random();
  const truth: Record<string, number> = { [best]: bestMean, [rival]: bestMean - (options.gap[0] + (options.gap[1] - options.gap[0]) * random()) };
  for (const model of rest) truth[model] = (truth[rival] ?? 3) - 0.1 - 0.6 * random();
  const mixes: Record<string, Mix> = { [best]: HARD_MIX, [rival]: EASY_MIX };
  const usage: UsageRecord[] = [];
  let bestCommits = 0;
  for (const model of models) {
    const sessions = 20 + Math.floor(random() * 21);
    for (let s = 0; s < sessions; s += 1) {
      const kind = drawKind(mixes[model] ?? MIDDLE_MIX, random);
      const plan = { role: 'build', model, family, projects: [projects[s % projects.length] ?? ''], mean: (truth[model] ?? 3) + KIND_OFFSET[kind], overclaim: 0.3, sessions: 1, cost: 0.3 };
      const [record] = setupSessions(plan, parameters, random, `k${seed}_${model}_${s}`);
      if (!record) continue;
      // Every turn of the session was this kind of task.
      record[TASK_KIND_COUNTERS[kind]] = record.turns ?? 0;
      if (model === best) bestCommits += record.commits;
      usage.push(record);
    }
  }
  const c: EvalCase = { target: targetOf(family), family: family.name, role: 'build', truth, best, bestCommits, seen: true };
  return { name: `task mix ${seed}`, usage, profiles, cases: [c] };
}

/**
 * The recommendation judged on the evaluation set (tests/helpers/synthetic-eval.ts): worlds written
 * through import, answers read from `recommend --json`, compared with the known best model and with
 * two naive baselines computed from the generated records. EVAL_REPORT=1 prints the figures that
 * docs/QUALITY.md quotes. The held-out worlds (other seeds and parameters) were not looked at while
 * the scoring was tuned.
 */
import { describe, expect, it } from '@jest/globals';
import {
  allGradesBaseline,
  answerWorld,
  confoundedWorld,
  EVAL_PARAMETERS,
  generalWorld,
  HELD_OUT_PARAMETERS,
  inflationWorld,
  SPARSE_PARAMETERS,
  userGradeBaseline,
} from '../helpers/synthetic-eval.js';
import {
  MIX_FOURTH_HELD_OUT_SEEDS,
  MIX_FRESH_HELD_OUT_SEEDS,
  MIX_HELD_OUT_OPTIONS,
  MIX_THIRD_HELD_OUT_SEEDS,
  SPECIAL_FOURTH_HELD_OUT_SEEDS,
  SPECIAL_HELD_OUT_SEEDS,
  taskMixWorld,
} from '../helpers/synthetic-eval-kinds.js';
import type { EvalWorld, RecommendJson, WorldParameters } from '../helpers/synthetic-eval.js';

/** Cases where the best model has at least this many commits on the target's family are scored. */
const SCORED_COMMITS = 20;
/** Announced-probability bins of the reliability table: [from, to). */
const BINS: [number, number][] = [[0, 0.5], [0.5, 0.6], [0.6, 0.8], [0.8, 0.95], [0.95, 1.01]];

export interface Figures {
  cases: number;
  hits: number;
  baselineUser: number;
  baselineAll: number;
  /** Per bin: picks announced in it, and how many were right. */
  calibration: { announced: number; right: number; meanAnnounced: number }[];
  /** Lead of #1 over #2 in score points, per seen case. */
  leads: number[];
  /** Unseen-family roles answered without any caveat. */
  unseenWithoutCaveat: number;
  unseen: number;
}

function emptyFigures(): Figures {
  return { cases: 0, hits: 0, baselineUser: 0, baselineAll: 0, calibration: BINS.map(() => ({ announced: 0, right: 0, meanAnnounced: 0 })), leads: [], unseenWithoutCaveat: 0, unseen: 0 };
}

function roleOf(answer: RecommendJson | undefined, role: string) {
  const found = answer?.roles.find((r) => r.agent === role);
  if (!found) throw new Error(`no answer for role ${role}`);
  return found;
}

async function score(worlds: readonly EvalWorld[], minCommits = SCORED_COMMITS): Promise<Figures> {
  const figures = emptyFigures();
  for (const world of worlds) {
    const answers = await answerWorld(world);
    for (const c of world.cases) {
      const answer = roleOf(answers.get(c.target), c.role);
      if (!c.seen) {
        figures.unseen += 1;
        if (!answer.caveat) figures.unseenWithoutCaveat += 1;
        continue;
      }
      if (c.bestCommits < minCommits) continue;
      figures.cases += 1;
      const right = answer.pick.model === c.best;
      if (right) figures.hits += 1;
      if (userGradeBaseline(world, c) === c.best) figures.baselineUser += 1;
      if (allGradesBaseline(world, c) === c.best) figures.baselineAll += 1;
      const bin = BINS.findIndex(([from, to]) => answer.probabilityBest >= from && answer.probabilityBest < to);
      const cell = figures.calibration[bin];
      if (cell) {
        cell.meanAnnounced = (cell.meanAnnounced * cell.announced + answer.probabilityBest) / (cell.announced + 1);
        cell.announced += 1;
        if (right) cell.right += 1;
      }
      if (answer.runnerUp) figures.leads.push(answer.pick.score - answer.runnerUp.score);
    }
  }
  return figures;
}

const percent = (part: number, whole: number) => (whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)}%`);
const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : (sorted[Math.floor((sorted.length - 1) / 2)]! + sorted[Math.ceil((sorted.length - 1) / 2)]!) / 2;
};

function print(name: string, figures: Figures): void {
  if (process.env.EVAL_REPORT !== '1') return;
  const table = figures.calibration
    .map((cell, i) => `${BINS[i]![0] * 100}-${Math.min(100, BINS[i]![1] * 100)}%: ${cell.right}/${cell.announced} right (${percent(cell.right, cell.announced)}, announced ${(cell.meanAnnounced * 100).toFixed(0)}%)`)
    .join('; ');
  process.stdout.write(
    `${name}: pick ${figures.hits}/${figures.cases} (${percent(figures.hits, figures.cases)}), baseline user-grade ${percent(figures.baselineUser, figures.cases)}, ` +
      `baseline all-grades ${percent(figures.baselineAll, figures.cases)}; median lead ${median(figures.leads).toFixed(1)} points; ` +
      `unseen without caveat ${figures.unseenWithoutCaveat}/${figures.unseen}\n  calibration: ${table}\n`,
  );
}

/** Each evaluation imports its worlds and runs recommend per target: seconds, not milliseconds. */
const EVAL_TIMEOUT_MS = 180_000;

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);
const worlds = (seeds: readonly number[], parameters: WorldParameters) => seeds.map((seed) => generalWorld(seed, parameters));

describe('recommend on the evaluation set (written through import, read through recommend --json)', () => {
  it('writes every world through import and reads an answer per role for every target', async () => {
    const world = generalWorld(1, EVAL_PARAMETERS);
    const answers = await answerWorld(world);
    for (const c of world.cases) expect(roleOf(answers.get(c.target), c.role).pick.model).toMatch(/^m\//);
  }, EVAL_TIMEOUT_MS);

  it('evaluation worlds: finds the best model more often than both naive baselines', async () => {
    const figures = await score(worlds(range(1, 30), EVAL_PARAMETERS));
    print('evaluation seeds 1-30', figures);
    expect(figures.cases).toBeGreaterThan(60);
    expect(figures.hits / figures.cases).toBeGreaterThanOrEqual(0.85);
    // A clear margin over the naive rules: at least 10 points.
    expect(figures.hits - figures.baselineUser).toBeGreaterThanOrEqual(0.1 * figures.cases);
    expect(figures.hits - figures.baselineAll).toBeGreaterThanOrEqual(0.1 * figures.cases);
    // A family never seen is always said to be one.
    expect(figures.unseenWithoutCaveat).toBe(0);
  }, EVAL_TIMEOUT_MS);

  it('held-out worlds: finds the best model more often than both naive baselines', async () => {
    const figures = await score(worlds(range(9001, 30), HELD_OUT_PARAMETERS));
    print('held-out seeds 9001-9030', figures);
    expect(figures.cases).toBeGreaterThan(60);
    expect(figures.hits / figures.cases).toBeGreaterThanOrEqual(0.85);
    expect(figures.hits - figures.baselineUser).toBeGreaterThanOrEqual(0.1 * figures.cases);
    expect(figures.unseenWithoutCaveat).toBe(0);
  }, EVAL_TIMEOUT_MS);

  it('sparse worlds (only bugs and tool failures follow quality): still ahead of both baselines', async () => {
    const figures = await score(worlds(range(1, 20), SPARSE_PARAMETERS));
    print('sparse seeds 1-20', figures);
    expect(figures.hits - figures.baselineUser).toBeGreaterThanOrEqual(0.05 * figures.cases);
    expect(figures.hits - figures.baselineAll).toBeGreaterThanOrEqual(0.05 * figures.cases);
  }, EVAL_TIMEOUT_MS);

  it('confounded case: 60 commits at a user grade of 4.2 beat more work at 3.0-3.4', async () => {
    const figures = await score(range(1, 30).map(confoundedWorld));
    print('confounded seeds 1-30', figures);
    expect(figures.cases).toBe(30);
    expect(figures.hits / figures.cases).toBeGreaterThanOrEqual(0.9);
  }, EVAL_TIMEOUT_MS);

  it('inflation case: the honest model beats one that grades itself 5', async () => {
    const figures = await score(range(1, 30).map(inflationWorld), 0);
    print('inflation seeds 1-30', figures);
    expect(figures.cases).toBe(30);
    // The rest are worlds where the user's own grades (or the outcomes) put the self-inflating model ahead by chance.
    expect(figures.hits / figures.cases).toBeGreaterThanOrEqual(0.85);
  }, EVAL_TIMEOUT_MS);

  it('task mix: the model handed the hard bug fixes, best within every kind, beats one that did the docs', async () => {
    const figures = await score(range(1, 30).map((seed) => taskMixWorld(seed, EVAL_PARAMETERS)));
    print('task mix seeds 1-30', figures);
    expect(figures.cases).toBe(30);
    // Pooled over all tasks the rival looks better (the baselines find the best in about 1 world in 6;
    // recommend before like-with-like in 2 of 30, with kind effects held back harder than the setups'
    // own 19 of 30, then 26, with the kinds' difficulty in grades read from self-grades too 27, with
    // self-grades trusted as far as the setups' overclaims agree 29).
    // Bounds set below the measured run.
    expect(figures.hits / figures.cases).toBeGreaterThanOrEqual(0.8);
    expect(figures.hits - figures.baselineUser).toBeGreaterThanOrEqual(0.3 * figures.cases);
  }, EVAL_TIMEOUT_MS);

  it('task mix, held-out worlds', async () => {
    const figures = await score(range(9001, 30).map((seed) => taskMixWorld(seed, HELD_OUT_PARAMETERS, MIX_HELD_OUT_OPTIONS)));
    print('task mix held-out seeds 9001-9030', figures);
    expect(figures.cases).toBe(30);
    // Measured once after the scoring was settled on the development seeds: 24 of 30; a round later
    // (no longer blind: its figure had been seen) 25 of 30.
    expect(figures.hits / figures.cases).toBeGreaterThanOrEqual(0.7);
    expect(figures.hits - figures.baselineUser).toBeGreaterThanOrEqual(0.5 * figures.cases);
  }, EVAL_TIMEOUT_MS);

  it('task mix, fresh held-out worlds (added before the next scoring change, measured once at its end)', async () => {
    const figures = await score(MIX_FRESH_HELD_OUT_SEEDS.map((seed) => taskMixWorld(seed, HELD_OUT_PARAMETERS, MIX_HELD_OUT_OPTIONS)));
    print(`task mix fresh held-out seeds ${MIX_FRESH_HELD_OUT_SEEDS[0]}-${MIX_FRESH_HELD_OUT_SEEDS[MIX_FRESH_HELD_OUT_SEEDS.length - 1]}`, figures);
    expect(figures.cases).toBe(30);
    // Measured once, after the change was settled on the development seeds: 21 of 30 (the naive
    // user-grade rule 7). Bounds set below that run.
    expect(figures.hits / figures.cases).toBeGreaterThanOrEqual(0.6);
    expect(figures.hits - figures.baselineUser).toBeGreaterThanOrEqual(0.3 * figures.cases);
  }, EVAL_TIMEOUT_MS);

  // Added before self-grades were weighted by how well each setup's agree with the user's; not run
  // while that change was tuned (only its dev seeds were). Measured once after it was settled:
  // task mix 27 of 30 (the naive user-grade rule 5), confounded 30 of 30, inflation 27 of 30.
  // Bounds set below that run.
  const seedsName = (seeds: readonly number[]) => `${seeds[0]}-${seeds[seeds.length - 1]}`;

  it('task mix, third held-out worlds (added before the self-grade trust change)', async () => {
    const figures = await score(MIX_THIRD_HELD_OUT_SEEDS.map((seed) => taskMixWorld(seed, HELD_OUT_PARAMETERS, MIX_HELD_OUT_OPTIONS)));
    print(`task mix third held-out seeds ${seedsName(MIX_THIRD_HELD_OUT_SEEDS)}`, figures);
    expect(figures.cases).toBe(30);
    expect(figures.hits / figures.cases).toBeGreaterThanOrEqual(0.8);
    expect(figures.hits - figures.baselineUser).toBeGreaterThanOrEqual(0.5 * figures.cases);
  }, EVAL_TIMEOUT_MS);

  it('confounded case, held-out seeds', async () => {
    const figures = await score(SPECIAL_HELD_OUT_SEEDS.map(confoundedWorld));
    print(`confounded held-out seeds ${seedsName(SPECIAL_HELD_OUT_SEEDS)}`, figures);
    expect(figures.cases).toBe(30);
    expect(figures.hits / figures.cases).toBeGreaterThanOrEqual(0.9);
  }, EVAL_TIMEOUT_MS);

  it('inflation case, held-out seeds', async () => {
    const figures = await score(SPECIAL_HELD_OUT_SEEDS.map(inflationWorld), 0);
    print(`inflation held-out seeds ${seedsName(SPECIAL_HELD_OUT_SEEDS)}`, figures);
    expect(figures.cases).toBe(30);
    expect(figures.hits / figures.cases).toBeGreaterThanOrEqual(0.85);
  }, EVAL_TIMEOUT_MS);

  // Added before the task-mix scoring was reworked again (self-grades corrected kind by kind); not run
  // while that change was tuned (runs filtered them out with -t). Measured once with it: task mix 26 of
  // 30, confounded 29, inflation 28; the change was then left out (no gain beyond noise, docs/QUALITY.md)
  // and the scoring kept reads task mix 27 of 30 (the naive user-grade rule 2), confounded 29, inflation 28.
  // Bounds set below that run.

  it('task mix, fourth held-out worlds (added before the within-kind trust change)', async () => {
    const figures = await score(MIX_FOURTH_HELD_OUT_SEEDS.map((seed) => taskMixWorld(seed, HELD_OUT_PARAMETERS, MIX_HELD_OUT_OPTIONS)));
    print(`task mix fourth held-out seeds ${seedsName(MIX_FOURTH_HELD_OUT_SEEDS)}`, figures);
    expect(figures.cases).toBe(30);
    expect(figures.hits / figures.cases).toBeGreaterThanOrEqual(0.8);
    expect(figures.hits - figures.baselineUser).toBeGreaterThanOrEqual(0.5 * figures.cases);
  }, EVAL_TIMEOUT_MS);

  it('confounded case, fourth held-out seeds', async () => {
    const figures = await score(SPECIAL_FOURTH_HELD_OUT_SEEDS.map(confoundedWorld));
    print(`confounded held-out seeds ${seedsName(SPECIAL_FOURTH_HELD_OUT_SEEDS)}`, figures);
    expect(figures.cases).toBe(30);
    expect(figures.hits / figures.cases).toBeGreaterThanOrEqual(0.9);
  }, EVAL_TIMEOUT_MS);

  it('inflation case, fourth held-out seeds', async () => {
    const figures = await score(SPECIAL_FOURTH_HELD_OUT_SEEDS.map(inflationWorld), 0);
    print(`inflation held-out seeds ${seedsName(SPECIAL_FOURTH_HELD_OUT_SEEDS)}`, figures);
    expect(figures.cases).toBe(30);
    expect(figures.hits / figures.cases).toBeGreaterThanOrEqual(0.85);
  }, EVAL_TIMEOUT_MS);
});

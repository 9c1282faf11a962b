/**
 * How much of the task-mix worlds can be found at all. Next to the product's pick, estimators that
 * read only a world's sampled records (the grades the product sees, per task kind) but are told what
 * no recommender knows: the generator's true per-kind difficulty offsets, then also its true grade
 * noise, then also the setups' true overclaim (so self-grades can be used as freely as the user's).
 * And estimators told nothing: within-kind mean user grades weighted by the role's mix of tasks, and
 * a model + kind least-squares fit of the grades (user grades only, or the setups' own too).
 * EVAL_REPORT=1 prints the table docs/QUALITY.md quotes and the worlds an oracle finds and the product
 * misses; the held-out sets are run only then (the eval's own file already scores them).
 */
import { describe, expect, it } from '@jest/globals';
import { TASK_KIND_COUNTERS } from '../../src/core/outcomes/task-kind.js';
import type { TaskKind } from '../../src/core/outcomes/task-kind.js';
import type { UsageRecord } from '../../src/core/types.js';
import { answerWorld, EVAL_PARAMETERS, HELD_OUT_PARAMETERS } from '../helpers/synthetic-eval.js';
import type { EvalWorld, WorldParameters } from '../helpers/synthetic-eval.js';
import { KIND_OFFSET, MIX_FRESH_HELD_OUT_SEEDS, MIX_HELD_OUT_OPTIONS, taskMixWorld } from '../helpers/synthetic-eval-kinds.js';
import type { MixWorldOptions } from '../helpers/synthetic-eval-kinds.js';

/** The overclaim every setup of a task-mix world is generated with (synthetic-eval-kinds.ts). */
const TRUE_OVERCLAIM = 0.3;
const KINDS = Object.keys(TASK_KIND_COUNTERS) as TaskKind[];

/** The kind of a record's work, read from its turn counters (every turn of a session is one kind). */
function kindOf(record: UsageRecord): TaskKind | null {
  let found: TaskKind | null = null;
  let most = 0;
  for (const kind of KINDS) {
    const turns = record[TASK_KIND_COUNTERS[kind]] ?? 0;
    if (turns > most) {
      most = turns;
      found = kind;
    }
  }
  return found;
}

type Estimate = (world: EvalWorld, noise: number) => Map<string, number>;

/** Highest estimate wins; ties by name, so the answer never depends on record order. */
function pickOf(estimates: Map<string, number>): string | null {
  let best: string | null = null;
  let bestValue = -Infinity;
  for (const [model, value] of [...estimates].sort(([a], [b]) => a.localeCompare(b))) {
    if (value > bestValue) {
      bestValue = value;
      best = model;
    }
  }
  return best;
}

/** The plain estimator: per model, its mean user grade within each kind, weighted by the role's mix (the kinds it has grades in). */
const plainWithinKind: Estimate = (world) => {
  const mix = new Map<TaskKind, number>();
  const cells = new Map<string, Map<TaskKind, [number, number]>>();
  for (const record of world.usage) {
    const kind = kindOf(record);
    if (!kind) continue;
    mix.set(kind, (mix.get(kind) ?? 0) + (record.turns ?? 0));
    const byKind = cells.get(record.model) ?? new Map<TaskKind, [number, number]>();
    const cell = byKind.get(kind) ?? [0, 0];
    cell[0] += record.userGradedCommits ?? 0;
    cell[1] += record.userGradeSum ?? 0;
    byKind.set(kind, cell);
    cells.set(record.model, byKind);
  }
  const estimates = new Map<string, number>();
  for (const [model, byKind] of cells) {
    let weighted = 0;
    let weights = 0;
    for (const [kind, [count, sum]] of byKind) {
      if (count === 0) continue;
      const weight = mix.get(kind) ?? 0;
      weighted += weight * (sum / count);
      weights += weight;
    }
    if (weights > 0) estimates.set(model, weighted / weights);
  }
  return estimates;
};

/**
 * An oracle: every grade with its kind's true offset taken off, averaged per model. Its quality on any
 * mix of tasks is that average plus the mix's offset, the same for every model, so the average ranks.
 * `knowsNoise`: the offset as it shows in grades, shrunk by the share of random grades.
 * `selfGrades`: the setups' own grades too, less the true overclaim when `knowsOverclaim`.
 */
function oracle(knowsNoise: boolean, selfGrades: boolean, knowsOverclaim = true): Estimate {
  return (world, noise) => {
    const scale = knowsNoise ? 1 - noise : 1;
    const totals = new Map<string, [number, number]>();
    for (const record of world.usage) {
      const kind = kindOf(record);
      if (!kind) continue;
      const offset = scale * KIND_OFFSET[kind];
      const entry = totals.get(record.model) ?? [0, 0];
      const user = record.userGradedCommits ?? 0;
      entry[0] += user;
      entry[1] += (record.userGradeSum ?? 0) - user * offset;
      if (selfGrades) {
        const self = record.selfGradedCommits ?? 0;
        entry[0] += self;
        entry[1] += (record.selfGradeSum ?? 0) - self * (offset + (knowsOverclaim ? scale * TRUE_OVERCLAIM : 0));
      }
      totals.set(record.model, entry);
    }
    const estimates = new Map<string, number>();
    for (const [model, [count, sum]] of totals) if (count > 0) estimates.set(model, sum / count);
    return estimates;
  };
}

/**
 * No oracle: each grade as a model's standing plus its kind's difficulty, both fitted to the world's
 * grades by least squares (alternating, a fixed number of rounds), the setups' own grades taken as
 * they are when `selfGrades`. The model with the highest standing ranks first on any mix.
 */
function additiveFit(selfGrades: boolean): Estimate {
  return (world) => {
    // Per model and kind: graded commits and their grade sum.
    const cells = new Map<string, Map<TaskKind, [number, number]>>();
    for (const record of world.usage) {
      const kind = kindOf(record);
      if (!kind) continue;
      const byKind = cells.get(record.model) ?? new Map<TaskKind, [number, number]>();
      const cell = byKind.get(kind) ?? [0, 0];
      cell[0] += (record.userGradedCommits ?? 0) + (selfGrades ? (record.selfGradedCommits ?? 0) : 0);
      cell[1] += (record.userGradeSum ?? 0) + (selfGrades ? (record.selfGradeSum ?? 0) : 0);
      byKind.set(kind, cell);
      cells.set(record.model, byKind);
    }
    const standing = new Map<string, number>([...cells.keys()].map((model) => [model, 0]));
    const difficulty = new Map<TaskKind, number>(KINDS.map((kind) => [kind, 0]));
    for (let round = 0; round < 200; round += 1) {
      for (const [model, byKind] of cells) {
        let count = 0;
        let residual = 0;
        for (const [kind, [n, sum]] of byKind) {
          count += n;
          residual += sum - n * (difficulty.get(kind) ?? 0);
        }
        if (count > 0) standing.set(model, residual / count);
      }
      for (const kind of KINDS) {
        let count = 0;
        let residual = 0;
        for (const [model, byKind] of cells) {
          const [n, sum] = byKind.get(kind) ?? [0, 0];
          count += n;
          residual += sum - n * (standing.get(model) ?? 0);
        }
        difficulty.set(kind, count > 0 ? residual / count : 0);
      }
    }
    const estimates = new Map<string, number>();
    for (const [model, byKind] of cells) if ([...byKind.values()].some(([n]) => n > 0)) estimates.set(model, standing.get(model) ?? 0);
    return estimates;
  };
}

const ESTIMATORS: [string, Estimate][] = [
  ['plain within-kind user-grade means, role mix', plainWithinKind],
  ['no oracle: model + kind fitted to user grades', additiveFit(false)],
  ['no oracle: model + kind fitted to user + self grades as they are', additiveFit(true)],
  ['oracle: true kind offsets, user grades', oracle(false, false)],
  ['oracle: true offsets and noise, user grades', oracle(true, false)],
  ['oracle: true offsets and noise, user + self grades as they are', oracle(true, true, false)],
  ['oracle: true offsets, noise and overclaim, user + self grades', oracle(true, true)],
];

/** Where the oracles start in ESTIMATORS. */
const FIRST_ORACLE = 3;

interface SetResult {
  name: string;
  worlds: number;
  product: number;
  estimators: number[];
  /** Worlds an oracle finds and the product misses. */
  lost: string[];
}

/** Each set imports 30 worlds and runs recommend on each: seconds, not milliseconds. */
const EVAL_TIMEOUT_MS = 300_000;

async function measure(name: string, seeds: readonly number[], parameters: WorldParameters, options?: MixWorldOptions): Promise<SetResult> {
  const result: SetResult = { name, worlds: 0, product: 0, estimators: ESTIMATORS.map(() => 0), lost: [] };
  for (const seed of seeds) {
    const world = taskMixWorld(seed, parameters, options);
    const c = world.cases[0];
    if (!c) continue;
    result.worlds += 1;
    const answer = (await answerWorld(world)).get(c.target)?.roles.find((r) => r.agent === c.role);
    const productRight = answer?.pick.model === c.best;
    if (productRight) result.product += 1;
    const picks = ESTIMATORS.map(([, estimate]) => pickOf(estimate(world, parameters.gradeNoise)));
    picks.forEach((pick, i) => {
      if (pick === c.best) result.estimators[i] = (result.estimators[i] ?? 0) + 1;
    });
    const oracleRight = picks.slice(FIRST_ORACLE).some((pick) => pick === c.best);
    if (oracleRight && !productRight) {
      const rival = Object.entries(c.truth)
        .filter(([model]) => model !== c.best)
        .sort(([, a], [, b]) => b - a)[0];
      const graded = world.usage.filter((r) => r.model === c.best).reduce((sum, r) => sum + (r.userGradedCommits ?? 0), 0);
      result.lost.push(
        `seed ${seed}: product picked ${answer?.pick.model ?? 'nothing'} (probability best ${answer?.probabilityBest.toFixed(2) ?? '-'}), ` +
          `true best ${c.best} ahead of ${rival?.[0] ?? '-'} by ${((c.truth[c.best] ?? 0) - (rival?.[1] ?? 0)).toFixed(2)}; ` +
          `best's user-graded commits ${graded}; picks of the estimators below the product, in order [${picks.join(', ')}]`,
      );
    }
  }
  return result;
}

function print(results: readonly SetResult[]): void {
  if (process.env.EVAL_REPORT !== '1') return;
  const head = `| estimator | ${results.map((r) => r.name).join(' | ')} |\n|---|${results.map(() => '---|').join('')}\n`;
  const row = (label: string, values: number[]) => `| ${label} | ${values.map((v, i) => `${v} / ${results[i]?.worlds ?? 0}`).join(' | ')} |\n`;
  let text = head + row('the product (recommend --json)', results.map((r) => r.product));
  ESTIMATORS.forEach(([label], i) => {
    text += row(label, results.map((r) => r.estimators[i] ?? 0));
  });
  for (const r of results) text += `\n${r.name}: worlds an oracle finds and the product misses (${r.lost.length})\n${r.lost.map((line) => `  ${line}`).join('\n')}\n`;
  process.stdout.write(text);
}

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

describe('how much of the task-mix worlds can be found', () => {
  it('the pick finds the best at least as often as plain within-kind user-grade means on the development seeds', async () => {
    const results = [await measure('dev 1-30', range(1, 30), EVAL_PARAMETERS)];
    if (process.env.EVAL_REPORT === '1') {
      results.push(await measure('held-out 9001-9030', range(9001, 30), HELD_OUT_PARAMETERS, MIX_HELD_OUT_OPTIONS));
      results.push(await measure('fresh held-out 9101-9130', MIX_FRESH_HELD_OUT_SEEDS, HELD_OUT_PARAMETERS, MIX_HELD_OUT_OPTIONS));
    }
    print(results);
    const dev = results[0];
    expect(dev?.worlds).toBe(30);
    // Like with like must beat the obvious within-kind reading of the user's grades, not trail it.
    expect(dev?.product).toBeGreaterThanOrEqual(dev?.estimators[0] ?? Infinity);
  }, 3 * EVAL_TIMEOUT_MS);
});

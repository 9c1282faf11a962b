/**
 * Like with like: setups are compared within each kind of task, then weighted by the user's mix of
 * tasks. The strong model is often handed the hard bug fixes and the cheap one the docs; pooled over
 * all work, the one trusted with the hardest tasks would lose because of what it was given, not how
 * it did. A usage record counts the turns of each kind (TASK_KIND_COUNTERS), so its sums are split
 * between kinds in proportion to its turns; a record from before task kinds is of an unknown kind.
 */
import { TASK_KIND_COUNTERS, TASK_KINDS } from '../outcomes/task-kind.js';
import type { TaskKind } from '../outcomes/task-kind.js';
import type { UsageRecord } from '../types.js';
import { invert, multiply, quadraticForm } from './recommend-math.js';
import { gradeGood, SIGNALS } from './recommend-signals.js';
import type { SignalName, Tally } from './recommend-signals.js';

/** A kind of task, or unknown for records that do not say. */
export type Stratum = TaskKind | 'unknown';
const UNKNOWN_KIND: Stratum = 'unknown';

/**
 * A setup has done a kind of task when it has at least this many sessions' worth of it: two setups
 * with no such kind in common never did the same work, and ranking them would rank their tasks.
 */
export const MIN_KIND_SESSIONS = 1;

/**
 * The record's share of each kind (summing to 1): its turns of each kind over all its classified
 * turns. A record with none classified but some work (turns, tool calls, commits: a record from before
 * task kinds, or imported without them) is all of an unknown kind. A record with no work yet (a session
 * whose first turn has not ended: its turn and kind are counted together when it does) says nothing
 * about kinds and has no share in any; it still counts in the setup's totals. So a question asked in
 * a new session gets the same answer as the same question asked just before it.
 */
export function kindShares(record: UsageRecord): KindShares {
  return sharesOf(record, classifiedTurns(record));
}

/** A record's share of each kind of task it did. */
export type KindShares = readonly (readonly [Stratum, number])[];

/** The shares of most records (all of an unknown kind, or no work yet), made once: they are read, never changed. */
const ALL_UNKNOWN: KindShares = Object.freeze([Object.freeze([UNKNOWN_KIND, 1] as const)]);
const NO_SHARES: KindShares = Object.freeze([]);

/** kindShares, with the record's classified turns already counted. */
function sharesOf(record: UsageRecord, total: number): KindShares {
  // Loops, not map/filter: this runs for every usage record of every recommendation.
  if (total > 0) {
    const shares: [Stratum, number][] = [];
    for (const kind of TASK_KINDS) {
      const turns = record[TASK_KIND_COUNTERS[kind]] ?? 0;
      if (turns > 0) shares.push([kind, turns / total]);
    }
    return shares;
  }
  const worked = (record.turns ?? 0) > 0 || record.toolCalls > 0 || record.commits > 0;
  return worked ? ALL_UNKNOWN : NO_SHARES;
}

/**
 * The record's turns of a known kind. Each counter is read by its name, in TASK_KINDS order: usage
 * records share one shape, so a named read stays a fast property access where a read by a computed
 * name would not (this runs for every record of every recommendation).
 */
function classifiedTurns(record: UsageRecord): number {
  return (
    (record.turnsBugFix ?? 0) +
    (record.turnsFeature ?? 0) +
    (record.turnsRefactor ?? 0) +
    (record.turnsTests ?? 0) +
    (record.turnsDocs ?? 0) +
    (record.turnsConfig ?? 0) +
    (record.turnsOther ?? 0)
  );
}

/** A record's turns as the mix counts them: its classified turns, else its turns (at least one). */
function massOf(record: UsageRecord, classified: number): number {
  return classified > 0 ? classified : Math.max(1, record.turns ?? 0);
}

/**
 * How much of the user's work a record is, per kind: its turns (at least one for a record that
 * counts none). `shares` is the record's kindShares when the caller has them already.
 */
export function kindMass(record: UsageRecord, shares: KindShares = kindShares(record)): [Stratum, number][] {
  const mass = massOf(record, classifiedTurns(record));
  return shares.map(([kind, share]) => [kind, share * mass]);
}

/**
 * kindShares and, for kindMass, the turns its shares are of (share × turns is the kind's mass), with
 * the record's counters read once: what the recommendation reads of every record.
 */
export function kindSharesAndTurns(record: UsageRecord): { shares: KindShares; turns: number } {
  const classified = classifiedTurns(record);
  return { shares: sharesOf(record, classified), turns: massOf(record, classified) };
}

/** Adds `mass` to the kind in `into`. */
export function addMass(into: Map<Stratum, number>, kind: Stratum, mass: number): void {
  into.set(kind, (into.get(kind) ?? 0) + mass);
}

/** The mix as weights summing to 1 (empty when there is no work). */
export function mixWeights(mass: ReadonlyMap<Stratum, number>): Map<Stratum, number> {
  const total = [...mass.values()].reduce((sum, value) => sum + value, 0);
  const weights = new Map<Stratum, number>();
  if (total <= 0) return weights;
  for (const [kind, value] of mass) if (value > 0) weights.set(kind, value / total);
  return weights;
}

/** The kinds of task a setup has done (MIN_KIND_SESSIONS or more), unknown left out. */
function kindsDone(sessions: ReadonlyMap<Stratum, number>): Set<Stratum> {
  return new Set([...sessions].filter(([kind, count]) => kind !== UNKNOWN_KIND && count >= MIN_KIND_SESSIONS).map(([kind]) => kind));
}

/**
 * Whether two setups can be compared: true unless both did known kinds of task, never the same one,
 * and neither has work of an unknown kind (which might be anything, so it is given the benefit).
 */
export function comparable(a: ReadonlyMap<Stratum, number>, b: ReadonlyMap<Stratum, number>): boolean {
  const unknownA = (a.get(UNKNOWN_KIND) ?? 0) > 0;
  const unknownB = (b.get(UNKNOWN_KIND) ?? 0) > 0;
  const kindsA = kindsDone(a);
  const kindsB = kindsDone(b);
  if (unknownA || unknownB || kindsA.size === 0 || kindsB.size === 0) return true;
  return [...kindsA].some((kind) => kindsB.has(kind));
}

/** "bug fix, refactor": the kinds a setup did, for the sentence that says two setups cannot be compared (never empty there). */
export function describeKinds(sessions: ReadonlyMap<Stratum, number>): string {
  return [...kindsDone(sessions)].join(', ');
}

/**
 * The prior behind a kind's effect, in that signal's trials: a fraction of one, there only to keep
 * the fit determined. It must be weaker than the setup's own prior: when setups are handed different
 * kinds, the two effects explain the same differences, and a kind effect shrunk harder than the
 * setup's leaves the kind's difficulty in the setup's score (the model handed the bug fixes reads as
 * worse). At 5 trials it undid about half the gap between bug fixes and docs in the task-mix
 * evaluation worlds (docs/QUALITY.md).
 */
export const KIND_EFFECT_CREDIBILITY = 0.2;
/**
 * The prior behind a setup's own effect in the fit, kept small: shrunk as far as its score is, the
 * setup's own effect would leave part of its skill in the effect of the kinds it was handed.
 */
const OWN_EFFECT_CREDIBILITY = 1;

/** How much a kind of task moves every setup's share of one signal, and the mix's average of that. */
export interface KindEffects {
  byKind: Map<Stratum, number>;
  /**
   * Per setup (in the order fitted), the variance of its share read on the reference mix: its own
   * effect and the kind effects estimated together, so a setup whose work barely overlaps the others'
   * is as unsure as that makes it.
   */
  setupVariance: number[];
  /** The effect of the mix the scores are for: Σ weight × effect. */
  reference: number;
}

/** Per signal, its kind effects; a signal is absent when the role's work is of one kind (nothing to adjust). */
export type Difficulty = Partial<Record<SignalName, KindEffects>>;

/**
 * How hard each kind of task is, per signal, fitted over the whole role as share = role average +
 * the setup's own effect + the kind's effect (weighted least squares, both effects shrunk a little
 * toward 0, the kind's less). Fitting both at once is what keeps the kind's effect from being the
 * effect of whoever was handed that kind: bug fixes done only by the strong model would otherwise
 * look easy because the strong model did them well.
 */
export function fitKindEffects(setups: readonly ReadonlyMap<Stratum, Tally>[], mix: ReadonlyMap<Stratum, number>): Difficulty {
  const kinds = [...new Set(setups.flatMap((byKind) => [...byKind.keys()]))];
  const difficulty: Difficulty = {};
  if (kinds.length < 2) return difficulty;
  for (const signal of SIGNALS) {
    const cellsOf = (read: CellReader) => setups.map((byKind) => kinds.map((kind) => {
      const tally = byKind.get(kind);
      return tally ? read(tally) : { good: 0, trials: 0 };
    }));
    const cells = cellsOf((tally) => ({ good: signal.good(tally), trials: signal.trials(tally) }));
    const totals = sumCells(cells);
    if (totals.trials <= 0) continue;
    const average = totals.good / totals.trials;
    const difficultyReader = DIFFICULTY_READERS[signal.name];
    const fitted = difficultyReader ? cellsOf(difficultyReader) : cells;
    const fittedTotals = difficultyReader ? sumCells(fitted) : totals;
    const fittedAverage = fittedTotals.good / fittedTotals.trials;
    // The weighted least-squares solution, solved at once: own and kind effects are confounded when
    // setups are handed different kinds, and a back-and-forth fit would settle slowly.
    const residuals = [
      ...fitted.map((row) => row.reduce((sum, cell) => sum + cell.good - cell.trials * fittedAverage, 0)),
      ...kinds.map((_, k) => fitted.reduce((sum, row) => sum + (row[k]?.good ?? 0) - (row[k]?.trials ?? 0) * fittedAverage, 0)),
    ];
    const solved = multiply(invert(informationMatrix(fitted, OWN_EFFECT_CREDIBILITY, KIND_EFFECT_CREDIBILITY)), residuals);
    const kind = solved.slice(setups.length);
    const byKind = new Map(kinds.map((name, k) => [name, kind[k] ?? 0]));
    const reference = [...mix].reduce((sum, [name, weight]) => sum + weight * (byKind.get(name) ?? 0), 0);
    const setupVariance = fitVariances(cells, kinds.map((name) => mix.get(name) ?? 0), average * (1 - average), signal.credibility);
    difficulty[signal.name] = { byKind, setupVariance, reference };
  }
  return difficulty;
}

/** Good outcomes and trials of one setup's work of one kind, for the fit. */
type CellReader = (tally: Tally) => { good: number; trials: number };

function sumCells(cells: readonly (readonly { good: number; trials: number }[])[]): { good: number; trials: number } {
  let good = 0;
  let trials = 0;
  for (const row of cells) {
    for (const cell of row) {
      good += cell.good;
      trials += cell.trials;
    }
  }
  return { good, trials };
}

/**
 * Signals whose kind effects are fitted on more than the signal itself. How hard a kind of task is
 * shows in every grade of it, not only the user's: the setups' own grades, once each setup's
 * overclaim is taken off (the caller passes them corrected, counted only on commits the user did not
 * grade and only as much as they vary), say it too, and there are about three times as many of them.
 * Fitted on both, the user-grade signal's kind adjustment is less noisy (the model handed the bug
 * fixes loses less to chance in how hard its bug fixes looked); the setup's own standing is still
 * read from the user's grades alone, and its variance from the user's grades alone (on the safe side).
 */
const DIFFICULTY_READERS: Partial<Record<SignalName, CellReader>> = {
  userGrade: (tally) => ({ good: gradeGood(tally.userGradeSum + tally.selfGradeSum, tally.userGraded + tally.selfGraded), trials: tally.userGraded + tally.selfGraded }),
};

/**
 * The variance of each setup's own effect plus the mix's kind effect, from the fit's information
 * matrix (trials per setup × kind, each effect with its prior): spread × cᵀ·M⁻¹·c.
 */
function fitVariances(cells: readonly (readonly { trials: number }[])[], weights: readonly number[], spread: number, credibility: number): number[] {
  const covariance = invert(informationMatrix(cells, credibility, KIND_EFFECT_CREDIBILITY));
  return cells.map((_, s) => spread * quadraticForm(covariance, [...cells.map((__, t) => (t === s ? 1 : 0)), ...weights]));
}

/**
 * The fit's information matrix: rows and columns are the setups' own effects, then the kinds'
 * effects; each cell's trials tie its setup and kind, and each effect carries its prior.
 */
function informationMatrix(cells: readonly (readonly { trials: number }[])[], ownPrior: number, kindPrior: number): number[][] {
  const setups = cells.length;
  const kinds = cells[0]?.length ?? 0;
  const size = setups + kinds;
  const matrix = Array.from({ length: size }, (_, i) => Array.from({ length: size }, (__, j) => (i !== j ? 0 : i < setups ? ownPrior : kindPrior)));
  cells.forEach((row, s) => {
    row.forEach((cell, k) => {
      const kind = setups + k;
      (matrix[s] as number[])[s] = ((matrix[s] as number[])[s] ?? 0) + cell.trials;
      (matrix[kind] as number[])[kind] = ((matrix[kind] as number[])[kind] ?? 0) + cell.trials;
      (matrix[s] as number[])[kind] = cell.trials;
      (matrix[kind] as number[])[s] = cell.trials;
    });
  });
  return matrix;
}

/**
 * Per signal, the amount to add to a share, and (for a setup of the fit) the variance of the share so
 * read, which replaces the plain posterior's: the kind effects are estimates too.
 */
export type Shift = Partial<Record<SignalName, { amount: number; variance?: number }>>;

/**
 * The amount to add to each signal's share of work split by kind as `byKind`, so it reads as if done
 * on the reference mix: the mix's kind effect minus that of the work's own kinds. `setup` is the
 * work's index in the fit (its variance comes with it); without it (the role's pool) none does.
 */
export function mixShift(byKind: ReadonlyMap<Stratum, Tally>, difficulty: Difficulty, setup?: number): Shift {
  const shifts: Shift = {};
  for (const signal of SIGNALS) {
    const effects = difficulty[signal.name];
    if (!effects) continue;
    const trials = [...byKind.values()].reduce((sum, tally) => sum + signal.trials(tally), 0);
    if (trials <= 0) continue;
    let amount = effects.reference;
    for (const [kind, effect] of effects.byKind) {
      const tally = byKind.get(kind);
      amount -= (tally ? signal.trials(tally) / trials : 0) * effect;
    }
    const variance = setup === undefined ? undefined : effects.setupVariance[setup];
    shifts[signal.name] = variance === undefined ? { amount } : { amount, variance };
  }
  return shifts;
}

/**
 * The little probability the recommendation needs: the normal CDF, a central interval, and the
 * chance that one of several independent normal estimates is truly the largest. All deterministic:
 * no sampling, so the same history always gives the same answer.
 */

/** z of a central 80% interval: 10% of the mass lies beyond it on each side. */
export const Z_80 = 1.2815515655446004;

/** Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7): plenty for a probability shown to two decimals. */
const ERF = { p: 0.3275911, a1: 0.254829592, a2: -0.284496736, a3: 1.421413741, a4: -1.453152027, a5: 1.061405429 };

export function erf(x: number): number {
  const sign = x < 0 ? -1 : 1;
  const ax = Math.abs(x);
  const t = 1 / (1 + ERF.p * ax);
  const poly = ((((ERF.a5 * t + ERF.a4) * t + ERF.a3) * t + ERF.a2) * t + ERF.a1) * t;
  return sign * (1 - poly * Math.exp(-ax * ax));
}

/** P(X ≤ x) for X ~ Normal(mean, sd); a zero sd is a step at the mean. */
export function normalCdf(x: number, mean: number, sd: number): number {
  if (sd <= 0) return x < mean ? 0 : 1;
  return 0.5 * (1 + erf((x - mean) / (sd * Math.SQRT2)));
}

export interface NormalEstimate {
  mean: number;
  sd: number;
}

/** Grid points over ±GRID_SPAN sd of the candidate: the rest of its mass is below 1e-8. */
const GRID_STEPS = 240;
const GRID_SPAN = 6;

/**
 * The probability that estimate `index` is the largest when each true value is independently
 * Normal(mean, sd): ∫ pdf_i(x) · Π_{j≠i} P(X_j < x) dx, integrated on a grid over the candidate's
 * own spread. With one candidate it is 1.
 */
export function probabilityLargest(estimates: readonly NormalEstimate[], index: number): number {
  const self = estimates[index];
  if (!self) return 0;
  const others = estimates.filter((_, i) => i !== index);
  if (others.length === 0) return 1;
  if (self.sd <= 0) return others.reduce((product, other) => product * normalCdf(self.mean, other.mean, other.sd), 1);
  const from = self.mean - GRID_SPAN * self.sd;
  const step = (2 * GRID_SPAN * self.sd) / GRID_STEPS;
  let mass = 0;
  let total = 0;
  for (let i = 0; i < GRID_STEPS; i += 1) {
    const x = from + (i + 0.5) * step;
    const z = (x - self.mean) / self.sd;
    const density = Math.exp(-0.5 * z * z);
    mass += density;
    total += density * others.reduce((product, other) => product * normalCdf(x, other.mean, other.sd), 1);
  }
  return total / mass;
}

/**
 * The inverse of a symmetric positive-definite matrix (Gauss-Jordan; the fits here are a few dozen
 * rows, and every diagonal carries a prior, so no pivot is ever near zero).
 */
export function invert(matrix: readonly (readonly number[])[]): number[][] {
  const n = matrix.length;
  const rows = matrix.map((row, i) => [...row, ...Array.from({ length: n }, (_, j) => (i === j ? 1 : 0))]);
  for (let col = 0; col < n; col += 1) {
    const pivotRow = rows[col] as number[];
    const pivot = pivotRow[col] as number;
    for (let j = 0; j < 2 * n; j += 1) pivotRow[j] = (pivotRow[j] as number) / pivot;
    rows.forEach((row, r) => {
      if (r === col) return;
      const factor = row[col] as number;
      if (factor === 0) return;
      for (let j = 0; j < 2 * n; j += 1) row[j] = (row[j] as number) - factor * (pivotRow[j] as number);
    });
  }
  return rows.map((row) => row.slice(n));
}

/** M·v for a square matrix M and a vector v. */
export function multiply(matrix: readonly (readonly number[])[], vector: readonly number[]): number[] {
  return matrix.map((row) => row.reduce((sum, value, j) => sum + value * (vector[j] ?? 0), 0));
}

/** cᵀ·M·c for a vector c and a square matrix M. */
export function quadraticForm(matrix: readonly (readonly number[])[], vector: readonly number[]): number {
  let total = 0;
  matrix.forEach((row, i) => row.forEach((value, j) => (total += (vector[i] ?? 0) * value * (vector[j] ?? 0))));
  return total;
}

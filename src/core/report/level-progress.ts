/**
 * Progress toward the next SP level, and the ASCII bar that draws it. The bar never rounds up:
 * a bar is drawn full only when the level is reached, so 99.6% shows an empty cell.
 */
import type { AgentStatus } from '../types.js';

export const BAR_FILLED = '#';
export const BAR_EMPTY = '.';

export interface LevelProgress {
  /** XP earned toward the next level. */
  xp: number;
  /** XP the next level needs in all (this level's XP plus what is still missing). */
  needed: number;
  /** Share of the way, 0..1. */
  fraction: number;
}

function finiteOrZero(value: number): number {
  return Number.isFinite(value) ? value : 0;
}

/** How far the agent is toward its next SP level, from its XP and the XP it still needs. */
export function levelProgress(status: Pick<AgentStatus, 'xp' | 'xpToLevel'>): LevelProgress {
  const xp = Math.max(0, finiteOrZero(status.xp));
  const needed = xp + Math.max(0, finiteOrZero(status.xpToLevel));
  const fraction = needed > 0 ? Math.min(1, xp / needed) : 0;
  return { xp, needed, fraction };
}

/** How many of `cells` cells are filled for a fraction: rounded down, so only 100% is full. */
export function filledCells(fraction: number, cells: number): number {
  const bounded = Math.min(1, Math.max(0, finiteOrZero(fraction)));
  return Math.min(cells, Math.floor(bounded * cells));
}

/** The bar's cells, `cells` characters wide, without brackets. */
export function progressCells(fraction: number, cells: number): string {
  const filled = filledCells(fraction, cells);
  return BAR_FILLED.repeat(filled) + BAR_EMPTY.repeat(Math.max(0, cells - filled));
}

/** Below this, a percentage is never shown as 100.0%. */
const HIGHEST_PARTIAL_PERCENT = 99.9;

/** The percentage with one decimal; short of the level it never reads 100.0%. */
export function formatPercent(fraction: number): string {
  const bounded = Math.min(1, Math.max(0, finiteOrZero(fraction)));
  const percent = bounded < 1 ? Math.min(HIGHEST_PARTIAL_PERCENT, bounded * 100) : 100;
  return `${percent.toFixed(1)}%`;
}

/**
 * The agent's health sheet, a "player sheet": the name in FIGlet letters, then a borderless
 * Tron-style block of stats, the XP bar toward the next SP level, and the project's pending
 * changes. Pure: everything it shows is passed in. Every line fits in SHEET_WIDTH columns and
 * holds only printable ASCII, so it reads the same in a terminal, the TUI's toast and a model's
 * code block.
 */
import { formatNumber } from './numbers.js';
import type { WorkingTreeChange } from '../projects/git.js';
import type { AgentStatus } from '../types.js';
import { formatPercent, levelProgress, progressCells } from './level-progress.js';
import { nameBanner } from './name-banner.js';
import { fitEnd, fitStart, toOneColumnText } from './terminal-text.js';

/** The widest a sheet line may be, in terminal columns. */
export const SHEET_WIDTH = 60;
/** Pending changes listed by path; the rest are counted. */
export const MAX_LISTED_CHANGES = 5;
/** Cells of the XP bar between its brackets. */
export const XP_BAR_CELLS = 38;
/** What the XP bar is labelled with: progress toward the next SP level. */
export const BAR_LABEL = 'LEVEL';
/** Under a sheet whose SP and XP an import could not pool (`pooledStanding`). */
export const POOLED_NOTE = ">> POOLED: SP/XP are one machine's, counts are all";
/** `100.0%` */
const PERCENT_WIDTH = 6;

const INDENT = '  ';
const LIST_INDENT = '    ';
/** Width of one stat cell (label, dotted leader, value) when two share a line. */
const STAT_CELL_WIDTH = 26;
const CELL_GAP = '  ';
const HEADER_MARK = '::';
const NO_NAME = '(no name)';

/** What the sheet shows besides the agent's own status. */
export interface SheetDetails {
  /** The project's uncommitted changes; the section is left out when unknown. */
  pendingChanges?: readonly WorkingTreeChange[];
  /** The models the agent worked with; the line is left out when not given. */
  models?: readonly string[];
}

/** `LABEL ..... value`, `width` wide; longer when the value needs it (the line is fitted later). */
function statCell(label: string, value: string, width = STAT_CELL_WIDTH): string {
  const dots = width - label.length - value.length - 2;
  return dots >= 1 ? `${label} ${'.'.repeat(dots)} ${value}` : `${label} ${value}`;
}

/** Two cells on one line when they fit, else one line each. */
function statPair(left: string, right: string): string[] {
  const joined = `${INDENT}${left}${CELL_GAP}${right}`;
  return joined.length <= SHEET_WIDTH ? [joined] : [`${INDENT}${left}`, `${INDENT}${right}`];
}

/** `:: name :::::::::::::: TIER ::`, exactly SHEET_WIDTH wide. */
function headerLine(name: string, tier: string): string {
  const right = ` ${tier} ${HEADER_MARK}`;
  const leftMark = `${HEADER_MARK} `;
  const minimumFill = HEADER_MARK.length + 1;
  const shownName = fitEnd(name, SHEET_WIDTH - leftMark.length - right.length - minimumFill);
  const fill = ':'.repeat(SHEET_WIDTH - leftMark.length - shownName.length - 1 - right.length);
  return `${leftMark}${shownName} ${fill}${right}`;
}

function pendingLines(changes: readonly WorkingTreeChange[]): string[] {
  if (changes.length === 0) return [`${INDENT}${statCell('PENDING', 'clean')}`];
  const lines = [`${INDENT}${statCell('PENDING', `${changes.length} change${changes.length === 1 ? '' : 's'}`)}`];
  for (const change of changes.slice(0, MAX_LISTED_CHANGES)) {
    const code = toOneColumnText(change.code).padEnd(2).slice(0, 2);
    const prefix = `${LIST_INDENT}${code} `;
    lines.push(prefix + fitStart(toOneColumnText(change.path), SHEET_WIDTH - prefix.length));
  }
  if (changes.length > MAX_LISTED_CHANGES) lines.push(`${LIST_INDENT}+ ${changes.length - MAX_LISTED_CHANGES} more`);
  return lines;
}

/** The player sheet of one agent, as lines joined by `\n`. */
export function formatHealthStatus(status: AgentStatus, details: SheetDetails = {}): string {
  const name = toOneColumnText(status.id).trim();
  const progress = levelProgress(status);
  const lines = [
    ...nameBanner(status.id, SHEET_WIDTH),
    headerLine(name || NO_NAME, toOneColumnText(status.tier)),
    ...statPair(statCell('SP', formatNumber(status.sp)), statCell('XP', `${formatNumber(status.xp)}/${formatNumber(progress.needed)}`)),
    ...statPair(statCell('CS', formatNumber(status.cs)), statCell('CS LABEL', toOneColumnText(status.csLabel))),
    ...statPair(statCell('COMMITS', formatNumber(status.commits)), statCell('BUGS', formatNumber(status.bugs))),
    `${INDENT}${statCell('HALTED', status.halted ? 'YES' : 'no')}`,
    ...(details.models ? [`${INDENT}${statCell('MODELS', details.models.length > 0 ? toOneColumnText(details.models.join(', ')) : 'none yet')}`] : []),
    `${INDENT}${BAR_LABEL} [${progressCells(progress.fraction, XP_BAR_CELLS)}] ${formatPercent(progress.fraction).padStart(PERCENT_WIDTH)}`,
  ];
  if (status.halted) lines.push(`${INDENT}>> HALTED: tools are refused until the user revives it`);
  // An import pooled sheets of two machines: counts and CS hold both, levels only one (src/core/pooled-sheet.ts).
  if (status.pooledStanding) lines.push(`${INDENT}${POOLED_NOTE}`);
  if (details.pendingChanges) lines.push(...pendingLines(details.pendingChanges));
  return lines.map((line) => fitEnd(line, SHEET_WIDTH)).join('\n');
}
